package assess

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/judgments"
)

// Weights name the disagreement weights of the weighted kappa.
type Weights string

// The weights Agreement knows, over the K grades of the session's scale.
const (
	Quadratic Weights = "quadratic" // w(i,j) = (i-j)² / (K-1)²
	Linear    Weights = "linear"    // w(i,j) = |i-j| / (K-1)
)

// Describe writes the weights as a formula over the scale's K grades.
func (w Weights) Describe(s judgments.Scale) string {
	span := s.Max - s.Min
	if w == Linear {
		return fmt.Sprintf("linear weights w(i,j) = |i-j|/%d", span)
	}
	return fmt.Sprintf("quadratic weights w(i,j) = (i-j)²/%d", span*span)
}

// weight is the disagreement weight of grades i and j of a scale whose
// highest and lowest grade are span apart; 0 on a one-grade scale.
func (w Weights) weight(i, j, span int) float64 {
	if span == 0 {
		return 0
	}
	d := math.Abs(float64(i-j)) / float64(span)
	if w == Linear {
		return d
	}
	return d * d
}

// Pair is the agreement of two assessors over the pairs both graded.
type Pair struct {
	A, B   string
	N      int     // pairs both graded
	Agree  int     // of those, graded the same
	Kappa  float64 // Cohen's weighted kappa; NaN when undefined
	Matrix [][]int // [A's grade - Scale.Min][B's grade - Scale.Min]
}

// Agreement compares every two assessors (in name order) over the pairs
// both graded, on the session's scale: κ = 1 - Σ w·observed / Σ w·expected,
// expected from the two assessors' own grade distributions. κ is NaN when
// there is nothing to compare or no disagreement could be expected (both
// gave one same grade). A grade off the scale is an error.
func Agreement(grades []Grade, scale judgments.Scale, w Weights) ([]Pair, error) {
	if err := CheckScale(scale); err != nil {
		return nil, err
	}
	if w != Quadratic && w != Linear {
		return nil, fmt.Errorf("unknown weights %q: use quadratic or linear", w)
	}
	by := map[string]map[Key]int{}
	for _, g := range grades {
		if !scale.Contains(g.Grade) {
			return nil, fmt.Errorf("%s graded %q/%q %d, outside the scale %s", g.Assessor, g.Query, g.Item, g.Grade, scale)
		}
		if by[g.Assessor] == nil {
			by[g.Assessor] = map[Key]int{}
		}
		by[g.Assessor][g.Key] = g.Grade
	}
	var names []string
	for n := range by {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []Pair
	for i, a := range names {
		for _, b := range names[i+1:] {
			p := Pair{A: a, B: b, Matrix: make([][]int, scale.Max-scale.Min+1)}
			for i := range p.Matrix {
				p.Matrix[i] = make([]int, len(p.Matrix))
			}
			for k, ga := range by[a] {
				if gb, ok := by[b][k]; ok {
					p.Matrix[ga-scale.Min][gb-scale.Min]++
					p.N++
					if ga == gb {
						p.Agree++
					}
				}
			}
			p.Kappa = kappa(p.Matrix, p.N, w)
			out = append(out, p)
		}
	}
	return out, nil
}

// kappa of the square matrix m of n pairs.
func kappa(m [][]int, n int, w Weights) float64 {
	if n == 0 {
		return math.NaN()
	}
	span := len(m) - 1
	rows, cols := make([]float64, len(m)), make([]float64, len(m))
	for i := range m {
		for j := range m[i] {
			rows[i] += float64(m[i][j])
			cols[j] += float64(m[i][j])
		}
	}
	var observed, expected float64
	for i := range m {
		for j := range m[i] {
			observed += w.weight(i, j, span) * float64(m[i][j]) / float64(n)
			expected += w.weight(i, j, span) * rows[i] * cols[j] / float64(n) / float64(n)
		}
	}
	if expected == 0 {
		return math.NaN()
	}
	return 1 - observed/expected
}

// WriteAgreement writes each pair's kappa and confusion matrix, from
// Agreement on the same scale, as text.
func WriteAgreement(out io.Writer, pairs []Pair, scale judgments.Scale, w Weights) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Cohen's weighted kappa, %s, grades %s; rows: first assessor, columns: second.\n", w.Describe(scale), scale)
	if len(pairs) == 0 {
		b.WriteString("Fewer than two assessors have graded: nothing to compare.\n")
	}
	for _, p := range pairs {
		fmt.Fprintf(&b, "\n%s vs %s: ", p.A, p.B)
		if p.N == 0 {
			b.WriteString("no pair graded by both\n")
			continue
		}
		k := "undefined (no disagreement could be expected)"
		if !math.IsNaN(p.Kappa) {
			k = fmt.Sprintf("%.4f", p.Kappa)
		}
		fmt.Fprintf(&b, "%d pairs graded by both, exact agreement %.4f, kappa %s\n", p.N, float64(p.Agree)/float64(p.N), k)
		width := max(len(p.A), 4) + 2
		fmt.Fprintf(&b, "%*s", width+2, "")
		col := 7 // wide enough for "name=-10" and for p.N
		for _, g := range []int{scale.Min, scale.Max} {
			col = max(col, len(fmt.Sprintf(" %s=%d", initial(p.B), g)), len(fmt.Sprintf(" %d", p.N)))
		}
		for j := range p.Matrix {
			fmt.Fprintf(&b, "%*s", col, fmt.Sprintf("%s=%d", initial(p.B), scale.Min+j))
		}
		b.WriteString("\n")
		for i, row := range p.Matrix {
			fmt.Fprintf(&b, "  %-*s", width, fmt.Sprintf("%s=%d", p.A, scale.Min+i))
			for _, n := range row {
				fmt.Fprintf(&b, "%*d", col, n)
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(out, b.String())
	return err
}

// initial shortens a column label to fit the column.
func initial(name string) string {
	r := []rune(name)
	if len(r) > 4 {
		return string(r[:4])
	}
	return name
}
