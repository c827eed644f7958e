package stats

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// z975 is the standard normal quantile at 0.975.
const z975 = 1.959963984540054

// TestPPIHandWorked checks PPI against estimates worked by hand.
func TestPPIHandWorked(t *testing.T) {
	tests := []struct {
		name          string
		in            PPIInput
		mean, lambda  float64
		se, humanSE   float64
		humanMean, mf float64
	}{
		{
			// cov = 0.04, var = 0.02: λ = 2 clipped to 1; d = [0.1, 0.3],
			// s² = 0.02, fpc = 1/2: var = 0.005. Human s² = 0.08: var = 0.02.
			name:   "clipped at 1",
			in:     PPIInput{Filled: []float64{0.2, 0.4, 0.6, 0.8}, Human: []float64{0.3, 0.7}, FilledAudited: []float64{0.2, 0.4}},
			mean:   0.7,
			lambda: 1, se: math.Sqrt(0.005), humanSE: math.Sqrt(0.02), humanMean: 0.5, mf: 0.5,
		},
		{
			// cov = 1, var = 2: λ = 1/2; mean = 4/3 + (1.5 − 1)/2; d = [1,
			// 0.5, 1], s² = 1/12, fpc = 1/2: var = 1/72. Human s² = 1/3:
			// var = 1/18.
			name:   "interior lambda",
			in:     PPIInput{Filled: []float64{0, 1, 2, 2, 2, 2}, Human: []float64{1, 1, 2}, FilledAudited: []float64{0, 1, 2}},
			mean:   4.0/3 + 0.25,
			lambda: 0.5, se: math.Sqrt(1.0 / 72), humanSE: math.Sqrt(1.0 / 18), humanMean: 4.0 / 3, mf: 1.5,
		},
		{
			// cov < 0: λ = 0, the human-only estimate.
			name:   "negative covariance",
			in:     PPIInput{Filled: []float64{0, 1, 5, 5}, Human: []float64{1, 0}, FilledAudited: []float64{0, 1}},
			mean:   0.5,
			lambda: 0, se: math.Sqrt(0.5 * 0.5 / 2), humanSE: math.Sqrt(0.5 * 0.5 / 2), humanMean: 0.5, mf: 2.75,
		},
		{
			// FilledAudited constant: λ = 0.
			name:   "constant filled audit",
			in:     PPIInput{Filled: []float64{1, 1, 0, 0}, Human: []float64{0, 1}, FilledAudited: []float64{1, 1}},
			mean:   0.5,
			lambda: 0, se: math.Sqrt(0.5 * 0.5 / 2), humanSE: math.Sqrt(0.5 * 0.5 / 2), humanMean: 0.5, mf: 0.5,
		},
		{
			// Every query audited: the mean is exact.
			name:   "census",
			in:     PPIInput{Filled: []float64{0, 1, 1}, Human: []float64{0, 1, 0}, FilledAudited: []float64{0, 1, 1}},
			mean:   1.0 / 3,
			lambda: 0.5, se: 0, humanSE: 0, humanMean: 1.0 / 3, mf: 2.0 / 3,
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
			if !near(got.Lo, tt.mean-z975*tt.se, 1e-12) || !near(got.Hi, tt.mean+z975*tt.se, 1e-12) {
				t.Errorf("interval [%v, %v], want mean ± %v", got.Lo, got.Hi, z975*tt.se)
			}
			if !near(got.HumanMean, tt.humanMean, 1e-12) || !near(got.HumanLo, tt.humanMean-z975*tt.humanSE, 1e-12) || !near(got.HumanHi, tt.humanMean+z975*tt.humanSE, 1e-12) {
				t.Errorf("human %v [%v, %v], want %v ± %v", got.HumanMean, got.HumanLo, got.HumanHi, tt.humanMean, z975*tt.humanSE)
			}
			if !near(got.FilledMean, tt.mf, 1e-12) || got.N != len(tt.in.Filled) || got.Audited != len(tt.in.Human) || got.Level != 0.95 {
				t.Errorf("filled mean %v N %d audited %d level %v", got.FilledMean, got.N, got.Audited, got.Level)
			}
			if got.Hi-got.Lo > got.HumanHi-got.HumanLo+1e-15 {
				t.Errorf("PPI interval %v wider than the human-only %v", got.Hi-got.Lo, got.HumanHi-got.HumanLo)
			}
		})
	}
}

func TestPPIErrors(t *testing.T) {
	ok := PPIInput{Filled: []float64{1, 2, 3}, Human: []float64{1, 2}, FilledAudited: []float64{1, 2}}
	tests := []struct {
		name  string
		in    PPIInput
		level float64
		want  string
	}{
		{"level 0", ok, 0, "level 0"},
		{"level 1", ok, 1, "level 1"},
		{"level NaN", ok, math.NaN(), "level NaN"},
		{"misaligned", PPIInput{Filled: []float64{1, 2, 3}, Human: []float64{1, 2}, FilledAudited: []float64{1}}, 0.95, "PPIInput.FilledAudited 1"},
		{"one audited", PPIInput{Filled: []float64{1, 2, 3}, Human: []float64{1}, FilledAudited: []float64{1}}, 0.95, "PPIInput.Human has 1 audited"},
		{"audit larger", PPIInput{Filled: []float64{1}, Human: []float64{1, 2}, FilledAudited: []float64{1, 2}}, 0.95, "PPIInput.Filled only 1"},
		{"NaN filled", PPIInput{Filled: []float64{1, math.NaN(), 3}, Human: []float64{1, 2}, FilledAudited: []float64{1, 2}}, 0.95, "PPIInput.Filled[1] is NaN"},
		{"Inf human", PPIInput{Filled: []float64{1, 2, 3}, Human: []float64{1, math.Inf(-1)}, FilledAudited: []float64{1, 2}}, 0.95, "PPIInput.Human[1] is -Inf"},
		{"Inf audited", PPIInput{Filled: []float64{1, 2, 3}, Human: []float64{1, 2}, FilledAudited: []float64{math.Inf(1), 2}}, 0.95, "PPIInput.FilledAudited[0] is +Inf"},
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
