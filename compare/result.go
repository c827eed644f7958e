package compare

import (
	"encoding/json"
	"math"
	"strconv"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/stats"
)

// Result is everything one comparison found. Renderers format it; they
// compute nothing.
type Result struct {
	// Manifest freezes what was compared; the caller fills it in.
	Manifest   *eval.Manifest `json:"manifest"`
	Base       string         `json:"base"`
	Candidates []string       `json:"candidates"`
	Metrics    []string       `json:"metrics"`
	Settings   Settings       `json:"settings"`
	Queries    []string       `json:"queries"`
	Text       []string       `json:"text,omitempty"`
	// Values holds every system's per-query values: system, metric, query.
	Values map[string]map[string][]float64 `json:"values"`
	// Comparisons is the whole set, candidate by candidate, metric by
	// metric: one correction family.
	Comparisons []Comparison `json:"comparisons"`
	// Slices are the slices in the order given; their comparisons that
	// are not too small form a second correction family.
	Slices   []SliceResult `json:"slices,omitempty"`
	Extremes []Extremes    `json:"extremes"`
	Alerts   []Alert       `json:"alerts,omitempty"`
	// Notes are facts from the caller the reader must see: fields allowed
	// to differ, configuration changes, queries left out.
	Notes []string `json:"notes,omitempty"`
	// Losses holds, when systems were compared from traces, where each
	// system's relevant evidence and required facts stopped, stage by stage.
	Losses []Loss `json:"losses,omitempty"`
	// GatePower says, for every gate rule, the smallest difference
	// its queries can resolve.
	GatePower []GatePower `json:"gate_power,omitempty"`
	// Frontier sets, when systems were compared from traces, each
	// system's quality beside its cost and p90 latency.
	Frontier *Frontier `json:"frontier,omitempty"`
	// Partial is present in the comparison of one shard of a split by
	// query: what Merge needs to compare every query.
	Partial *partial `json:"partial,omitempty"`
	// PPI holds, under the label choice ppi, the PPI++ estimate of every
	// mean difference, over the whole set then each slice: the gate reads
	// them. Agreement is how the LLM labels agree with people's grades.
	PPI       []PPIDiff       `json:"ppi,omitempty"`
	Agreement *eval.Agreement `json:"agreement,omitempty"`
}

// Loss is one traced system's evidence waterfall (stages.Waterfall without
// the item list).
type Loss struct {
	System   string `json:"system"`
	Evidence []Step `json:"evidence"`
	Facts    []Step `json:"facts,omitempty"`
}

// Step is how many pieces of evidence stopped with one status (as
// stages.Step).
type Step struct {
	Status string `json:"status"`
	Count  int    `json:"count"`
}

// Settings records how the statistics were computed.
type Settings struct {
	Seed           uint64  `json:"seed"`
	Level          float64 `json:"level"`
	Resamples      int     `json:"resamples"`
	Randomizations int     `json:"randomizations"`
	ExactMax       int     `json:"exact_max"`
	Interval       string  `json:"interval"`
	Correction     string  `json:"correction"`
	Top            int     `json:"top"`
	MinSlice       int     `json:"min_slice"`
}

// Comparison is one candidate against the base on one metric.
type Comparison struct {
	Candidate string `json:"candidate"`
	Metric    string `json:"metric"`
	Stat
}

// Stat is a paired comparison over some queries. Differences are
// candidate minus base.
type Stat struct {
	N        int     `json:"n"`
	BaseMean float64 `json:"base_mean"`
	CandMean float64 `json:"cand_mean"`
	MeanDiff float64 `json:"mean_diff"`
	SD       float64 `json:"sd"`
	Wins     int     `json:"wins"`
	Ties     int     `json:"ties"`
	Losses   int     `json:"losses"`
	// CILow and CIHigh bound the bootstrap interval of MeanDiff.
	CILow  float64 `json:"ci_low"`
	CIHigh float64 `json:"ci_high"`
	// P is the two-sided sign-flip randomization p-value, enumerated
	// exactly when PExact.
	P      float64 `json:"p"`
	PExact bool    `json:"p_exact"`
	// PAdjusted is P corrected across its family; nil for a slice too
	// small to be tested.
	PAdjusted *float64 `json:"p_adjusted,omitempty"`
	// Significant is PAdjusted below 1 - level.
	Significant bool   `json:"significant"`
	TTest       *TTest `json:"t_test,omitempty"`
	// EffectSize is Cohen's d_z; undefined (infinite in memory, null in
	// JSON, "-" in tables) when every query moved alike or there is one.
	EffectSize Float `json:"effect_size"`
}

