package hf

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dlclark/regexp2"
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
// nested bounded repetitions. The last two are past the repetition counts
// Go's regexp accepts, so they go to regexp2, as every pattern with a
// lookahead does.
var catastrophic = []string{`a*a*a*a*a*a*b`, `(?:a|aa){0,3000}b`, `((a{1,60}){1,60}){1,60}b`}

// linearShapes are catastrophic shapes that Go's regexp matches in linear
// time, exactly.
var linearShapes = []string{`a*a*a*a*a*a*b`, `(?:a|aa){0,300}b`, `((a{1,9}){1,9}){1,9}b`}

func lookahead(re string) string { return strings.TrimSuffix(re, "b") + "(?=b)" }

// TestSplitBudget: shapes that Go's regexp takes are matched exactly and
// without error; the others, and any with a lookahead, stop at the budget
// on a hostile text, which becomes the tokenizer's Err; the same tokenizer
// on a harmless text, and harmless patterns, have none.
func TestSplitBudget(t *testing.T) {
	hostile := strings.Repeat("a", 3000) + "!"
	for _, re := range linearShapes {
		if _, ok := linear(re); !ok {
			t.Errorf("%s: not matched in linear time", re)
		}
		tok, err := Parse([]byte(splitWith(re)))
		if err != nil {
			t.Fatalf("%s: %v", re, err)
		}
		if n := tok.Count(hostile + "b"); n == 0 || tok.Err() != nil {
			t.Errorf("%s: count %d, error %v", re, n, tok.Err())
		}
	}
	for _, re := range append(catastrophic[1:], lookahead(catastrophic[0])) {
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
		// Past its budget once, it encodes nothing more: another hostile
		// text would cost the budget again.
		if n, ids := tok.Count(hostile), tok.Encode("ab ab"); n != 0 || len(ids) != 0 {
			t.Errorf("%s: after the error, Count = %d and Encode = %v, want nothing", re, n, ids)
		}
	}
	tok, err := Parse([]byte(splitWith(`[a-z]+(?:-[a-z]+)?|\s+(?!\S)`)))
	if err != nil {
		t.Fatal(err)
	}
	tok.Count(hostile)
	tok.Count(strings.Repeat("a", 1<<20)) // one long match: its time grows with the text's budget
	tok.Count(strings.Repeat("ab  ", 1<<15))
	if err := tok.Err(); err != nil {
		t.Errorf("a harmless pattern: %v", err)
	}
}

// TestLinear: which patterns Go's regexp matches in place of regexp2.
func TestLinear(t *testing.T) {
	for re, want := range map[string]bool{
		`[.!?]+`: true, `\p{Han}+|\p{Hiragana}+`: true, ` ?\p{L}+|\p{N}`: true, `(?:ab|a)c`: true, `[^\r\n]x`: true,
		`\s+`: false, `\d+`: false, `\w+`: false, `a\b`: false, // ASCII classes in Go
		`a*`: false, `(?:x|)`: false, `(?:a?b?)+c`: false, `(?:x|a*){2}b`: false, // the empty string, or a repetition of it
		`(?i)ab`: false, `(?si:a)b`: false, `^a`: false, `a$`: false, // case folding, anchors
		`[a-z-[aeiou]]`: false, `[[:alpha:]]`: false, `a(?=b)`: false, `(a)\1`: false,
	} {
		if _, ok := linear(re); ok != want {
			t.Errorf("linear(%s) = %v, want %v", re, ok, want)
		}
	}
}

// TestLinearAgrees: on generated patterns of nested and overlapping
// alternations and repetitions, and on texts over their characters, Go's
// regexp finds the matches regexp2 finds, wherever linear accepts the
// pattern.
func TestLinearAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	texts := []string{"", "a", "b", "ab", "aab", "abba", "a b\naé中!", "ba" + strings.Repeat("a", 14) + "b"}
	chars := []rune("ab é中\n!")
	for range 40 {
		b := make([]rune, r.IntN(20))
		for i := range b {
			b[i] = chars[r.IntN(len(chars))]
		}
		texts = append(texts, string(b))
	}
	compared := 0
	var patterns []string
	for _, p := range nestedPatterns(3, 1500) {
		patterns = append(patterns, p, p+"b", "b"+p) // a literal keeps most from matching the empty string
	}
	for _, pattern := range patterns {
		lin, ok := linear(pattern)
		if !ok {
			continue
		}
		if _, err := regexp2.Compile(pattern, regexp2.None); err != nil {
			continue
		}
		re := newRegex(pattern)
		compared++
		for _, text := range texts {
			want, ok := backtracked(re, text)
			if !ok {
				continue // past the budget: no answer to compare with
			}
			if got := (linearRegex{lin}).findAll(text); !slices.Equal(got, want) {
				t.Errorf("%s on %q: Go's regexp %v, regexp2 %v", pattern, text, got, want)
			}
		}
	}
	if compared < 300 {
		t.Errorf("only %d generated patterns compared", compared)
	}
}

// backtracked is r.findAll(s), false if it went past its budget.
func backtracked(r regex, s string) (m [][2]int, ok bool) {
	defer func() {
		if x := recover(); x != nil {
			if _, budget := x.(matchFailure); !budget {
				panic(x)
			}
			ok = false
		}
	}()
	return r.findAll(s), true
}

// nestedPatterns generates n regular expressions of nested and overlapping
// alternations and repetitions, the shapes that make a backtracking
// matcher slow, for the fuzz corpus.
func nestedPatterns(seed uint64, n int) []string {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	atoms := []string{"a", "aa", "a?", `\w`, ".", "[ab]", "b", `\p{L}`, "[^a]", "é", "(?:b|ab)"}
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
		if r.IntN(2) == 0 {
			out[i] = fmt.Sprintf("%s(?:b|$)", gen(1+r.IntN(3)))
		} else {
			out[i] = gen(1 + r.IntN(3))
		}
	}
	return out
}
