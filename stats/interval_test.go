package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// coverage simulates sets data sets of n queries whose true mean
// difference is 0.05, with per-query noise from noise, and returns the share
// of bootstrap intervals that contain 0.05. Base values vary far more than
// the differences, so an interval that ignored the pairing would be much
// too wide.
func coverage(t *testing.T, n, sets int, method IntervalMethod, noise func(*rand.Rand) float64) float64 {
	t.Helper()
	const delta = 0.05
	rng := rand.New(rand.NewPCG(11, 12))
	covered := 0
	for s := range sets {
		base, cand := make([]float64, n), make([]float64, n)
		for i := range base {
			base[i] = rng.Float64()
			cand[i] = base[i] + delta + noise(rng)
		}
		o := Options{Seed: uint64(s), Resamples: 1000, Randomizations: 1, ExactMax: -1, Interval: method}
		r, err := Compare(base, cand, o)
		if err != nil {
			t.Fatal(err)
		}
		if r.Bootstrap.Lo <= delta && delta <= r.Bootstrap.Hi {
			covered++
		}
	}
	return float64(covered) / float64(sets)
}

func normalNoise(rng *rand.Rand) float64 { return 0.1 * rng.NormFloat64() }

// skewedNoise is lognormal noise shifted to mean zero.
func skewedNoise(rng *rand.Rand) float64 {
	return 0.1 * (math.Exp(rng.NormFloat64()) - math.Exp(0.5))
}

// TestBootstrapCoverage checks that 95% intervals cover a known mean
// difference about 95% of the time. With 40 normal differences both methods
// cover about 94% (the bootstrap's variance divides by n, not n-1; this seed
// gives 92.8%), and 1000 data sets give a standard error of 0.8 points. A
// 90% interval, or one that ignored the pairing, falls outside.
func TestBootstrapCoverage(t *testing.T) {
	for _, m := range []IntervalMethod{Percentile, BCa} {
		if got := coverage(t, 40, 1000, m, normalNoise); got < 0.91 || got > 0.965 {
			t.Errorf("%s: coverage %.3f, want about 0.94", m, got)
		}
	}
}

// TestBCaSkewed checks that on skewed differences, where the percentile
// interval undercovers, BCa covers more often over the same data sets and
// resamples; a wrong sign of the bias or the acceleration covers less.
func TestBCaSkewed(t *testing.T) {
	pct := coverage(t, 30, 1000, Percentile, skewedNoise)
	bca := coverage(t, 30, 1000, BCa, skewedNoise)
	if bca < pct+0.005 || pct < 0.83 || bca > 0.95 {
		t.Errorf("skewed coverage: percentile %.3f, BCa %.3f", pct, bca)
	}
}

// TestAcceleration checks the closed form of the acceleration of a mean
// against the jackknife definition, Σu³ / (6 (Σu²)^1.5) with u_i the mean of
// the leave-one-out means minus the i-th of them.
func TestAcceleration(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	d := make([]float64, 25)
	for i := range d {
		d[i] = math.Exp(rng.NormFloat64())
	}
	loo := make([]float64, len(d))
	for i := range d {
		loo[i] = (mean(d)*float64(len(d)) - d[i]) / float64(len(d)-1)
	}
	var sq, cube float64
	for _, x := range loo {
		u := mean(loo) - x
		sq += u * u
		cube += u * u * u
	}
	want := cube / (6 * math.Pow(sq, 1.5))
	if got := acceleration(d); !near(got, want, 1e-12) || got <= 0 {
		t.Errorf("acceleration %v, want %v (positive for right skew)", got, want)
	}
	if got := acceleration([]float64{2, 2, 2}); got != 0 {
		t.Errorf("acceleration of constant data %v, want 0", got)
	}
	// The acceleration does not depend on scale, even where squares and
	// cubes of the deviations would underflow or overflow.
	for _, scale := range []float64{1e-108, 1e-300, 1e300} {
		scaled := make([]float64, len(d))
		for i, x := range d {
			scaled[i] = x * scale
		}
		if got := acceleration(scaled); !near(got, want, 1e-9) {
			t.Errorf("acceleration at scale %g: %v, want %v", scale, got, want)
		}
	}
}

// TestBCaLevel checks the level mapping against values computed by hand.
func TestBCaLevel(t *testing.T) {
	tests := []struct{ p, z0, a, want float64 }{
		{0.025, 0, 0, 0.025},
		{0.975, 0, 0, 0.975},
		{0.025, 0.1, 0.05, 0.0546101},
		{0.975, 0.1, 0.05, 0.9917237},
		{0.975, 0, 0.9, 1}, // 1 - a(z0+z) <= 0: the limit
	}
	for _, tt := range tests {
		if got := bcaLevel(tt.p, tt.z0, tt.a); !near(got, tt.want, 1e-7) {
			t.Errorf("bcaLevel(%v, %v, %v) = %v, want %v", tt.p, tt.z0, tt.a, got, tt.want)
		}
	}
}

// TestBias checks the bias correction, ties counting half.
func TestBias(t *testing.T) {
	tests := []struct {
		sorted   []float64
		observed float64
		want     float64
	}{
		{[]float64{1, 2, 3, 4}, 2, -0.3186394}, // Φ⁻¹(1.5/4)
		{[]float64{1, 2, 3, 4}, 2.5, 0},
		{[]float64{5, 5, 5, 5}, 5, 0},
		{[]float64{1, 2, 3, 4}, 9, 1.1503494}, // share capped at 1 - 0.5/4
	}
	for _, tt := range tests {
		if got := bias(tt.sorted, tt.observed); !near(got, tt.want, 1e-7) {
			t.Errorf("bias(%v, %v) = %v, want %v", tt.sorted, tt.observed, got, tt.want)
		}
	}
}

// TestQuantile checks linear interpolation between order statistics.
func TestQuantile(t *testing.T) {
	s := []float64{1, 2, 3, 4}
	for p, want := range map[float64]float64{0: 1, 0.25: 1.75, 0.5: 2.5, 1: 4} {
		if got := quantile(s, p); !near(got, want, 1e-12) {
			t.Errorf("quantile(%v) = %v, want %v", p, got, want)
		}
	}
}
