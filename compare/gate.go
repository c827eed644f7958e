package compare

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/internal/diag"
)

// Rule is a release gate on a mean difference (candidate minus base): the
// gate fails when Diff Op Threshold holds, for any candidate.
type Rule struct {
	Metric    string
	Slice     string // "" for the whole set
	Op        string // <, <=, >, >=
	Threshold float64
	text      string
}

var ruleSyntax = regexp.MustCompile(`^\s*([^\s\[<>=]+)\s*(?:\[([^\]]+)\])?\s*(<=|>=|<|>)\s*(\S+)\s*$`)

// ParseRule reads a gate rule (the option fail_on): METRIC[SLICE] OP NUMBER, the slice
// optional, such as "nDCG@10 < -0.01" or "R@100[tag:legal] <= -0.02".
func ParseRule(s string) (Rule, error) {
	m := ruleSyntax.FindStringSubmatch(s)
	if m == nil {
		return Rule{}, &diag.OptionError{Option: "fail_on", Value: strconv.Quote(s), Msg: ": write METRIC OP NUMBER, e.g. 'nDCG@10 < -0.01' (a slice: 'nDCG@10[tag:x] < 0')"}
	}
	v, err := strconv.ParseFloat(m[4], 64)
	if err != nil {
		return Rule{}, &diag.OptionError{Option: "fail_on", Value: strconv.Quote(s), Msg: diag.Literal(fmt.Sprintf(": %q is not a number", m[4]))}
	}
	return Rule{Metric: m[1], Slice: m[2], Op: m[3], Threshold: v, text: strings.TrimSpace(s)}, nil
}

func (r Rule) holds(d float64) bool {
	switch r.Op {
	case "<":
		return d < r.Threshold
	case "<=":
		return d <= r.Threshold
	case ">":
		return d > r.Threshold
	}
	return d >= r.Threshold
}

// Gate is the release gate over r: it checks rules, and when significant
// is set, that no metric is significantly worse after correction on the
// whole set or on any slice named in gated (Run applies it with
// Config.FailOn, FailOnSignificant and GateSlices). Under the label choice
// ppi it reads the PPI++ differences instead (ppiGate). It returns one
// reason a line for every failure, and an error when a rule names an
// unknown metric or slice.
func (r *Result) Gate(rules []Rule, significant bool, gated []string) ([]string, error) {
	if r.PPI != nil {
		return r.ppiGate(rules, significant, gated)
	}
	var reasons []string
	for _, rule := range rules {
		cs, err := r.scope(rule.Slice)
		if err != nil {
			return nil, err
		}
		found := false
		for _, c := range cs {
			if !strings.EqualFold(c.Metric, rule.Metric) {
				continue
			}
			found = true
			if rule.holds(c.MeanDiff) {
				reasons = append(reasons, fmt.Sprintf("%s: %s mean difference %+.4f%s (rule %q)",
					c.Candidate, c.Metric, c.MeanDiff, where(rule.Slice), rule.text))
			}
		}
		if !found {
			return nil, &diag.OptionError{Option: "fail_on", Value: strconv.Quote(rule.text),
				Msg: diag.Literal(fmt.Sprintf(": no metric %s compared (%s)", rule.Metric, strings.Join(r.Metrics, " ")))}
		}
	}
	if !significant {
		return reasons, nil
	}
	for _, slice := range append([]string{""}, gated...) {
		cs, err := r.scope(slice)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			if c.Regressed() {
				reasons = append(reasons, fmt.Sprintf("%s: %s significantly worse%s: %+.4f, adjusted p = %.4g (%s)",
					c.Candidate, c.Metric, where(slice), c.MeanDiff, *c.PAdjusted, r.Settings.Correction))
			}
		}
	}
	return reasons, nil
}

// scope returns the comparisons of the whole set ("") or of a slice.
func (r *Result) scope(slice string) ([]Comparison, error) {
	if slice == "" {
		return r.Comparisons, nil
	}
	s := r.Slice(slice)
	if s == nil {
		return nil, fmt.Errorf("no slice %q in this comparison", slice)
	}
	return s.Comparisons, nil
}

func where(slice string) string {
	if slice == "" {
		return ""
	}
	return " in slice " + slice
}
