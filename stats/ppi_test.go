package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// z975 is the standard normal quantile at 0.975; t975 holds Student's
// quantiles at 0.975 by degrees of freedom (tabled values).
const z975 = 1.959963984540054

var t975 = map[int]float64{2: 4.302652729749464}

// TestPPIHandWorked checks PPI against estimates worked by hand. The PPI
// variance is (1 − n/N)·(n − 1)/n·SS, SS the squared deviations of the
// leave-one-out estimates; the human-only one (1 − n/N)·s²(Human)/n. Both
// intervals take t with n − 1 = 2 degrees of freedom.
func TestPPIHandWorked(t *testing.T) {
	tests := []struct {
		name          string
		in            PPIInput
		mean, lambda  float64
		v, humanV     float64 // variances
		humanMean, mf float64
	}{
		{
			// cov = 0.14, var = 0.08: λ = 1.75 clipped to 1; mean = 2/3 +
			// (0.5 − 0.4). Left out in turn, λ is 1.5, 1.75, 1 → 1 and the
			// estimates 0.85, 0.75, 0.7: SS = 7/600. Human SS = 37/150;
			// fpc = 1/2.
			name:   "clipped at 1",
			in:     PPIInput{Filled: []float64{0.2, 0.4, 0.6, 0.8, 1.0, 0}, Human: []float64{0.3, 0.7, 1.0}, FilledAudited: []float64{0.2, 0.4, 0.6}},
			mean:   2.0/3 + 0.1,
			lambda: 1, v: 0.5 * 2.0 / 3 * 7 / 600, humanV: 0.5 * 37 / 150 / 2 / 3, humanMean: 2.0 / 3, mf: 0.5,
		},
		{
			// cov = 1, var = 2: λ = 1/2; mean = 4/3 + (1.5 − 1)/2. Left out
			// in turn, λ is 1, 1/2, 0 and the estimates 1.5 + (1.5 − 1.5),
			// 1.5 + (1.5 − 1)/2, 1: SS = 7/24. Human SS = 2/3.
			name:   "interior lambda",
			in:     PPIInput{Filled: []float64{0, 1, 2, 2, 2, 2}, Human: []float64{1, 1, 2}, FilledAudited: []float64{0, 1, 2}},
			mean:   4.0/3 + 0.25,
			lambda: 0.5, v: 0.5 * 2.0 / 3 * 7 / 24, humanV: 0.5 * (2.0 / 3) / 2 / 3, humanMean: 4.0 / 3, mf: 1.5,
		},
		{
			// cov = −2 < 0: λ = 0, also left out in turn (estimates 0.5, 1,
			// 1.5, SS = 1/2): PPI is the human-only interval.
			name:   "negative covariance",
			in:     PPIInput{Filled: []float64{0, 1, 2, 5, 5, 5}, Human: []float64{2, 1, 0}, FilledAudited: []float64{0, 1, 2}},
			mean:   1,
			lambda: 0, v: 0.5 * 2.0 / 3 * 0.5, humanV: 0.5 * 2 / 2 / 3, humanMean: 1, mf: 3,
		},
		{
			// FilledAudited constant: λ = 0 throughout, PPI is the
			// human-only interval (Human SS = 2/3).
			name:   "constant filled audit",
			in:     PPIInput{Filled: []float64{1, 1, 1, 0, 0, 0}, Human: []float64{0, 1, 1}, FilledAudited: []float64{1, 1, 1}},
			mean:   2.0 / 3,
			lambda: 0, v: 0.5 * (2.0 / 3) / 2 / 3, humanV: 0.5 * (2.0 / 3) / 2 / 3, humanMean: 2.0 / 3, mf: 0.5,
		},
		{
			// Every query audited: cov = 1/3, var = 2/3, λ = 1/2, and the
			// mean is exact.
			name:   "census",
			in:     PPIInput{Filled: []float64{0, 1, 1}, Human: []float64{0, 1, 0}, FilledAudited: []float64{0, 1, 1}},
			mean:   1.0 / 3,
			lambda: 0.5, v: 0, humanV: 0, humanMean: 1.0 / 3, mf: 2.0 / 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PPI(tt.in, 0.95)
			if err != nil {
				t.Fatal(err)
			}
			if !near(got.Mean, tt.mean, 1e-12) || !near(got.Lambda, tt.lambda, 1e-12) {
				t.Errorf("mean %v λ %v, want %v %v", got.Mean, got.Lambda, tt.mean, tt.lambda)
			}
			half := t975[2] * math.Sqrt(tt.v)
			if !near(got.Lo, tt.mean-half, 1e-9) || !near(got.Hi, tt.mean+half, 1e-9) {
				t.Errorf("interval [%v, %v], want mean ± %v", got.Lo, got.Hi, half)
			}
			half = t975[2] * math.Sqrt(tt.humanV)
			if !near(got.HumanMean, tt.humanMean, 1e-12) || !near(got.HumanLo, tt.humanMean-half, 1e-9) || !near(got.HumanHi, tt.humanMean+half, 1e-9) {
				t.Errorf("human %v [%v, %v], want %v ± %v", got.HumanMean, got.HumanLo, got.HumanHi, tt.humanMean, half)
			}
			if !near(got.FilledMean, tt.mf, 1e-12) || got.N != len(tt.in.Filled) || got.Audited != len(tt.in.Human) || got.Level != 0.95 {
				t.Errorf("filled mean %v N %d audited %d level %v", got.FilledMean, got.N, got.Audited, got.Level)
			}
		})
	}
}

