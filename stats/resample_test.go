package stats

import (
	"testing"
)

// TestSeedPinned pins the results of one seed. They depend on nothing but
// the seed, the stream derivation and the sampling code, so a change here
// means every saved comparison would come out differently: it must be
// deliberate.
func TestSeedPinned(t *testing.T) {
	o := Options{Seed: 2024, Resamples: 1000, Randomizations: 1000, ExactMax: -1}
	r, err := Compare(sleep.drug2, sleep.drug1, o)
	if err != nil {
		t.Fatal(err)
	}
	if !near(r.Bootstrap.Lo, -2.34025, 1e-12) || !near(r.Bootstrap.Hi, -0.97, 1e-12) || r.SignFlip.Extreme != 2 {
		t.Errorf("seed 2024: bootstrap [%.17g, %.17g], sign flip %+v", r.Bootstrap.Lo, r.Bootstrap.Hi, r.SignFlip)
	}
}

// TestDrawCounts checks that drawCounts makes exactly n draws and that
// they are uniform: a chi-square statistic over 7 queries and 70,000 draws
// stays below the 0.999 quantile of chi-square with 6 degrees of freedom,
// 22.458, for each of several streams.
func TestDrawCounts(t *testing.T) {
	for j := range 5 {
		counts := make([]int32, 7)
		s := newStream(1, kindBootstrap, j)
		total := 0
		for range 10000 {
			drawCounts(s, counts)
		}
		chi2 := 0.0
		for _, k := range counts {
			total += int(k)
			chi2 += (float64(k) - 10000) * (float64(k) - 10000) / 10000
		}
		if total != 70000 || chi2 > 22.458 {
			t.Errorf("stream %d: counts %v, chi-square %.2f", j, counts, chi2)
		}
	}
}

// TestTally checks the rejection region of Lemire's method for 3 queries:
// 2^32 mod 3 = 1, so only h = 0 is rejected, and the largest h selects the
// last query.
func TestTally(t *testing.T) {
	counts := make([]int32, 3)
	const floor = 1
	tests := []struct {
		h     uint32
		took  int
		query int
	}{{0, 0, -1}, {1, 1, 0}, {1 << 31, 1, 1}, {1<<32 - 1, 1, 2}}
	for _, tt := range tests {
		clear(counts)
		if got := tally(counts, tt.h, floor); got != tt.took || (tt.query >= 0 && counts[tt.query] != 1) {
			t.Errorf("tally(%d) = %d, counts %v", tt.h, got, counts)
		}
	}
}
