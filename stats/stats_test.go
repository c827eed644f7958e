package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"

	"pgregory.net/rapid"
)

// floats lists every float64 a Difference reports.
func floats(r Difference) []float64 {
	f := []float64{r.BaseMean, r.CandMean, r.MeanDiff, r.SD, r.EffectSize,
		r.Bootstrap.Lo, r.Bootstrap.Hi, r.SignFlip.P}
	if r.TTest != nil {
		f = append(f, r.TTest.T, r.TTest.DF, r.TTest.P, r.TTest.Lo, r.TTest.Hi)
	}
	return f
}

func noNaN(t *testing.T, name string, r Difference) {
	t.Helper()
	for _, x := range floats(r) {
		if math.IsNaN(x) {
			t.Errorf("%s: NaN in %+v", name, r)
			return
		}
	}
}

// TestDegenerate checks the documented results for inputs with nothing or
// no variation to measure.
func TestDegenerate(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name       string
		base, cand []float64
		want       Difference // fields compared: see below
		tTest      *TTest
	}{{
		name: "one query",
		base: []float64{0.2}, cand: []float64{0.5},
		want: Difference{N: 1, MeanDiff: 0.3, Wins: 1, EffectSize: inf,
			Bootstrap: Interval{Lo: 0.3, Hi: 0.3}, SignFlip: SignFlip{P: 1, Exact: true, Extreme: 2, Total: 2}},
	}, {
		name: "all ties",
		base: []float64{0.1, 0.7, 0.3}, cand: []float64{0.1, 0.7, 0.3},
		want:  Difference{N: 3, Ties: 3, SignFlip: SignFlip{P: 1, Exact: true, Extreme: 8, Total: 8}},
		tTest: &TTest{T: 0, DF: 2, P: 1, Lo: 0, Hi: 0},
	}, {
		name: "every query moves by the same amount",
		base: []float64{1, 2, 3, 4}, cand: []float64{0.5, 1.5, 2.5, 3.5},
		want: Difference{N: 4, MeanDiff: -0.5, Losses: 4, EffectSize: -inf,
			Bootstrap: Interval{Lo: -0.5, Hi: -0.5}, SignFlip: SignFlip{P: 2.0 / 16, Exact: true, Extreme: 2, Total: 16}},
		tTest: &TTest{T: -inf, DF: 3, P: 0, Lo: -0.5, Hi: -0.5},
	}}
	for _, tt := range tests {
		r, err := Compare(tt.base, tt.cand, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		noNaN(t, tt.name, r)
		w := tt.want
		if r.N != w.N || !near(r.MeanDiff, w.MeanDiff, 1e-15) || r.SD != 0 || r.EffectSize != w.EffectSize ||
			r.Wins != w.Wins || r.Ties != w.Ties || r.Losses != w.Losses || r.SignFlip != w.SignFlip ||
			!near(r.Bootstrap.Lo, w.Bootstrap.Lo, 1e-15) || !near(r.Bootstrap.Hi, w.Bootstrap.Hi, 1e-15) {
			t.Errorf("%s: got %+v, want %+v", tt.name, r, w)
		}
		if tt.tTest != nil {
			tt.tTest.Level = 0.95
		}
		if !reflect.DeepEqual(r.TTest, tt.tTest) {
			t.Errorf("%s: t-test %+v, want %+v", tt.name, r.TTest, tt.tTest)
		}
	}
}

// TestSampledAllTies checks that when every difference is zero the sampled
// test, like enumeration, finds every sign vector as extreme.
func TestSampledAllTies(t *testing.T) {
	v := make([]float64, 50)
	r, err := Compare(v, v, Options{Randomizations: 99})
	if err != nil {
		t.Fatal(err)
	}
	want := SignFlip{P: 1, Extreme: 99, Total: 99}
	if r.SignFlip != want || r.EffectSize != 0 || r.TTest.P != 1 {
		t.Errorf("all ties: %+v", r)
	}
}