// TestPPIJackknife checks the leave-one-out sums against PPI run on each
// audit with one query left out: the interval's half-width is t·SE with
// SE² = (1 − n/N)·(n − 1)/n·Σ(θ̂_(i) − θ̂_(·))².
func TestPPIJackknife(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		n, N := 3+r.IntN(10), 15+r.IntN(20)
		in := PPIInput{Filled: make([]float64, N)}
		for i := range in.Filled {
			in.Filled[i] = r.Float64()
		}
		for i := range n {
			in.FilledAudited = append(in.FilledAudited, in.Filled[i])
			in.Human = append(in.Human, in.Filled[i]*r.Float64()*2+0.2*r.NormFloat64())
		}
		got, err := PPI(in, 0.9)
		if err != nil {
			t.Fatal(err)
		}
		loo := make([]float64, n)
		for i := range n {
			rest := PPIInput{Filled: in.Filled,
				Human:         slices.Delete(slices.Clone(in.Human), i, i+1),
				FilledAudited: slices.Delete(slices.Clone(in.FilledAudited), i, i+1)}
			e, err := PPI(rest, 0.9)
			if err != nil {
				t.Fatal(err)
			}
			loo[i] = e.Mean
		}
		tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.95)
		want := tq * math.Sqrt((1-float64(n)/float64(N))*float64(n-1)/float64(n)*squaredDeviations(loo, mean(loo)))
		if half := (got.Hi - got.Lo) / 2; !near(half, want, 1e-12) {
			t.Errorf("trial %d (n %d, N %d): half-width %v, leave-one-out gives %v", trial, n, N, half, want)
		}
	}
}

