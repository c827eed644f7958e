package stats

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestAdjustByHand checks each correction against values computed by hand.
// For p = (0.01, 0.04, 0.03, 0.005), m = 4, sorted 0.005, 0.01, 0.03, 0.04:
// Holm: 4·0.005, 3·0.01, 2·0.03, max(1·0.04, 0.06). BH, from the largest:
// 0.04·4/4, min(0.04, 0.03·4/3), min(0.04, 0.01·4/2), min(0.02, 0.005·4/1).
// For p = (0.3, 0.02, 0.3, 0.9): capping at 1 and ties.
func TestAdjustByHand(t *testing.T) {
	p := []float64{0.01, 0.04, 0.03, 0.005}
	caps := []float64{0.3, 0.02, 0.3, 0.9}
	tests := []struct {
		p      []float64
		method Correction
		want   []float64
	}{
		{p, Bonferroni, []float64{0.04, 0.16, 0.12, 0.02}},
		{p, Holm, []float64{0.03, 0.06, 0.06, 0.02}},
		{p, BH, []float64{0.02, 0.04, 0.04, 0.02}},
		{p, None, p},
		{caps, Bonferroni, []float64{1, 0.08, 1, 1}},
		{caps, Holm, []float64{0.9, 0.08, 0.9, 0.9}},
		{caps, BH, []float64{0.4, 0.08, 0.4, 0.9}},
	}
	for _, tt := range tests {
		got, err := Adjust(tt.p, tt.method)
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if !near(got[i], tt.want[i], 1e-15) {
				t.Errorf("%s of %v: got %v, want %v", tt.method, tt.p, got, tt.want)
				break
			}
		}
	}
}

func TestParseCorrection(t *testing.T) {
	for _, s := range []string{"holm", "Bonferroni", " BH ", "none"} {
		if _, err := ParseCorrection(s); err != nil {
			t.Errorf("ParseCorrection(%q): %v", s, err)
		}
	}
	if c, _ := ParseCorrection("HOLM"); c != Holm {
		t.Errorf("ParseCorrection(HOLM) = %q", c)
	}
	for _, s := range []string{"", "fdr", "holm-bonferroni"} {
		if _, err := ParseCorrection(s); err == nil {
			t.Errorf("ParseCorrection(%q): no error", s)
		}
	}
}

func TestAdjustInvalid(t *testing.T) {
	if _, err := Adjust([]float64{0.1}, "sidak"); err == nil {
		t.Error("unknown method: no error")
	}
	for _, p := range []float64{-0.1, 1.5, nan()} {
		if _, err := Adjust([]float64{0.1, p}, Holm); err == nil {
			t.Errorf("p = %v: no error", p)
		}
	}
	if got, err := Adjust(nil, BH); err != nil || len(got) != 0 {
		t.Errorf("empty family: %v, %v", got, err)
	}
}

func nan() float64 { return zero / zero }

var zero = 0.0

// TestAdjustProperties checks on random families that adjusted p-values lie
// between the raw ones and 1, keep their order, and that BH <= Holm <=
// Bonferroni.
func TestAdjustProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.SliceOfN(rapid.Float64Range(0, 1), 1, 40).Draw(t, "p")
		adj := map[Correction][]float64{}
		for _, c := range corrections {
			a, err := Adjust(p, c)
			if err != nil {
				t.Fatal(err)
			}
			adj[c] = a
			for i := range p {
				if a[i] < p[i] || a[i] > 1 {
					t.Fatalf("%s: p %v adjusted to %v", c, p[i], a[i])
				}
				for j := range p {
					if p[i] < p[j] && a[i] > a[j] {
						t.Fatalf("%s: order broken: %v -> %v, %v -> %v", c, p[i], a[i], p[j], a[j])
					}
				}
			}
		}
		for i := range p {
			if adj[BH][i] > adj[Holm][i]*(1+1e-12) || adj[Holm][i] > adj[Bonferroni][i] {
				t.Fatalf("p %v: BH %v, Holm %v, Bonferroni %v", p[i], adj[BH][i], adj[Holm][i], adj[Bonferroni][i])
			}
		}
		if !slices.Equal(adj[None], p) {
			t.Fatalf("none changed %v to %v", p, adj[None])
		}
	})
}
