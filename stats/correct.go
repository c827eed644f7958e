package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Correction names a multiple-comparison correction of a family of m
// p-values.
type Correction string

// Corrections.
const (
	// Holm is Holm's step-down method, which controls the family-wise error
	// rate: with the p-values sorted ascending, the i-th (from 1) becomes
	// the running maximum of min(1, (m-i+1) p(i)).
	Holm Correction = "holm"
	// Bonferroni controls the family-wise error rate: each p becomes
	// min(1, m p).
	Bonferroni Correction = "bonferroni"
	// BH is the Benjamini-Hochberg step-up method, which controls the false
	// discovery rate: with the p-values sorted ascending, the i-th becomes
	// the minimum over j >= i of min(1, m p(j) / j).
	BH Correction = "bh"
	// None leaves the p-values as they are.
	None Correction = "none"
)

// corrections lists every correction, in the order they are documented.
var corrections = []Correction{Holm, Bonferroni, BH, None}

// ParseCorrection returns the correction named s, ignoring case.
func ParseCorrection(s string) (Correction, error) {
	c := Correction(strings.ToLower(strings.TrimSpace(s)))
	if !slices.Contains(corrections, c) {
		return "", fmt.Errorf("stats: unknown correction %q (want holm, bonferroni, bh or none)", s)
	}
	return c, nil
}

// Adjust returns the p-values of a family corrected by method, in the
// order given. Adjusted values are never below the raw ones, never above 1,
// and keep the order of the raw ones. Equal raw p-values get equal adjusted
// ones. It returns an error for an unknown method or a p-value outside
// [0, 1] (NaN included).
func Adjust(p []float64, method Correction) ([]float64, error) {
	if !slices.Contains(corrections, method) {
		return nil, fmt.Errorf("stats: unknown correction %q", method)
	}
	for i, x := range p {
		if !(x >= 0 && x <= 1) {
			return nil, fmt.Errorf("stats: p-value %v at %d is not in [0, 1]", x, i)
		}
	}
	m := float64(len(p))
	adj := make([]float64, len(p))
	order := ascending(p)
	switch method {
	case Bonferroni:
		for i, x := range p {
			adj[i] = math.Min(1, m*x)
		}
	case Holm:
		run := 0.0
		for k, i := range order {
			run = math.Max(run, math.Min(1, (m-float64(k))*p[i]))
			adj[i] = run
		}
	case BH:
		// m/(k+1) >= 1 is computed first so that rounding never takes an
		// adjusted value below its raw one.
		run := 1.0
		for k := len(order) - 1; k >= 0; k-- {
			i := order[k]
			run = math.Min(run, p[i]*(m/float64(k+1)))
			adj[i] = run
		}
	case None:
		copy(adj, p)
	}
	return adj, nil
}

// ascending returns the indices of p ordered by p, keeping equal values in
// input order.
func ascending(p []float64) []int {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(p[a], p[b]) })
	return idx
}