// TestInvalid checks that bad inputs and options are errors.
func TestInvalid(t *testing.T) {
	ok := []float64{1, 2, 3}
	tests := []struct {
		name       string
		base, cand []float64
		opts       Options
	}{
		{"no queries", nil, nil, Options{}},
		{"lengths differ", ok, []float64{1, 2}, Options{}},
		{"NaN", ok, []float64{1, math.NaN(), 3}, Options{}},
		{"infinity", []float64{math.Inf(-1), 2, 3}, ok, Options{}},
		{"level 1", ok, ok, Options{Level: 1}},
		{"negative level", ok, ok, Options{Level: -0.9}},
		{"negative resamples", ok, ok, Options{Resamples: -1}},
		{"negative randomizations", ok, ok, Options{Randomizations: -5}},
		{"exact too large", ok, ok, Options{ExactMax: MaxExact + 1}},
		{"unknown interval", ok, ok, Options{Interval: "bootstrap-t"}},
	}
	for _, tt := range tests {
		if _, err := Compare(tt.base, tt.cand, tt.opts); err == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
	if _, err := Compare(nil, nil, Options{}); !errors.Is(err, ErrNoQueries) {
		t.Errorf("no queries: %v, want ErrNoQueries", err)
	}
	if r, err := CompareAll(nil, Options{}); r != nil || err != nil {
		t.Errorf("no pairs: %v, %v", r, err)
	}
}

// randomPairs returns w pairs over n queries.
func randomPairs(seed uint64, n, w int) []Pair {
	rng := rand.New(rand.NewPCG(seed, 0))
	pairs := make([]Pair, w)
	for c := range pairs {
		pairs[c] = Pair{Base: make([]float64, n), Cand: make([]float64, n)}
		for i := range n {
			pairs[c].Base[i] = rng.Float64()
			pairs[c].Cand[i] = rng.Float64() + 0.02*float64(c%3)
		}
	}
	return pairs
}

// TestReproducible checks that a seed fixes the results whatever
// GOMAXPROCS is, that another seed changes them, and that every comparison
// of a batch equals the same comparison made alone: the resamples depend
// only on the seed and the number of queries.
func TestReproducible(t *testing.T) {
	pairs := randomPairs(1, 300, 11) // 11 columns: one block of 8 and a tail
	o := Options{Seed: 42, Resamples: 2000, Randomizations: 3000, Interval: BCa}
	all, err := CompareAll(pairs, o)
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one, err := CompareAll(pairs, o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(all, one) {
		t.Errorf("GOMAXPROCS changed the results")
	}
	for c, p := range pairs {
		alone, err := Compare(p.Base, p.Cand, o)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(alone, all[c]) {
			t.Errorf("pair %d alone: %+v, in the batch: %+v", c, alone, all[c])
		}
	}
	o.Seed++
	other, err := CompareAll(pairs, o)
	if err != nil {
		t.Fatal(err)
	}
	if other[0].Bootstrap == all[0].Bootstrap || other[0].SignFlip == all[0].SignFlip {
		t.Errorf("seeds 42 and 43 gave the same resamples")
	}
}

// TestSubset checks that a subset keeps the chosen queries in the chosen
// order for every pair.
func TestSubset(t *testing.T) {
	pairs := []Pair{
		{Base: []float64{1, 2, 3, 4}, Cand: []float64{5, 6, 7, 8}},
		{Base: []float64{9, 10, 11, 12}, Cand: []float64{13, 14, 15, 16}},
	}
	got := Subset(pairs, []int{3, 1})
	want := []Pair{
		{Base: []float64{4, 2}, Cand: []float64{8, 6}},
		{Base: []float64{12, 10}, Cand: []float64{16, 14}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Subset = %v, want %v", got, want)
	}
}

// TestProperties checks, on random inputs, relations that hold for every
// comparison.
func TestProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 60).Draw(t, "n")
		grid := rapid.Float64Range(-1, 1)
		base := rapid.SliceOfN(grid, n, n).Draw(t, "base")
		cand := rapid.SliceOfN(grid, n, n).Draw(t, "cand")
		o := Options{Seed: rapid.Uint64().Draw(t, "seed"), Resamples: 200, Randomizations: 200,
			Interval: rapid.SampledFrom([]IntervalMethod{Percentile, BCa}).Draw(t, "method")}
		r, err := Compare(base, cand, o)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range base {
			lo, hi = math.Min(lo, cand[i]-base[i]), math.Max(hi, cand[i]-base[i])
		}
		slack := 1e-12
		switch {
		case r.Wins+r.Ties+r.Losses != n:
			t.Fatalf("wins+ties+losses = %d, n = %d", r.Wins+r.Ties+r.Losses, n)
		case r.Bootstrap.Lo > r.Bootstrap.Hi || r.Bootstrap.Lo < lo-slack || r.Bootstrap.Hi > hi+slack:
			t.Fatalf("interval [%v, %v] outside the differences [%v, %v]", r.Bootstrap.Lo, r.Bootstrap.Hi, lo, hi)
		case !(r.SignFlip.P > 0 && r.SignFlip.P <= 1):
			t.Fatalf("sign-flip p %v", r.SignFlip.P)
		case r.TTest != nil && !(r.TTest.P >= 0 && r.TTest.P <= 1 && r.TTest.Lo <= r.MeanDiff && r.MeanDiff <= r.TTest.Hi):
			t.Fatalf("t-test %+v", *r.TTest)
		case math.Signbit(r.EffectSize) != math.Signbit(r.MeanDiff) && r.MeanDiff != 0:
			t.Fatalf("effect size %v, mean difference %v", r.EffectSize, r.MeanDiff)
		}
		for _, x := range floats(r) {
			if math.IsNaN(x) {
				t.Fatalf("NaN in %+v", r)
			}
		}
	})
}

// TestConstantDifference checks that when every query moves by the same
// amount, both intervals collapse onto it.
func TestConstantDifference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(2, 50).Draw(t, "n")
		// Multiples of 1/64 keep every difference exact.
		step := rapid.IntRange(-64, 64).Draw(t, "step")
		base := make([]float64, n)
		cand := make([]float64, n)
		for i := range base {
			base[i] = float64(rapid.IntRange(0, 64).Draw(t, "base")) / 64
			cand[i] = base[i] + float64(step)/64
		}
		r, err := Compare(base, cand, Options{Resamples: 100, Randomizations: 100})
		if err != nil {
			t.Fatal(err)
		}
		d := float64(step) / 64
		if r.MeanDiff != d || r.Bootstrap.Lo != d || r.Bootstrap.Hi != d || r.TTest.Lo != d || r.TTest.Hi != d {
			t.Fatalf("difference %v: mean %v, bootstrap [%v, %v], t [%v, %v]", d, r.MeanDiff,
				r.Bootstrap.Lo, r.Bootstrap.Hi, r.TTest.Lo, r.TTest.Hi)
		}
	})
}
