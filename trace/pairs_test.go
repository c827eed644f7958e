package trace

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/internal/diag"
)

func TestSeenPairsWindow(t *testing.T) {
	type add struct {
		h             uint64
		query, system string
		line          int
		first         int // -1: new pair
	}
	for _, tc := range []struct {
		name string
		adds []add
	}{
		{"duplicate", []add{{1, "a", "x", 1, -1}, {2, "b", "x", 2, -1}, {1, "a", "x", 3, 1}, {2, "b", "x", 4, 2}}},
		{"same hash other ids", []add{{5, "a", "x", 1, -1}, {5, "a", "y", 2, -1}, {5, "a", "y", 3, 2}, {5, "b", "x", 4, -1}, {5, "a", "x", 5, 1}}},
		{"ids split elsewhere", []add{{5, "ab", "c", 1, -1}, {5, "a", "bc", 2, -1}, {5, "ab", "c", 3, 1}}},
		{"colliding slots", []add{{64, "a", "x", 1, -1}, {128, "b", "x", 2, -1}, {192, "c", "x", 3, -1}, {128, "b", "x", 9, 2}, {192, "c", "x", 9, 3}}},
		{"line zero", []add{{7, "a", "x", 0, -1}, {7, "a", "x", 5, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSeenPairs()
			defer s.close()
			for _, a := range tc.adds {
				first, dup, err := s.add(a.h, a.query, a.system, a.line)
				if err != nil || dup != (a.first >= 0) || dup && first != a.first {
					t.Fatalf("add(%d, %q, %q, %d) = %d, %v, %v; want %d", a.h, a.query, a.system, a.line, first, dup, err, a.first)
				}
			}
			if err := s.finish("f"); err != nil || len(s.runs) != 0 {
				t.Fatalf("finish: %v, %d runs", err, len(s.runs))
			}
		})
	}
}

// TestSeenPairsRuns fills more than a window, so that some second traces
// are found at once and others only when the runs are merged, more than
// diag.Max of them.
func TestSeenPairsRuns(t *testing.T) {
	s := newSeenPairs()
	defer s.close()
	line := 0
	add := func(q string) (int, bool) {
		line++
		first, dup, err := s.add(pairHash(s.seed, q, "sys"), q, "sys", line)
		if err != nil {
			t.Fatal(err)
		}
		return first, dup
	}
	n := windowPairs + 10
	for i := range n {
		if first, dup := add(fmt.Sprint("q", i)); dup {
			t.Fatalf("q%d: a duplicate of line %d", i, first)
		}
	}
	if first, dup := add(fmt.Sprint("q", n-1)); !dup || first != n {
		t.Fatalf("in the window: %d, %v; want line %d", first, dup, n)
	}
	const later = diag.Max + 5
	for i := range later { // lines n+2 on: their first traces are in the run
		if first, dup := add(fmt.Sprint("q", i)); dup {
			t.Fatalf("q%d again: found at once (line %d)", i, first)
		}
	}
	err := s.finish("f")
	var l *diag.List
	if !errors.As(err, &l) || l.Len() != later || len(l.Errs()) != diag.Max {
		t.Fatalf("finish: %v", err)
	}
	for i, e := range l.Errs() {
		want := fmt.Sprintf(`f:%d: query "q%d": system "sys" has a second trace for this query (also line %d)`, n+2+i, i, i+1)
		if e.Error() != want {
			t.Fatalf("problem %d: %s; want %s", i, e, want)
		}
	}
}

// TestSeenPairsMergePasses merges more runs than one pass reads, and
// finds every repeat, with its first line, in one of three passes.
func TestSeenPairsMergePasses(t *testing.T) {
	s := newSeenPairs()
	defer s.close()
	s.maxPairs, s.maxBytes, s.fan = 3, 1<<20, 2
	const n = 20
	for k := range 2 {
		for i := range n {
			q := fmt.Sprint("q", (i*7)%n)
			if _, dup, err := s.add(pairHash(s.seed, q, "sys"), q, "sys", k*n+i+1); dup || err != nil {
				t.Fatalf("%s: %v, %v", q, dup, err)
			}
		}
	}
	if len(s.runs) < 2*s.fan+1 {
		t.Fatalf("%d runs", len(s.runs))
	}
	var l *diag.List
	if err := s.finish("f"); !errors.As(err, &l) || l.Len() != n {
		t.Fatalf("finish: %v", err)
	}
	for i, e := range l.Errs() {
		want := fmt.Sprintf(`f:%d: query "q%d": system "sys" has a second trace for this query (also line %d)`, n+i+1, (i*7)%n, i+1)
		if e.Error() != want {
			t.Fatalf("problem %d: %s; want %s", i, e, want)
		}
	}
}

// TestScanRepeatPastWindow finds a second trace of a pair read more than a
// window after the first.
func TestScanRepeatPastWindow(t *testing.T) {
	n := windowPairs + 5
	records := func(each func(int, []byte) error) error {
		for i := range n + 1 {
			if err := each(i+1, fmt.Appendf(nil, `{"query":"q%d","system":"s","stages":[{"name":"c","items":[]}]}`, i%n)); err != nil {
				return err
			}
		}
		return nil
	}
	handed := 0
	err := ScanRecords("t.jsonl", records, 1, func(*Trace) error { handed++; return nil })
	want := fmt.Sprintf(`t.jsonl:%d: query "q0": system "s" has a second trace for this query (also line 1)`, n+1)
	if err == nil || !strings.Contains(err.Error(), want) || handed != n+1 {
		t.Fatalf("got %v (%d handed on); want %s", err, handed, want)
	}
}

// BenchmarkSeenPairs adds a million distinct pairs and reports the bytes
// allocated for each.
func BenchmarkSeenPairs(b *testing.B) {
	const n = 1000000
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprint("query-", i)
	}
	b.ReportAllocs()
	for b.Loop() {
		s := newSeenPairs()
		for i, q := range ids {
			if _, _, err := s.add(pairHash(s.seed, q, "system"), q, "system", i+1); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.finish("f"); err != nil {
			b.Fatal(err)
		}
		s.close()
	}
}
