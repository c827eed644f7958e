package stats

import (
	"math"
	"testing"
)

// TestPPIExact: queries known exactly join the mean with no uncertainty;
// the estimate over the others is weighted by their share.
func TestPPIExact(t *testing.T) {
	in := PPIInput{Filled: []float64{0.2, 0.4, 0.6, 0.8}, Human: []float64{0.3, 0.5}, FilledAudited: []float64{0.2, 0.4}}
	inner, err := PPI(in, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	in.Exact = []float64{1, 0}
	est, err := PPI(in, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	share := func(x float64) float64 { return (1 + 4*x) / 6 }
	for _, c := range [][2]float64{{est.Mean, share(inner.Mean)}, {est.Lo, share(inner.Lo)}, {est.Hi, share(inner.Hi)},
		{est.FilledMean, share(0.5)}, {est.HumanLo, share(inner.HumanLo)}, {est.SE, inner.SE * 4 / 6}} {
		if math.Abs(c[0]-c[1]) > 1e-12 {
			t.Errorf("got %v, want %v", c[0], c[1])
		}
	}
	if est.N != 6 || est.Audited != 2 || est.Lambda != inner.Lambda {
		t.Errorf("N %d, audited %d, lambda %v", est.N, est.Audited, est.Lambda)
	}
	// Every LLM-labelled query audited: the mean is the human mean, exactly.
	all, err := PPI(PPIInput{Filled: []float64{0.2, 0.4}, Human: []float64{0.3, 0.5}, FilledAudited: []float64{0.2, 0.4}, Exact: []float64{1}}, 0.95)
	if err != nil || math.Abs(all.Mean-0.6) > 1e-12 || math.Abs(all.Hi-all.Lo) > 1e-12 {
		t.Errorf("full audit: %+v, %v", all, err)
	}
	// No LLM label at all: the exact mean.
	exact, err := PPI(PPIInput{Exact: []float64{1, 0, 0.5}}, 0.9)
	if err != nil || exact.Mean != 0.5 || exact.Lo != 0.5 || exact.Hi != 0.5 || exact.N != 3 {
		t.Errorf("exact: %+v, %v", exact, err)
	}
	if _, err := PPI(PPIInput{Exact: []float64{math.NaN()}}, 0.9); err == nil {
		t.Error("NaN accepted")
	}
}