// TTest is the paired t-test, a second opinion.
type TTest struct {
	T  Float   `json:"t"`
	DF float64 `json:"df"`
	P  float64 `json:"p"`
	Lo float64 `json:"ci_low"`
	Hi float64 `json:"ci_high"`
}

// Regressed reports whether the candidate is significantly worse.
func (s *Stat) Regressed() bool { return s.Significant && s.MeanDiff < 0 }

func fromStats(c stats.Difference) Stat {
	s := Stat{N: c.N, BaseMean: c.BaseMean, CandMean: c.CandMean, MeanDiff: c.MeanDiff, SD: c.SD,
		Wins: c.Wins, Ties: c.Ties, Losses: c.Losses, CILow: c.Bootstrap.Lo, CIHigh: c.Bootstrap.Hi,
		P: c.SignFlip.P, PExact: c.SignFlip.Exact, EffectSize: Float(c.EffectSize)}
	if t := c.TTest; t != nil {
		s.TTest = &TTest{T: Float(t.T), DF: t.DF, P: t.P, Lo: t.Lo, Hi: t.Hi}
	}
	return s
}

// Float is a float64 that may be undefined: an infinity or NaN, which its
// JSON form writes as null.
type Float float64

func (f Float) finite() bool { return !math.IsInf(float64(f), 0) && !math.IsNaN(float64(f)) }

// MarshalJSON writes f as a number, or null where it is undefined.
func (f Float) MarshalJSON() ([]byte, error) {
	if !f.finite() {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

// UnmarshalJSON reads what MarshalJSON writes (null as NaN), and the
// "+Inf" and "-Inf" strings of earlier versions.
func (f *Float) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = Float(math.NaN())
		return nil
	}
	var s string
	if json.Unmarshal(b, &s) == nil {
		v, err := strconv.ParseFloat(s, 64)
		*f = Float(v)
		return err
	}
	return json.Unmarshal(b, (*float64)(f))
}

// newResult starts the result of comparing t.
func newResult(t *Table, opt Options) *Result {
	st := opt.Stats
	r := &Result{Base: t.Systems[0].Name, Metrics: t.Metrics, Queries: t.Queries, Text: t.Text,
		Values: map[string]map[string][]float64{},
		Settings: Settings{Seed: st.Seed, Level: st.Level, Resamples: st.Resamples, Randomizations: st.Randomizations,
			ExactMax: st.ExactMax, Interval: string(st.Interval), Correction: string(opt.Correction),
			Top: opt.Top, MinSlice: opt.MinSlice}}
	if r.Settings.Interval == "" {
		r.Settings.Interval = string(stats.Percentile)
	}
	if r.Settings.ExactMax == 0 {
		r.Settings.ExactMax = stats.DefaultExactMax
	}
	for i, s := range t.Systems {
		if i > 0 {
			r.Candidates = append(r.Candidates, s.Name)
		}
		vals := map[string][]float64{}
		for m, name := range t.Metrics {
			vals[name] = s.Values[m]
		}
		r.Values[s.Name] = vals
	}
	return r
}

// family compares every pair and corrects their p-values together.
func (r *Result) family(pairs []stats.Pair, opt Options) ([]Comparison, error) {
	cs, err := stats.CompareAll(pairs, opt.Stats)
	if err != nil {
		return nil, err
	}
	out := r.comparisons(cs)
	family := make([]*Stat, len(out))
	for i := range out {
		family[i] = &out[i].Stat
	}
	return out, r.correct(family, opt.Correction)
}

// comparisons labels the results of CompareAll on Table.pairs.
func (r *Result) comparisons(cs []stats.Difference) []Comparison {
	out := make([]Comparison, len(cs))
	for i, c := range cs {
		out[i] = Comparison{Candidate: r.Candidates[i/len(r.Metrics)], Metric: r.Metrics[i%len(r.Metrics)], Stat: fromStats(c)}
	}
	return out
}

// correct adjusts the p-values of a family and marks the significant ones.
func (r *Result) correct(family []*Stat, method stats.Correction) error {
	ps := make([]float64, len(family))
	for i, s := range family {
		ps[i] = s.P
	}
	adj, err := stats.Adjust(ps, method)
	if err != nil {
		return err
	}
	for i, s := range family {
		s.PAdjusted = &adj[i]
		s.Significant = adj[i] < 1-r.Settings.Level
	}
	return nil
}

// Comparison returns the whole-set comparison of cand on metric, or nil.
func (r *Result) Comparison(cand, metric string) *Comparison {
	return find(r.Comparisons, cand, metric)
}

func find(cs []Comparison, cand, metric string) *Comparison {
	for i := range cs {
		if cs[i].Candidate == cand && cs[i].Metric == metric {
			return &cs[i]
		}
	}
	return nil
}
