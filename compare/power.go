package compare

import (
	"math"
	"strings"

	"github.com/ragstat/ragstat/internal/analysis"
)

// GatePower is the power of one gate rule (fail_on) for one candidate: the
// smallest mean difference the queries it looks at can resolve, against the
// difference the rule is meant to catch.
type GatePower struct {
	Rule      string  `json:"rule"`
	Candidate string  `json:"candidate"`
	Metric    string  `json:"metric"`
	Slice     string  `json:"slice,omitempty"`
	Queries   int     `json:"queries"`
	Threshold float64 `json:"threshold"`
	// MDE is the minimum detectable effect at the comparison's level and
	// Power (a paired t-test); nil with fewer than two queries.
	MDE   *float64 `json:"mde"`
	Power float64  `json:"power"`
	// Protects is false when the rule's threshold is smaller than the MDE:
	// the gate cannot tell such a change from noise.
	Protects bool `json:"protects"`
}

// power works out, for every rule and candidate, the smallest difference
// the rule's queries can resolve.
func (r *Result) power(rules []Rule) ([]GatePower, error) {
	var out []GatePower
	for _, rule := range rules {
		cs, err := r.scope(rule.Slice)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			if !strings.EqualFold(c.Metric, rule.Metric) {
				continue
			}
			res, err := analysis.ResolveSD(c.N, c.SD, 1-r.Settings.Level, analysis.TargetPower)
			if err != nil {
				return nil, err
			}
			g := GatePower{Rule: rule.text, Candidate: c.Candidate, Metric: c.Metric, Slice: rule.Slice, Queries: c.N,
				Threshold: rule.Threshold, Power: analysis.TargetPower, Protects: res.Protects(rule.Threshold)}
			if !math.IsNaN(res.MDE) {
				g.MDE = &res.MDE
			}
			out = append(out, g)
		}
	}
	return out, nil
}
