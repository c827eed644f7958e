package stats

import (
	"math"
	"testing"
)

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

// TestPairedTTable checks the t-test against textbook table values: for
// each row, differences with mean t·se and standard deviation 1 give the
// statistic t, and the interval half-width is the tabled quantile times se.
func TestPairedTTable(t *testing.T) {
	tests := []struct {
		n     int
		t     float64
		p     float64 // two-sided
		level float64
		q     float64 // t quantile at (1+level)/2 with n-1 df
	}{
		{n: 11, t: 2, p: 0.073388, level: 0.95, q: 2.228139},
		{n: 11, t: 2.228139, p: 0.05, level: 0.95, q: 2.228139},
		{n: 6, t: 4.032143, p: 0.01, level: 0.99, q: 4.032143},
		{n: 2, t: 6.313752, p: 0.1, level: 0.90, q: 6.313752},
		{n: 31, t: -2.042272, p: 0.05, level: 0.95, q: 2.042272},
		{n: 21, t: 0, p: 1, level: 0.95, q: 2.085963},
	}
	for _, tt := range tests {
		se := 1 / math.Sqrt(float64(tt.n))
		got := pairedT(tt.n, tt.t*se, 1, tt.level)
		if !near(got.T, tt.t, 1e-9) || got.DF != float64(tt.n-1) || !near(got.P, tt.p, 5e-7) {
			t.Errorf("n=%d t=%v: got t=%v df=%v p=%.7f, want p=%v", tt.n, tt.t, got.T, got.DF, got.P, tt.p)
		}
		if half := (got.Hi - got.Lo) / 2; !near(half/se, tt.q, 5e-6) {
			t.Errorf("n=%d level=%v: quantile %.7f, want %v", tt.n, tt.level, half/se, tt.q)
		}
	}
}

// sleep is Student's sleep data (Cushny and Peebles): extra hours of sleep
// of ten patients under two drugs.
var sleep = struct{ drug1, drug2 []float64 }{
	drug1: []float64{0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0},
	drug2: []float64{1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4},
}

// TestCompareSleep is the worked example of the paired t-test on the sleep
// data (drug 1 minus drug 2): t = -4.0621, df = 9, p = 0.002833, 95%
// interval [-2.4598858, -0.7001142]. The ten differences are all negative
// but one zero, so exactly 4 of the 1024 sign vectors are as extreme.
func TestCompareSleep(t *testing.T) {
	r, err := Compare(sleep.drug2, sleep.drug1, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	tt := r.TTest
	if !near(r.MeanDiff, -1.58, 1e-12) || !near(tt.T, -4.062128, 1e-6) || tt.DF != 9 || !near(tt.P, 0.002833, 5e-7) {
		t.Errorf("mean %v t %v df %v p %v", r.MeanDiff, tt.T, tt.DF, tt.P)
	}
	if !near(tt.Lo, -2.4598858, 1e-7) || !near(tt.Hi, -0.7001142, 1e-7) {
		t.Errorf("t interval [%v, %v]", tt.Lo, tt.Hi)
	}
	if r.Wins != 0 || r.Ties != 1 || r.Losses != 9 || !near(r.BaseMean, 2.33, 1e-12) || !near(r.CandMean, 0.75, 1e-12) {
		t.Errorf("wins/ties/losses %d/%d/%d means %v %v", r.Wins, r.Ties, r.Losses, r.BaseMean, r.CandMean)
	}
	if !near(r.EffectSize, -1.58/1.2299955, 1e-6) {
		t.Errorf("effect size %v", r.EffectSize)
	}
	want := SignFlip{P: 4.0 / 1024, Exact: true, Extreme: 4, Total: 1024}
	if r.SignFlip != want {
		t.Errorf("sign flip %+v, want %+v", r.SignFlip, want)
	}
	if b := r.Bootstrap; !(b.Lo < r.MeanDiff && r.MeanDiff < b.Hi && b.Hi < 0) {
		t.Errorf("bootstrap interval [%v, %v] around %v", b.Lo, b.Hi, r.MeanDiff)
	}
}
