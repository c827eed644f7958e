package compare

import (
	"slices"
	"testing"

	"github.com/ragstat/ragstat/internal/analysis"
)

func TestQualityMetric(t *testing.T) {
	traced := []string{"candidates/R@10", "candidates/nDCG@10", "context/R@10", "context/nDCG@10", "candidates/facts", "context/facts"}
	for _, c := range []struct {
		metrics     []string
		named, want string
		wantErr     bool
	}{
		{traced, "", "context/R@10", false},
		{traced, "CONTEXT/ndcg@10", "context/nDCG@10", false},
		{traced, "context/facts", "context/facts", false},
		{[]string{"nDCG@10", "R@100"}, "", "nDCG@10", false},
		{traced, "nDCG@10", "", true},
	} {
		got, err := qualityMetric(c.metrics, c.named)
		if got != c.want || (err != nil) != c.wantErr {
			t.Errorf("%v %q: %q, %v; want %q", c.metrics, c.named, got, err, c.want)
		}
	}
}

func TestFrontier(t *testing.T) {
	cost := func(c float64) *Cost { return &Cost{PerQuery: c, Queries: 2} }
	loss := &Loss{}
	r := &Result{Metrics: []string{"context/R@10"}, Queries: []string{"q1", "q2"}, Values: map[string]map[string][]float64{
		"cheap": {"context/R@10": {0.4, 0.6}},
		"good":  {"context/R@10": {0.8, 0.8}},
		"worse": {"context/R@10": {0.7, 0.7}},
		"fast":  {"context/R@10": {0.5, 0.7}},
	}}
	sides := []*Side{
		{Name: "cheap", Loss: loss, Cost: cost(0.001), Latencies: []float64{100, 200, 300}},
		{Name: "good", Loss: loss, Cost: cost(0.01), Latencies: []float64{900, 800}},
		{Name: "worse", Loss: loss, Cost: cost(0.02), Latencies: []float64{950}},
		{Name: "fast", Loss: loss, Cost: cost(0.005), Latencies: []float64{50, 100}},
	}
	price := &analysis.Cost{Input: 1, Output: 2}
	for _, c := range []struct {
		name    string
		price   *analysis.Cost
		sides   []*Side
		onFront []string
		beaten  map[string][]string
		costed  bool
		timed   bool
	}{
		// worse: lower quality than good, dearer and slower.
		{"priced", price, sides, []string{"cheap", "good", "fast"}, map[string][]string{"worse": {"good"}}, true, true},
		// Without prices cost is left out: fast (0.6, 100 ms) beats cheap
		// (0.5, 300 ms); good (0.8, 900 ms) beats worse (0.7, 950 ms).
		{"not priced", nil, sides, []string{"good", "fast"}, map[string][]string{"cheap": {"fast"}, "worse": {"good"}}, false, true},
		// A system without latency leaves latency out for all: quality and cost.
		{"untimed", price, append(slices.Clone(sides[:3]), &Side{Name: "fast", Loss: loss, Cost: cost(0.005)}), []string{"cheap", "good", "fast"},
			map[string][]string{"worse": {"good"}}, true, false},
	} {
		f, err := r.frontier(c.sides, "", c.price, "o200k_base")
		if err != nil {
			t.Fatal(err)
		}
		var on []string
		for _, s := range f.Systems {
			if s.OnFrontier {
				on = append(on, s.System)
			}
			if !slices.Equal(s.BeatenBy, c.beaten[s.System]) {
				t.Errorf("%s: %s beaten by %v, want %v", c.name, s.System, s.BeatenBy, c.beaten[s.System])
			}
		}
		if !slices.Equal(on, c.onFront) || f.Costed != c.costed || f.Timed != c.timed || f.Metric != "context/R@10" {
			t.Errorf("%s: frontier %v (costed %v, timed %v), want %v", c.name, on, f.Costed, f.Timed, c.onFront)
		}
	}
	// Runs, not traces: no frontier.
	if f, err := r.frontier([]*Side{{Name: "a"}, {Name: "b"}}, "", price, ""); f != nil || err != nil {
		t.Errorf("runs: %+v, %v", f, err)
	}
}

func TestNearestRank(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{5}, 5},
		{[]float64{3, 1, 2}, 3},
		{[]float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}, 90},
		{[]float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110}, 100},
	} {
		if got := nearestRank(c.xs, 0.9); got != c.want {
			t.Errorf("p90 of %v: %v, want %v", c.xs, got, c.want)
		}
	}
}
