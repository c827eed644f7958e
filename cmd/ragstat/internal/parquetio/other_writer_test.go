package parquetio

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/runs"
)

func fixture(t *testing.T, name string) *input.File {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return input.FromBytes(name, data)
}

// ranked collects every query's ranked items.
func ranked(t *testing.T, read func(fn func(*runs.Ranking) error) error) map[string][]string {
	t.Helper()
	var mu sync.Mutex
	out := map[string][]string{}
	if err := read(func(r *runs.Ranking) error {
		mu.Lock()
		defer mu.Unlock()
		out[r.Query] = slices.Clone(r.Items)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOtherWriter reads files written by another Parquet implementation
// (hyparquet-writer, see testdata/hyparquet.mjs) and checks that they give
// the rankings and judgments of the same rows written as TREC text.
func TestOtherWriter(t *testing.T) {
	for _, order := range []runs.Order{runs.ByScore, runs.ByRank} {
		opt := runs.Options{Order: order}
		want := ranked(t, func(fn func(*runs.Ranking) error) error {
			_, err := runs.Read(fixture(t, "run.txt"), opt, fn)
			return err
		})
		lists, err := ReadRun(fixture(t, "hyparquet-run.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		got := ranked(t, func(fn func(*runs.Ranking) error) error { return runs.Lists("hyparquet-run.parquet", opt, lists, fn) })
		if len(got) != 3 || len(want) != 3 {
			t.Fatalf("%d and %d queries", len(got), len(want))
		}
		for q, items := range want {
			if !slices.Equal(got[q], items) {
				t.Errorf("order %s, query %s: Parquet ranks %v, TREC %v", order, q, got[q], items)
			}
		}
	}
	text, err := judgments.Read(fixture(t, "qrels.txt"), judgments.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pq, err := ReadJudgments(fixture(t, "hyparquet-qrels.parquet"), judgments.DefaultScale)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pq.IDs(), text.IDs()) || pq.Len() != text.Len() || pq.Len() == 0 {
		t.Fatalf("queries %v (%d judgments) vs %v (%d)", pq.IDs(), pq.Len(), text.IDs(), text.Len())
	}
	for _, q := range text.IDs() {
		tq, pqq := text.Query(q), pq.Query(q)
		if !slices.Equal(tq.Items(), pqq.Items()) || !slices.Equal(tq.Grades(nil), pqq.Grades(nil)) {
			t.Errorf("query %s: Parquet %v %v, TREC %v %v", q, pqq.Items(), pqq.Grades(nil), tq.Items(), tq.Grades(nil))
		}
	}
}
