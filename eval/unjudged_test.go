package eval

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/sharedtest"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/runs"
)

// TestUnjudgedCountedInFull: under the strict default, DL19's BM25 run
// returns tens of thousands of unjudged passages; the error keeps diag.Max
// of them in detail and says the exact totals, which this test counts by
// a plain loop over the two files.
func TestUnjudgedCountedInFull(t *testing.T) {
	dir := filepath.Join(sharedtest.Dir(t, "data"), "trec-dl-2019-passage")
	qrelsPath, runPath := filepath.Join(dir, "qrels.dl19-passage.txt"), filepath.Join(dir, "runs", "run.trec2019-bm25.res.gz")

	judged := map[string]bool{} // "query item"
	eachLine(t, qrelsPath, func(f []string) { judged[f[0]+" "+f[2]] = true })
	items, queries := 0, map[string]bool{}
	eachLine(t, runPath, func(f []string) {
		if !judged[f[0]+" "+f[2]] {
			items++
			queries[f[0]] = true
		}
	})
	if items < 1000 {
		t.Fatalf("the independent count found %d unjudged items: the data changed?", items)
	}

	jf, err := input.Open(qrelsPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer jf.Close()
	qrels, err := judgments.Read(jf, judgments.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := metric.ParseAll([]string{"nDCG@10"})
	ev, err := New(qrels, DefaultPolicy(), ms, nil)
	if err != nil {
		t.Fatal(err)
	}
	rf, err := input.Open(runPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rf.Close()
	_, err = ev.Run("bm25", rf, runs.Options{Workers: 2})
	var l *diag.List
	if !errors.As(err, &l) {
		t.Fatalf("got %v, want a list of problems", err)
	}
	if l.Len() != items || len(l.Errs()) != diag.Max || len(l.Tallies()) != 1 || l.Tallies()[0].N != items {
		t.Fatalf("Len %d, kept %d, tallies %+v; want %d counted, %d kept, one tally", l.Len(), len(l.Errs()), l.Tallies(), items, diag.Max)
	}
	msg := err.Error()
	for _, want := range []string{
		fmt.Sprintf("\n... and %s more problems, counted below\n", diag.Count(items-diag.Max)),
		fmt.Sprintf("\nin all: %s returned items in %d queries have no judgment", diag.Count(items), len(queries)),
		"unjudged nonrelevant|skip|bounds, or like trec_eval",
		".res.gz:11: query \"264014\", item \"3764482\": returned at rank 11 but has no judgment", // the file's first
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Count(msg, "\n") != diag.Max+1 {
		t.Errorf("message has %d lines, want %d problems and two summary lines", strings.Count(msg, "\n")+1, diag.Max)
	}
}

// eachLine calls fn with the fields of every line of a text file, gzip or
// not.
func eachLine(t *testing.T, path string, fn func([]string)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var sc *bufio.Scanner
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		sc = bufio.NewScanner(zr)
	} else {
		sc = bufio.NewScanner(f)
	}
	for sc.Scan() {
		fn(strings.Fields(sc.Text()))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestUnjudgedHolesRedelivered: a query delivered again replaces its
// earlier count and detail, and the detail kept is that of the queries
// that start first in the file, whatever order they arrive in.
func TestUnjudgedHolesRedelivered(t *testing.T) {
	problems := func(q string, lines ...int) error {
		var l diag.List
		for _, n := range lines {
			l.Add(&diag.Error{File: "r", Line: n, Query: q, Msg: "returned but has no judgment"})
		}
		return l.Err()
	}
	var h holes
	for i := 30; i >= 1; i-- { // last lines first
		h.record(fmt.Sprint("q", i), problems(fmt.Sprint("q", i), 2*i, 2*i+1))
	}
	h.record("q1", nil)               // delivered again, now judged
	h.record("q2", problems("q2", 4)) // delivered again with one hole
	var l *diag.List
	if !errors.As(h.err(), &l) {
		t.Fatal("no list")
	}
	if l.Len() != 2*28+1 {
		t.Errorf("Len %d, want %d", l.Len(), 2*28+1)
	}
	if msg := l.Error(); !strings.HasPrefix(msg, "r:4: query \"q2\"") || !strings.Contains(msg, "in all: 57 returned items in 29 queries have no judgment") {
		t.Errorf("message:\n%s", msg)
	}
	var e *diag.Error
	// q11 and later were let go when earlier lines came; q1 and q2 shrank.
	if errs := l.Errs(); len(errs) != 17 || !errors.As(errs[16], &e) || e.Line != 21 {
		t.Errorf("kept %d, the last %v; want 17, the last on line 21", len(l.Errs()), e)
	}
}
