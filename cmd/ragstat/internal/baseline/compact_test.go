package baseline

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCompactAgreesWithSearch ranks one synthetic corpus with bleve
// (Search) and with the compact index, and wants the same rank for every
// passage bleve returns, on every query.
func TestCompactAgreesWithSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	vocab := make([]string, 400)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%dx", i)
	}
	word := func() string { return vocab[min(r.IntN(len(vocab)), r.IntN(len(vocab)))] }
	var ds []Doc
	for i := range 3000 {
		var b strings.Builder
		for range 5 + r.IntN(40) {
			b.WriteString(word() + " ")
		}
		ds = append(ds, Doc{fmt.Sprintf("d%04d", i), b.String()})
	}
	var qs []Query
	for i := range 100 {
		qs = append(qs, Query{fmt.Sprintf("q%d", i), word() + " " + word() + " the " + word()})
	}
	rs, err := Search(ds, qs, Options{K: 50})
	if err != nil {
		t.Fatal(err)
	}
	idx := NewIndex(ds)
	s := idx.Scorer()
	for i, q := range qs {
		if len(rs[i].Hits) == 0 {
			t.Fatalf("%s matched nothing", q.ID)
		}
		for k, h := range rs[i].Hits {
			if got := s.BestRank(q.Text, []string{h.Item}); got != k+1 {
				t.Errorf("%s: %s at compact rank %d, bleve %d", q.ID, h.Item, got, k+1)
				break
			}
		}
		last := len(rs[i].Hits) - 1
		if got := s.BestRank(q.Text, []string{rs[i].Hits[last].Item, "absent", rs[i].Hits[2].Item}); got != 3 {
			t.Errorf("%s: the best of ranks %d and 3 is %d", q.ID, last+1, got)
		}
	}
	if got := s.BestRank("nothing matches", []string{"d0001"}); got != 0 {
		t.Errorf("a query matching nothing ranks d0001 at %d", got)
	}
}

func TestAnalyzer(t *testing.T) {
	a := NewAnalyzer()
	for _, c := range []struct{ text, want string }{
		{"The cat's toys are running!", "cat toi run"},
		{"Refunds, REFUNDED; refunding", "refund refund refund"},
		{"of the and", ""},
		{"ü-ber 3.5 don't", "ü ber 3 5"},
	} {
		if got := strings.Join(a.Terms(nil, c.text), " "); got != c.want {
			t.Errorf("%q: %q, want %q", c.text, got, c.want)
		}
	}
}

func TestGallop(t *testing.T) {
	ps := []int32{2, 4, 6, 8, 10, 12, 14, 16, 18, 20}
	for _, c := range []struct {
		at   int
		d    int32
		want int
	}{
		{0, 1, 0}, {0, 2, 0}, {0, 3, 1}, {0, 20, 9}, {0, 21, 10}, {3, 8, 3}, {3, 9, 4}, {4, 19, 9}, {9, 25, 10}, {10, 30, 10},
	} {
		if got := gallop(ps, c.at, c.d); got != c.want {
			t.Errorf("gallop from %d to %d: %d, want %d", c.at, c.d, got, c.want)
		}
	}
}

// TestLongQuery: a query of 100,000 distinct words, one of them in the
// corpus, ranks as a one-word query does (its clauses are counted once
// each, in n log n).
func TestLongQuery(t *testing.T) {
	idx := NewIndex([]Doc{{"a", "apple banana"}, {"b", "cherry"}})
	s := idx.Scorer()
	var b strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&b, "x%dz ", i)
	}
	b.WriteString("cherry")
	if got := s.BestRank(b.String(), []string{"b"}); got != 1 {
		t.Errorf("b at %d", got)
	}
	if terms, found, ok := s.Overlap(b.String(), []string{"b"}); terms != 100_001 || found != 1 || !ok {
		t.Errorf("overlap %d %d %v", terms, found, ok)
	}
}
