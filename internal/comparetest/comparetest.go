// Package comparetest holds the comparison the tests of compare and of its
// renderers share: 40 queries, two systems, three slices.
package comparetest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/stats"
	"github.com/ragstat/ragstat/topics"
)

// Fixture is 40 queries: the candidate gains about 0.1 on the 30 queries of
// slice tag:a and loses 0.2 on the 10 of tag:b, so the whole set improves
// while tag:b regresses; tag:c has 3 queries, too few to test.
func Fixture() (*compare.Table, compare.Options) {
	t := &compare.Table{Metrics: []string{"nDCG@10", "R@10"}}
	base := compare.System{Name: "base", Values: make([][]float64, 2)}
	cand := compare.System{Name: "cand", Values: make([][]float64, 2)}
	var a, b, c []int
	for q := range 40 {
		t.Queries = append(t.Queries, fmt.Sprintf("q%02d", q))
		t.Text = append(t.Text, fmt.Sprintf("question %d", q))
		v := 0.3 + 0.01*float64(q%7)
		d := 0.1 + 0.02*float64(q%3-1)
		if q >= 30 {
			b, d = append(b, q), -0.2
		} else {
			a = append(a, q)
		}
		if q < 3 {
			c = append(c, q)
		}
		for m := range 2 {
			base.Values[m] = append(base.Values[m], v)
			cand.Values[m] = append(cand.Values[m], v+d/float64(m+1))
		}
		rk := compare.Ranking{Relevant: []compare.Item{{ID: "d1", Rank: 1 + q%4, Grade: 3, Judged: true}, {ID: "d2", Grade: 1, Judged: true}}}
		base.Rankings = append(base.Rankings, rk)
		cand.Rankings = append(cand.Rankings, rk)
	}
	t.Systems = []compare.System{base, cand}
	opt := compare.Options{Stats: stats.Options{Seed: 7, Resamples: 2000, Randomizations: 2000}, Top: 3,
		Slices: []topics.Slice{{Name: "tag:a", Queries: a}, {Name: "tag:b", Queries: b}, {Name: "tag:c", Queries: c}}}
	return t, opt
}

// Result is the comparison of Fixture, with a manifest as a run of
// ragstat compare writes it.
func Result(t testing.TB) *compare.Result {
	t.Helper()
	tab, opt := Fixture()
	r, err := compare.Compare(tab, opt)
	if err != nil {
		t.Fatal(err)
	}
	r.Manifest = &eval.Manifest{Kind: eval.KindCompare, Version: "test", Metrics: tab.Metrics,
		Policy: eval.DefaultPolicy()}
	return r
}

// Large is 10,000 queries × 8 metrics of uniform random values for a base
// and 4 candidates, the same every call: the size compare and its renderers
// are benchmarked at.
func Large() *compare.Table {
	const queries, metrics, candidates = 10000, 8, 4
	rng := rand.New(rand.NewPCG(1, 2))
	t := &compare.Table{}
	for q := range queries {
		t.Queries = append(t.Queries, fmt.Sprintf("q%d", q))
	}
	for m := range metrics {
		t.Metrics = append(t.Metrics, fmt.Sprintf("m%d", m))
	}
	for s := range candidates + 1 {
		sys := compare.System{Name: fmt.Sprintf("s%d", s)}
		for range metrics {
			v := make([]float64, queries)
			for i := range v {
				v[i] = rng.Float64()
			}
			sys.Values = append(sys.Values, v)
		}
		t.Systems = append(t.Systems, sys)
	}
	return t
}
