package stages

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestExactSum checks that the sum is the exact sum rounded once, whatever
// the order of the terms, where naive addition is not.
func TestExactSum(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, xs := range [][]float64{
		nil,
		{0.1, 0.2, 0.3},
		{1e16, 1, -1e16},
		{1, 1e-16, 1e-16, 1e-16, 1e-16},
		{math.Nextafter(1, 2), -1, 1e-300},
		func() []float64 {
			out := make([]float64, 5000)
			for i := range out {
				out[i] = float64(r.IntN(7)) / float64(1+r.IntN(9))
			}
			return out
		}(),
	} {
		exact := new(big.Float).SetPrec(4096)
		for _, x := range xs {
			exact.Add(exact, new(big.Float).SetFloat64(x))
		}
		want, _ := exact.Float64()
		for range 5 {
			r.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
			var s exactSum
			half := len(xs) / 2
			for _, x := range xs[:half] {
				s.add(x)
			}
			var rest exactSum
			for _, x := range xs[half:] {
				rest.add(x)
			}
			s.merge(rest)
			if got := s.value(); got != want {
				t.Fatalf("sum of %d terms = %v, want %v", len(xs), got, want)
			}
		}
	}
}
