package tokenize

import (
	"fmt"
	"path/filepath"
	"testing"
)

// TestCountRemembered counts long texts twice, the second time from the
// memory of counts, and checks both against the ids.
func TestCountRemembered(t *testing.T) {
	tok, err := New("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	texts := readPassages(t, filepath.Join("testdata", "golden", "passages.jsonl"))
	for range 2 {
		for _, text := range texts {
			if got, want := tok.Count(text), len(tok.Encode(text)); got != want {
				t.Fatalf("Count = %d, want %d for %.40q", got, want, text)
			}
		}
	}
}

// TestCountMemoBounded fills the memory past two generations and checks
// it stays bounded and keeps the texts counted last.
func TestCountMemoBounded(t *testing.T) {
	c := newCountMemo()
	calls := 0
	count := func(string) int { calls++; return calls }
	text := func(i int) string { return fmt.Sprintf("%*d", memoMinLen, i) }
	n := 2*memoEntries + 100
	for i := range n {
		c.count(text(i), count)
	}
	if size := len(c.cur) + len(c.old); size > 2*memoEntries {
		t.Fatalf("%d counts held, want at most %d", size, 2*memoEntries)
	}
	before := calls
	if got := c.count(text(n-1), count); got != n || calls != before {
		t.Fatalf("last text: count %d after %d new calls, want %d from memory", got, calls-before, n)
	}
	c.count(text(0), count)
	if calls != before+1 {
		t.Fatal("the first text, two generations old, was still remembered")
	}
	if got := c.count("short", count); got != calls || c.count("short", count) == got {
		t.Fatal("a short text was remembered")
	}
}
