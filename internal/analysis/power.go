package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Resolution is the smallest paired difference a query set can resolve.
type Resolution struct {
	Queries int
	SD      float64 // standard deviation of the paired per-query differences
	// MDE is the minimum detectable effect: the smallest true mean
	// difference a two-sided paired t-test at level Alpha detects with
	// probability Power, (t_{1-α/2} + t_{power}) · sd / √n on n-1 degrees
	// of freedom. NaN with fewer than two queries.
	MDE          float64
	Alpha, Power float64
}

// Resolve computes the resolution of paired differences (candidate minus
// base, one per query).
func Resolve(diffs []float64, alpha, power float64) (Resolution, error) {
	sd := math.NaN()
	if len(diffs) >= 2 {
		sd = stat.StdDev(diffs, nil)
	}
	return ResolveSD(len(diffs), sd, alpha, power)
}

// TargetPower is the power a gate's resolution is worked out at: compare's
// gate power and an audit's resolution of a test set alike.
const TargetPower = 0.8

// ResolveSD is Resolve from the number of queries and the standard
// deviation of their paired differences.
func ResolveSD(n int, sd, alpha, power float64) (Resolution, error) {
	if alpha <= 0 || alpha >= 1 || power <= 0 || power >= 1 {
		return Resolution{}, fmt.Errorf("analysis: alpha %g and power %g must lie in (0, 1)", alpha, power)
	}
	r := Resolution{Queries: n, Alpha: alpha, Power: power, SD: sd, MDE: math.NaN()}
	if n < 2 || math.IsNaN(sd) {
		return r, nil
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}
	r.MDE = (t.Quantile(1-alpha/2) + t.Quantile(power)) * sd / math.Sqrt(float64(n))
	return r, nil
}

// Protects reports whether a gate that fails on a regression larger than
// threshold (a positive size, such as 0.01 for "nDCG@10 < -0.01") can
// tell such a regression from noise on this query set.
func (r Resolution) Protects(threshold float64) bool {
	return !math.IsNaN(r.MDE) && math.Abs(threshold) >= r.MDE
}

// Point is one system's quality, cost and latency.
type Point struct {
	System  string
	Quality float64 // higher is better
	Cost    float64 // per query; lower is better
	Latency float64 // p90, milliseconds; lower is better
}

// Beats reports whether q beats p: q is at least as good as p on
// quality, cost and latency together, and strictly better on one.
func (q Point) Beats(p Point) bool {
	return q.Quality >= p.Quality && q.Cost <= p.Cost && q.Latency <= p.Latency &&
		(q.Quality > p.Quality || q.Cost < p.Cost || q.Latency < p.Latency)
}

// Frontier marks the systems no other system beats (see Point.Beats), in
// the order given. Two systems alike on all three both stay on it.
func Frontier(ps []Point) []string {
	var out []string
	for i, p := range ps {
		if len(BeatenBy(ps, i)) == 0 {
			out = append(out, p.System)
		}
	}
	return out
}

// BeatenBy names the systems that beat ps[i], in the order given.
func BeatenBy(ps []Point, i int) []string {
	var out []string
	for j, q := range ps {
		if j != i && q.Beats(ps[i]) {
			out = append(out, q.System)
		}
	}
	return out
}

// Reach is how far one stale or superseded item travelled.
type Reach struct {
	Item     string `json:"item"`
	Contexts int    `json:"contexts"` // queries whose packed context held it
	Answers  int    `json:"answers"`  // queries whose answer cited it
}

// Stalest ranks stale items by the answers, then the contexts, they
// reached; ties by item id.
func Stalest(rs []Reach) []Reach {
	out := slices.Clone(rs)
	slices.SortFunc(out, func(a, b Reach) int {
		return cmp.Or(cmp.Compare(b.Answers, a.Answers), cmp.Compare(b.Contexts, a.Contexts), cmp.Compare(a.Item, b.Item))
	})
	return out
}
