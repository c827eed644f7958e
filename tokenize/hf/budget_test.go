package hf

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// splitWith is tiny with its pre-tokenizer a Split on the regular
// expression re.
func splitWith(re string) string {
	return with(`{"type": "WhitespaceSplit"}`, `{"type": "Split", "pattern": {"Regex": `+strconv.Quote(re)+`}, "behavior": "Isolated"}`)
}

// catastrophic are Split patterns the shape check lets through (no
// variable repetition inside an unbounded one) that a backtracking matcher
// takes seconds to minutes on 3,001 bytes: overlapping adjacent
// repetitions, an overlapping alternation under a bounded repetition, and
// nested bounded repetitions.
var catastrophic = []string{`a*a*a*a*a*a*b`, `(?:a|aa){0,3000}b`, `((a{1,60}){1,60}){1,60}b`}

// TestSplitBudget: matching a catastrophic pattern on a hostile text stops
// at the budget and becomes the tokenizer's Err; the same tokenizer on a
// harmless text, and harmless patterns, have none.
func TestSplitBudget(t *testing.T) {
	hostile := strings.Repeat("a", 3000) + "!"
	for _, re := range catastrophic {
		tok, err := Parse([]byte(splitWith(re)))
		if err != nil {
			t.Fatalf("%s: %v", re, err)
		}
		tok.Count("ab ab")
		if err := tok.Err(); err != nil {
			t.Errorf("%s: a short text: %v", re, err)
		}
		tok.Count(hostile)
		err = tok.Err()
		if err == nil || !strings.Contains(err.Error(), "took longer than its budget") || !strings.Contains(err.Error(), strconv.Quote(re)) {
			t.Errorf("%s: Err() = %v, want the budget named with the pattern", re, err)
		}
		if special, err := tok.WithSpecialTokens(); err == nil && special.Err() == nil {
			t.Errorf("%s: the copy WithSpecialTokens makes lost the error", re)
		}
	}
	tok, err := Parse([]byte(splitWith(`[a-z]+(?:-[a-z]+)?|\s+(?!\S)`)))
	if err != nil {
		t.Fatal(err)
	}
	tok.Count(hostile)
	if err := tok.Err(); err != nil {
		t.Errorf("a harmless pattern: %v", err)
	}
}

// nestedPatterns generates n regular expressions of nested and overlapping
// alternations and repetitions, the shapes that make a backtracking
// matcher slow, for the fuzz corpus.
func nestedPatterns(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	atoms := []string{"a", "aa", "a?", `\w`, ".", "[ab]", "b"}
	quants := []string{"*", "+", "?", "{0,30}", "{1,9}", "{2}", "*?"}
	var gen func(depth int) string
	gen = func(depth int) string {
		if depth == 0 {
			return atoms[r.IntN(len(atoms))]
		}
		switch r.IntN(3) {
		case 0: // an alternation whose branches overlap
			k := 2 + r.IntN(2)
			alts := make([]string, k)
			for i := range alts {
				alts[i] = gen(depth - 1)
			}
			return "(?:" + strings.Join(alts, "|") + ")" + quants[r.IntN(len(quants))]
		case 1: // a repetition of a repetition
			return "(" + gen(depth-1) + quants[r.IntN(len(quants))] + ")" + quants[r.IntN(len(quants))]
		default: // adjacent overlapping repetitions
			return gen(depth-1) + quants[r.IntN(len(quants))] + gen(depth-1) + quants[r.IntN(len(quants))]
		}
	}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s(?:b|$)", gen(1+r.IntN(3)))
	}
	return out
}