func TestPPIErrors(t *testing.T) {
	ok := PPIInput{Filled: []float64{1, 2, 3}, Human: []float64{1, 2, 3}, FilledAudited: []float64{1, 2, 3}}
	tests := []struct {
		name  string
		in    PPIInput
		level float64
		want  string
	}{
		{"level 0", ok, 0, "level 0"},
		{"level 1", ok, 1, "level 1"},
		{"level NaN", ok, math.NaN(), "level NaN"},
		{"misaligned", PPIInput{Filled: []float64{1, 2, 3}, Human: []float64{1, 2, 3}, FilledAudited: []float64{1}}, 0.95, "PPIInput.FilledAudited 1"},
		{"one audited", PPIInput{Filled: []float64{1, 2, 3}, Human: []float64{1}, FilledAudited: []float64{1}}, 0.95, "PPIInput.Human has 1 audited"},
		{"audit larger", PPIInput{Filled: []float64{1, 2}, Human: []float64{1, 2, 3}, FilledAudited: []float64{1, 2, 3}}, 0.95, "PPIInput.Filled only 2"},
		{"NaN filled", PPIInput{Filled: []float64{1, math.NaN(), 3}, Human: []float64{1, 2, 3}, FilledAudited: []float64{1, 2, 3}}, 0.95, "PPIInput.Filled[1] is NaN"},
		{"Inf human", PPIInput{Filled: []float64{1, 2, 3}, Human: []float64{1, math.Inf(-1), 3}, FilledAudited: []float64{1, 2, 3}}, 0.95, "PPIInput.Human[1] is -Inf"},
		{"overflow", PPIInput{Filled: []float64{1e308, -1e308, 1}, Human: []float64{1e308, -1e308, 1}, FilledAudited: []float64{1, 2, 3}}, 0.95, "too large"},
		{"Inf audited", PPIInput{Filled: []float64{1, 2, 3}, Human: []float64{1, 2, 3}, FilledAudited: []float64{math.Inf(1), 2, 3}}, 0.95, "PPIInput.FilledAudited[0] is +Inf"},
	}
	for _, tt := range tests {
		if _, err := PPI(tt.in, tt.level); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestWeightedKappa(t *testing.T) {
	repeat := func(parts ...[2]int) []int {
		var v []int
		for _, p := range parts {
			for range p[1] {
				v = append(v, p[0])
			}
		}
		return v
	}
	tests := []struct {
		name      string
		a, b      []int
		grades    int
		kappa     float64
		confusion [][]int
	}{
		{
			// Observed Σw·O = (1 + 1)/4, expected Σw·E = 1.375 (unscaled
			// weights): κ = 1 − 0.5/1.375 = 7/11.
			name: "hand-worked", a: []int{0, 1, 2, 2}, b: []int{0, 2, 2, 1}, grades: 3,
			kappa: 7.0 / 11, confusion: [][]int{{1, 0, 0}, {0, 0, 1}, {0, 1, 1}},
		},
		{
			// scikit-learn's weighting example (test_cohen_kappa):
			// quadratic κ = 0.9541.
			name:   "published",
			a:      repeat([2]int{0, 46}, [2]int{1, 44}, [2]int{2, 10}),
			b:      repeat([2]int{0, 50}, [2]int{1, 40}, [2]int{2, 10}),
			grades: 3, kappa: 1 - 0.01/0.218,
			confusion: [][]int{{46, 0, 0}, {4, 40, 0}, {0, 0, 10}},
		},
		{
			name: "perfect", a: []int{0, 3, 1}, b: []int{0, 3, 1}, grades: 4, kappa: 1,
			confusion: [][]int{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 0, 0}, {0, 0, 0, 1}},
		},
		{
			// Complete reversal on two grades: O = 1, E = 1/2: κ = −1.
			name: "reversed", a: []int{0, 1}, b: []int{1, 0}, grades: 2, kappa: -1,
			confusion: [][]int{{0, 1}, {1, 0}},
		},
	}
	for _, tt := range tests {
		k, c, err := WeightedKappa(tt.a, tt.b, tt.grades)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !near(k, tt.kappa, 1e-12) || !reflect.DeepEqual(c, tt.confusion) {
			t.Errorf("%s: κ %v confusion %v, want %v %v", tt.name, k, c, tt.kappa, tt.confusion)
		}
	}
	if k := 1 - 0.01/0.218; !near(k, 0.9541, 5e-5) {
		t.Errorf("published κ %v, want 0.9541", k)
	}
}

func TestWeightedKappaErrors(t *testing.T) {
	tests := []struct {
		name   string
		a, b   []int
		grades int
		want   string
	}{
		{"lengths", []int{0}, []int{0, 1}, 2, "1 grades from the first rater and 2"},
		{"empty", nil, nil, 2, "no items"},
		{"one grade", []int{0}, []int{0}, 1, "grades 1"},
		{"huge scale", []int{0}, []int{0}, 1 << 20, "outside [2, 1024]"},
		{"off scale", []int{0, 4}, []int{0, 1}, 4, "item 1 has grades 4 and 1"},
		{"negative", []int{0, 1}, []int{-1, 1}, 4, "item 0 has grades 0 and -1"},
	}
	for _, tt := range tests {
		if _, _, err := WeightedKappa(tt.a, tt.b, tt.grades); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
	_, c, err := WeightedKappa([]int{2, 2}, []int{2, 2}, 3)
	if !errors.Is(err, ErrNoExpectedDisagreement) || c[2][2] != 2 {
		t.Errorf("constant raters: error %v confusion %v", err, c)
	}
}

func TestKendallTau(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		want float64
	}{
		{"concordant", []float64{1, 2, 3}, []float64{10, 20, 30}, 1},
		{"discordant", []float64{1, 2, 3}, []float64{3, 2, 1}, -1},
		// C = 2, D = 1 of 3 pairs.
		{"one swap", []float64{1, 2, 3}, []float64{1, 3, 2}, 1.0 / 3},
		// One pair tied in x: 2 / √(2·3).
		{"tie in x", []float64{1, 1, 2}, []float64{1, 2, 3}, 2 / math.Sqrt(6)},
		// SciPy's kendalltau example: C = 2, D = 6, Tx = 2, Ty = 1 of 10.
		{"scipy", []float64{12, 2, 1, 12, 2}, []float64{1, 4, 7, 1, 0}, -0.47140452079103173},
	}
	for _, tt := range tests {
		got, err := KendallTau(tt.x, tt.y)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !near(got, tt.want, 1e-12) {
			t.Errorf("%s: τ_b %v, want %v", tt.name, got, tt.want)
		}
	}
	errs := []struct {
		name string
		x, y []float64
		want string
	}{
		{"lengths", []float64{1, 2}, []float64{1}, "x has 2 values and y 1"},
		{"one", []float64{1}, []float64{1}, "1 values"},
		{"NaN", []float64{1, math.NaN()}, []float64{1, 2}, "value 1 is NaN"},
		{"all tied", []float64{1, 1, 1}, []float64{1, 2, 3}, "every value"},
	}
	for _, tt := range errs {
		if _, err := KendallTau(tt.x, tt.y); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}
