package baseline

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchSet is passages of 20 to 40 words drawn from 50,000 with Zipf's
// law and queries that copy 8 words of a passage.
func benchSet(passages, queries int) ([]Doc, []Query) {
	r := rand.New(rand.NewPCG(5, 6))
	zipf := rand.NewZipf(r, 1.1, 1, 49999)
	ds := make([]Doc, passages)
	for i := range ds {
		ws := make([]string, 20+r.IntN(21))
		for k := range ws {
			ws[k] = fmt.Sprintf("w%dq", zipf.Uint64())
		}
		ds[i] = Doc{fmt.Sprintf("p%d", i), strings.Join(ws, " ")}
	}
	qs := make([]Query, queries)
	for i := range qs {
		ws := strings.Fields(ds[i%passages].Text)
		qs[i] = Query{fmt.Sprintf("q%d", i), strings.Join(ws[:8], " ")}
	}
	return ds, qs
}

// BenchmarkRanks finds the rank of each query's own passage over 20,000
// passages for 2,000 queries, with bleve (Search, depth 1000) and with the
// compact index (NewIndex, then BestRank), side by side.
func BenchmarkRanks(b *testing.B) {
	ds, qs := benchSet(20_000, 2_000)
	b.Run("bleve", func(b *testing.B) {
		for b.Loop() {
			if _, err := Search(ds, qs, Options{K: 1000}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("compact", func(b *testing.B) {
		for b.Loop() {
			s := NewIndex(ds).Scorer()
			for i, q := range qs {
				s.BestRank(q.Text, []string{ds[i%len(ds)].ID})
			}
		}
	})
}
