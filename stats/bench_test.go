package stats

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkCompareAll times one compare run at the size the command must
// handle in under 2 s: 10,000 queries × 8 metrics × 4 candidates (32
// comparisons) with 10,000 bootstrap resamples and 10,000 sign vectors.
func BenchmarkCompareAll(b *testing.B) {
	const queries, metrics, candidates = 10000, 8, 4
	rng := rand.New(rand.NewPCG(1, 2))
	values := func() []float64 {
		v := make([]float64, queries)
		for i := range v {
			v[i] = rng.Float64()
		}
		return v
	}
	var pairs []Pair
	for range metrics {
		base := values()
		for range candidates {
			pairs = append(pairs, Pair{Base: base, Cand: values()})
		}
	}
	for b.Loop() {
		if _, err := CompareAll(pairs, Options{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
