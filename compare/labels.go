package compare

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/stats"
	"github.com/ragstat/ragstat/topics"
)

// PPIDiff is the PPI++ estimate of a candidate's mean difference from the
// base on one metric (labels ppi): the per-query differences under the
// LLM-filled labels, corrected by the same differences under people's
// grades on the audited queries (stats.PPI on the paired differences).
type PPIDiff struct {
	Candidate string `json:"candidate"`
	Metric    string `json:"metric"`
	// Slice names the slice; "" for the whole set.
	Slice string  `json:"slice,omitempty"`
	Mean  float64 `json:"mean"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	// Lambda is the power-tuning weight of the differences.
	Lambda float64 `json:"lambda"`
	// Filled is the mean difference under the LLM-filled labels, as the
	// comparison's own statistics read it.
	Filled float64 `json:"llm_filled_diff"`
	// N counts the queries, Labelled those with LLM labels, Audited
	// those audited.
	N        int `json:"n"`
	Labelled int `json:"labelled"`
	Audited  int `json:"audited"`
	// P is the two-sided p-value of no difference, from the estimate's
	// standard error and Student's t with Audited − 1 degrees of freedom;
	// PAdjusted is P corrected across its family (the whole set's, or
	// the slices').
	P         float64  `json:"p"`
	PAdjusted *float64 `json:"p_adjusted,omitempty"`
	// Missing says why a slice has no estimate (fewer than two audited
	// queries); the values are then zero.
	Missing string `json:"missing,omitempty"`
	// NoWidth marks a PPI++ interval of no width though some queries with
	// LLM labels are not audited: the audited ones showed no disagreement,
	// which does not show there is none in the others. The estimate, its
	// interval and P are then the audit alone's (lambda 0).
	NoWidth bool `json:"no_width,omitempty"`
}

// Interval is the estimate's interval, as the tables write it.
func (d PPIDiff) Interval() string { return fmt.Sprintf("[%+.4f, %+.4f]", d.Low, d.High) }

// human is every system's values under people's grades on the audited
// queries: system, metric, query.
type human = map[string]map[string]map[string]float64

// ppiDiffs estimates every candidate's difference on every metric, over
// the whole set and each slice, from the table's values (LLM-filled) and
// h (people's grades on the audited queries); the p-values are corrected
// as the comparison's own are.
func ppiDiffs(t *Table, h human, c *eval.Correction, opt Options, correction stats.Correction) ([]PPIDiff, error) {
	all := make([]int, len(t.Queries))
	for i := range all {
		all[i] = i
	}
	scopes := append([]topics.Slice{{Queries: all}}, opt.Slices...)
	var out []PPIDiff
	for si, sc := range scopes {
		var family []int
		for _, cand := range t.Systems[1:] {
			for m, metric := range t.Metrics {
				d, err := ppiDiff(t, h, c, t.Systems[0], cand, m, sc.Queries)
				if err != nil {
					return nil, fmt.Errorf("labels ppi: %s %s: %w", cand.Name, metric, err)
				}
				d.Candidate, d.Metric, d.Slice = cand.Name, metric, sc.Name
				if d.Missing == "" {
					family = append(family, len(out))
				}
				out = append(out, d)
			}
		}
		if si == 0 && len(family) < len(out) {
			return nil, &diag.OptionError{Scope: "policy", Option: "labels", Value: string(eval.LabelsPPI), Msg: ": " + out[0].Missing}
		}
		ps := make([]float64, len(family))
		for i, k := range family {
			ps[i] = out[k].P
		}
		adj, err := stats.Adjust(ps, correction)
		if err != nil {
			return nil, err
		}
		for i, k := range family {
			out[k].PAdjusted = &adj[i]
		}
	}
	return out, nil
}

// ppiDiff is one estimate over the queries at positions qs.
func ppiDiff(t *Table, h human, c *eval.Correction, base, cand System, m int, qs []int) (PPIDiff, error) {
	var in stats.PPIInput
	var d PPIDiff
	metric := t.Metrics[m]
	filled := 0.0
	for _, q := range qs {
		id := t.Queries[q]
		diff := cand.Values[m][q] - base.Values[m][q]
		filled += diff
		if !c.Labelled(id) {
			in.Exact = append(in.Exact, diff)
			continue
		}
		d.Labelled++
		in.Filled = append(in.Filled, diff)
		if !c.Audited(id) {
			continue
		}
		hb, okb := h[base.Name][metric][id]
		hc, okc := h[cand.Name][metric][id]
		if !okb || !okc {
			return d, fmt.Errorf("audited query %q has no value under people's grades", id)
		}
		d.Audited++
		in.Human = append(in.Human, hc-hb)
		in.FilledAudited = append(in.FilledAudited, diff)
	}
	d.N = len(qs)
	if d.N > 0 {
		d.Filled = filled / float64(d.N)
	}
	if d.Audited < 2 && d.Labelled > 0 {
		d.Missing = fmt.Sprintf("%d audited queries, at least 2 are needed", d.Audited)
		d.P = 1
		return d, nil
	}
	est, err := stats.PPI(in, c.Level)
	if err != nil {
		return d, err
	}
	d.Mean, d.Low, d.High, d.Lambda = est.Mean, est.Lo, est.Hi, est.Lambda
	d.P = pValue(est.Mean, est.SE, d.Audited-1)
	if d.NoWidth = est.NoWidth() && d.Audited < d.Labelled; d.NoWidth {
		// The audit showed no disagreement, which the others may hold: the
		// classical estimate from the audit alone (lambda 0) stands in.
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(d.Audited - 1)}.Quantile((1 + c.Level) / 2)
		se := (est.HumanHi - est.HumanMean) / t
		d.Mean, d.Low, d.High, d.Lambda = est.HumanMean, est.HumanLo, est.HumanHi, 0
		d.P = pValue(d.Mean, se, d.Audited-1)
	}
	return d, nil
}

// pValue is the two-sided p-value of mean 0 at standard error se with df
// degrees of freedom: 1 for an exact zero, 0 for an exact difference.
func pValue(mean, se float64, df int) float64 {
	switch {
	case se == 0 && mean == 0:
		return 1
	case se == 0 || df < 1:
		return 0
	}
	return 2 * (1 - distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.CDF(math.Abs(mean/se)))
}

// ppiGate checks the rules against the PPI++ intervals: a rule fails the
// gate unless the whole interval clears it (a difference the audit cannot
// rule out fails a release), and with significant, a metric whose
// estimate is below zero with an adjusted p below 1 − level fails it too.
// A rule on a slice without an estimate fails, saying why.
func (r *Result) ppiGate(rules []Rule, significant bool, gated []string) ([]string, error) {
	var reasons []string
	for _, rule := range rules {
		if rule.Slice != "" && r.Slice(rule.Slice) == nil {
			return nil, fmt.Errorf("no slice %q in this comparison", rule.Slice)
		}
		found := false
		for _, d := range r.PPI {
			if d.Slice != rule.Slice || !strings.EqualFold(d.Metric, rule.Metric) {
				continue
			}
			found = true
			edge := d.Low
			if rule.Op == ">" || rule.Op == ">=" {
				edge = d.High
			}
			switch {
			case d.Missing != "":
				reasons = append(reasons, fmt.Sprintf("%s: %s%s cannot be checked under labels ppi: %s (rule %q)", d.Candidate, d.Metric, where(d.Slice), d.Missing, rule.text))
			case rule.holds(edge):
				reasons = append(reasons, fmt.Sprintf("%s: %s PPI++ mean difference %+.4f, %s interval %s%s, reaches the rule %q",
					d.Candidate, d.Metric, d.Mean, strconv.FormatFloat(100*r.Settings.Level, 'g', -1, 64)+"%", d.Interval(), where(d.Slice), rule.text))
			}
		}
		if !found {
			return nil, &diag.OptionError{Option: "fail_on", Value: fmt.Sprintf("%q", rule.text),
				Msg: diag.Literal(fmt.Sprintf(": no metric %s compared (%s)", rule.Metric, strings.Join(r.Metrics, " ")))}
		}
	}
	if !significant {
		return reasons, nil
	}
	slicesGated := append([]string{""}, gated...)
	for _, s := range gated {
		if r.Slice(s) == nil {
			return nil, fmt.Errorf("no slice %q in this comparison", s)
		}
	}
	for _, d := range r.PPI {
		if !slices.Contains(slicesGated, d.Slice) || d.Missing != "" || d.PAdjusted == nil {
			continue
		}
		if d.Mean < 0 && *d.PAdjusted < 1-r.Settings.Level {
			reasons = append(reasons, fmt.Sprintf("%s: %s significantly worse%s under labels ppi: %+.4f %s, adjusted p = %.4g (%s)",
				d.Candidate, d.Metric, where(d.Slice), d.Mean, d.Interval(), *d.PAdjusted, r.Settings.Correction))
		}
	}
	return reasons, nil
}

// rankAgreements compares, metric by metric (three systems or more), the
// systems' rankings by their means over the audited queries under people's
// grades and under the LLM-filled labels: Kendall's tau-b.
func rankAgreements(t *Table, h human, c *eval.Correction) []eval.RankAgreement {
	if len(t.Systems) < 3 {
		return nil
	}
	var out []eval.RankAgreement
	for m, metric := range t.Metrics {
		x, y := make([]float64, len(t.Systems)), make([]float64, len(t.Systems))
		for i, s := range t.Systems {
			n := 0
			for q, id := range t.Queries {
				if !c.Audited(id) {
					continue
				}
				x[i] += h[s.Name][metric][id]
				y[i] += s.Values[m][q]
				n++
			}
			if n > 0 {
				x[i], y[i] = x[i]/float64(n), y[i]/float64(n)
			}
		}
		ra := eval.RankAgreement{Metric: metric, Systems: len(t.Systems)}
		if tau, err := stats.KendallTau(x, y); err == nil {
			ra.Tau = &tau
		}
		out = append(out, ra)
	}
	return out
}
