package compare

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/internal/analysis"
)

// Frontier sets every traced system's quality beside what it costs and how
// long it takes, and marks the systems no other system beats.
//
// System A beats system B when A's quality is at least B's, A's cost per
// query and p90 latency are each at most B's, and A is strictly better on
// at least one of the three. A dimension that some system lacks (no
// prices given, or no latency recorded in some system's traces) is left
// out of the comparison for every system. The frontier is the systems no
// other system beats; two systems alike on every dimension both stay on it.
type Frontier struct {
	// Metric is the quality metric: its mean over the compared queries.
	Metric  string `json:"metric"`
	Queries int    `json:"queries"`
	// Costed and Timed say which dimensions the frontier compares: cost
	// when prices were given, latency when every system recorded some.
	Costed bool `json:"costed"`
	Timed  bool `json:"timed"`
	// Prices per million input and output tokens and the tokenizer that
	// counted them (zero and empty when not costed).
	PriceIn   float64          `json:"price_in_per_million"`
	PriceOut  float64          `json:"price_out_per_million"`
	Tokenizer string           `json:"tokenizer,omitempty"`
	Systems   []FrontierSystem `json:"systems"`
}

// FrontierSystem is one system's point.
type FrontierSystem struct {
	System string `json:"system"`
	// Quality is undefined (null in JSON) with no compared query.
	Quality Float `json:"quality"`
	// CostPerQuery prices each traced query's prompt (instructions,
	// request, packed context) and answer tokens; nil without prices.
	CostPerQuery *float64 `json:"cost_per_query"`
	CostQueries  int      `json:"cost_queries"`
	// P90Latency is the 90th percentile (nearest rank) of the traced
	// queries' end-to-end latency, the sum of each trace's recorded stage
	// and generation latencies, in milliseconds; nil when none recorded.
	P90Latency *float64 `json:"p90_latency_ms"`
	Timed      int      `json:"latency_queries"`
	// OnFrontier: no other system beats this one.
	OnFrontier bool `json:"on_frontier"`
	// BeatenBy names the systems that beat this one.
	BeatenBy []string `json:"beaten_by,omitempty"`
}

// qualityMetric is the metric whose mean is a traced system's quality:
// the one named, else the first metric of the last stage (the packed
// context the generator read), else the first metric.
func qualityMetric(metrics []string, named string) (string, error) {
	if named != "" {
		for _, m := range metrics {
			if strings.EqualFold(m, named) {
				return m, nil
			}
		}
		return "", fmt.Errorf("quality metric %q is not among the compared metrics: %s", named, strings.Join(metrics, " "))
	}
	last := ""
	for _, m := range metrics {
		if stage, name, ok := strings.Cut(m, "/"); ok && name != "facts" {
			last = stage
		}
	}
	for _, m := range metrics {
		if strings.HasPrefix(m, last+"/") {
			return m, nil
		}
	}
	return metrics[0], nil
}

// frontier works out the frontier of the traced sides on the result's
// queries; nil when a side was not traced.
func (r *Result) frontier(sides []*Side, named string, price *analysis.Cost, tokenizer string) (*Frontier, error) {
	for _, s := range sides {
		if s.Loss == nil {
			return nil, nil
		}
	}
	if len(r.Metrics) == 0 {
		return nil, nil
	}
	m, err := qualityMetric(r.Metrics, named)
	if err != nil {
		return nil, err
	}
	f := &Frontier{Metric: m, Queries: len(r.Queries), Costed: price != nil, Timed: true}
	if price != nil {
		f.PriceIn, f.PriceOut, f.Tokenizer = price.Input, price.Output, tokenizer
	}
	points := make([]analysis.Point, len(sides))
	for i, s := range sides {
		fs := FrontierSystem{System: s.Name, Quality: Float(mean(r.Values[s.Name][m])), Timed: len(s.Latencies)}
		if price != nil && s.Cost != nil {
			fs.CostPerQuery, fs.CostQueries = &s.Cost.PerQuery, s.Cost.Queries
		} else {
			f.Costed = false
		}
		if len(s.Latencies) > 0 {
			p := nearestRank(s.Latencies, 0.9)
			fs.P90Latency = &p
		} else {
			f.Timed = false
		}
		points[i] = analysis.Point{System: s.Name, Quality: float64(fs.Quality)}
		f.Systems = append(f.Systems, fs)
	}
	for i, fs := range f.Systems {
		if f.Costed {
			points[i].Cost = *fs.CostPerQuery
		}
		if f.Timed {
			points[i].Latency = *fs.P90Latency
		}
	}
	on := analysis.Frontier(points)
	for i := range f.Systems {
		fs := &f.Systems[i]
		fs.OnFrontier = slices.Contains(on, fs.System)
		fs.BeatenBy = analysis.BeatenBy(points, i)
	}
	return f, nil
}

func mean(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, v := range vs {
		s += v
	}
	return s / float64(len(vs))
}

// nearestRank is the q quantile of xs by the nearest-rank rule, as stages
// reports latency percentiles.
func nearestRank(xs []float64, q float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	return s[max(0, int(math.Ceil(q*float64(len(s))))-1)]
}
