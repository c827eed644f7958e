package assess

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// Weights name the disagreement weights of the weighted kappa.
type Weights string

// The weights Agreement knows, for grades 0..3 (K = 4 categories).
const (
	Quadratic Weights = "quadratic" // w(i,j) = (i-j)² / (K-1)²
	Linear    Weights = "linear"    // w(i,j) = |i-j| / (K-1)
)

// Describe writes the weights as a formula.
func (w Weights) Describe() string {
	if w == Linear {
		return fmt.Sprintf("linear weights w(i,j) = |i-j|/%d", MaxGrade)
	}
	return fmt.Sprintf("quadratic weights w(i,j) = (i-j)²/%d", MaxGrade*MaxGrade)
}

func (w Weights) weight(i, j int) float64 {
	d := math.Abs(float64(i - j))
	if w == Linear {
		return d / MaxGrade
	}
	return d * d / (MaxGrade * MaxGrade)
}

// Pair is the agreement of two assessors over the pairs both graded.
type Pair struct {
	A, B   string
	N      int                             // pairs both graded
	Agree  int                             // of those, graded the same
	Kappa  float64                         // Cohen's weighted kappa; NaN when undefined
	Matrix [MaxGrade + 1][MaxGrade + 1]int // [A's grade][B's grade]
}

// Agreement compares every two assessors (in name order) over the pairs
// both graded: κ = 1 - Σ w·observed / Σ w·expected, expected from the two
// assessors' own grade distributions. κ is NaN when there is nothing to
// compare or no disagreement could be expected (both gave one same grade).
func Agreement(grades []Grade, w Weights) []Pair {
	by := map[string]map[Key]int{}
	for _, g := range grades {
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
			p := Pair{A: a, B: b}
			for k, ga := range by[a] {
				if gb, ok := by[b][k]; ok {
					p.Matrix[ga][gb]++
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
	return out
}

func kappa(m [MaxGrade + 1][MaxGrade + 1]int, n int, w Weights) float64 {
	if n == 0 {
		return math.NaN()
	}
	var rows, cols [MaxGrade + 1]float64
	for i := range m {
		for j := range m[i] {
			rows[i] += float64(m[i][j])
			cols[j] += float64(m[i][j])
		}
	}
	var observed, expected float64
	for i := range m {
		for j := range m[i] {
			observed += w.weight(i, j) * float64(m[i][j]) / float64(n)
			expected += w.weight(i, j) * rows[i] * cols[j] / float64(n*n)
		}
	}
	if expected == 0 {
		return math.NaN()
	}
	return 1 - observed/expected
}

// WriteAgreement writes each pair's kappa and confusion matrix as text.
func WriteAgreement(out io.Writer, pairs []Pair, w Weights) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Cohen's weighted kappa, %s, grades 0..%d; rows: first assessor, columns: second.\n", w.Describe(), MaxGrade)
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
		for j := 0; j <= MaxGrade; j++ {
			fmt.Fprintf(&b, "%7s", fmt.Sprintf("%s=%d", initial(p.B), j))
		}
		b.WriteString("\n")
		for i := 0; i <= MaxGrade; i++ {
			fmt.Fprintf(&b, "  %-*s", width, fmt.Sprintf("%s=%d", p.A, i))
			for j := 0; j <= MaxGrade; j++ {
				fmt.Fprintf(&b, "%7d", p.Matrix[i][j])
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
