package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"pgregory.net/rapid"
)

// diffsOnly compares a zero base with candidate d, so the differences are d.
func diffsOnly(d []float64, o Options) (Difference, error) {
	return Compare(make([]float64, len(d)), d, o)
}

// TestExactSignFlipByHand checks enumeration on cases counted by hand.
func TestExactSignFlipByHand(t *testing.T) {
	tests := []struct {
		d              []float64
		extreme, total int64
	}{
		// ±1±2±3 takes 6, 4, 2, 0, 0, -2, -4, -6: only ±6 reach 6.
		{[]float64{1, 2, 3}, 2, 8},
		// Sums of four ±1: |sum| >= 2 unless two signs of each, C(4,2) = 6.
		{[]float64{1, 1, 1, -1}, 10, 16},
		// 0.1+0.2 and 0.3 tie only up to rounding: ±0.1±0.2±0.3 reaches
		// |0.6| twice and 0 twice; the two other pairs are 0.4 and 0.2.
		{[]float64{0.1, 0.2, 0.3}, 2, 8},
		// The observed sum is 0 in exact arithmetic but 5.6e-17 in float64;
		// every sign vector is at least as extreme as 0.
		{[]float64{0.1, 0.2, -0.3}, 8, 8},
		{[]float64{0, 0}, 4, 4},
		{[]float64{5}, 2, 2},
		// ±2±1±4 takes ±7, ±5, ±3, ±1: all but ±1 reach |3|.
		{[]float64{-2, 1, 4}, 6, 8},
	}
	for _, tt := range tests {
		r, err := diffsOnly(tt.d, Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		want := SignFlip{P: float64(tt.extreme) / float64(tt.total), Exact: true, Extreme: tt.extreme, Total: tt.total}
		if r.SignFlip != want {
			t.Errorf("%v: got %+v, want %+v", tt.d, r.SignFlip, want)
		}
	}
}

// TestSampledMatchesExact checks that the sampled test agrees with
// enumeration on small data sets within Monte Carlo error (four standard
// errors), and that it says which one it used.
func TestSampledMatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	const draws = 20000
	for set := range 8 {
		d := make([]float64, 12+set)
		for i := range d {
			d[i] = math.Round((rng.NormFloat64()+0.3)*10) / 10
		}
		exact, err := diffsOnly(d, Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		sampled, err := diffsOnly(d, Options{Seed: uint64(set), ExactMax: -1, Randomizations: draws})
		if err != nil {
			t.Fatal(err)
		}
		p, q := exact.SignFlip.P, sampled.SignFlip.P
		se := math.Sqrt(p*(1-p)/draws) + 1.0/draws
		if !exact.SignFlip.Exact || sampled.SignFlip.Exact || sampled.SignFlip.Total != draws {
			t.Errorf("set %d: exact %+v sampled %+v", set, exact.SignFlip, sampled.SignFlip)
		}
		if math.Abs(p-q) > 4*se {
			t.Errorf("set %d (%v): exact p %v, sampled p %v, se %v", set, d, p, q, se)
		}
	}
}

// TestExactLimit checks that ExactMax decides between enumeration and
// sampling.
func TestExactLimit(t *testing.T) {
	d := []float64{1, -2, 3, 4, 0.5, 2, 1, -1}
	tests := []struct {
		max   int
		exact bool
	}{{0, true}, {8, true}, {7, false}, {-1, false}}
	for _, tt := range tests {
		r, err := diffsOnly(d, Options{ExactMax: tt.max, Randomizations: 100})
		if err != nil {
			t.Fatal(err)
		}
		if r.SignFlip.Exact != tt.exact {
			t.Errorf("ExactMax %d: exact = %v", tt.max, r.SignFlip.Exact)
		}
	}
}

// TestExactAgainstBruteForce checks the meet-in-the-middle count against
// summing every sign vector directly, on differences from a coarse grid so
// that many sums tie in exact arithmetic.
func TestExactAgainstBruteForce(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := rapid.SliceOfN(rapid.IntRange(-5, 5), 1, 12).Draw(t, "tenths")
		v := make([]float64, len(d))
		total, abs := 0.0, 0.0
		for i, x := range d {
			v[i] = float64(x) / 10
			total += v[i]
			abs += math.Abs(v[i])
		}
		var want int64
		for mask := range 1 << len(v) {
			s := 0.0
			for i, x := range v {
				if mask>>i&1 == 1 {
					x = -x
				}
				s += x
			}
			if atLeastAsExtreme(s, total, tieSlack*abs) {
				want++
			}
		}
		if got := exactSignFlip(v, total, tieSlack*abs); got.Extreme != want || got.Total != 1<<len(v) {
			t.Fatalf("%v: %+v, want %d extreme", v, got, want)
		}
	})
}
