package hf

import (
	"errors"
	"fmt"
	"math/bits"
	"regexp"
	gosyntax "regexp/syntax"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	"github.com/dlclark/regexp2/syntax"

	"github.com/ragstat/ragstat/tokenize/internal/pieces"
)

// span is a part of a string that a pattern matched or did not match.
type span struct {
	start, end int
	match      bool
}

// finder finds the non-overlapping matches of a pattern, leftmost first,
// as [start, end) byte offsets.
type finder interface {
	findAll(s string) [][2]int
}

// newFinder compiles a tokenizer.json pattern: {"String": ...} is literal
// text, {"Regex": ...} a regular expression.
func newFinder(p *patternJSON) (finder, error) {
	switch {
	case p == nil || p.String == nil && p.Regex == nil:
		return nil, fmt.Errorf("pattern needs String or Regex")
	case p.String != nil:
		return literal(*p.String), nil
	}
	if sc, ok := pieces.For(*p.Regex); ok {
		return scanner(sc), nil
	}
	if _, err := regexp2.Compile(*p.Regex, regexp2.None); err != nil {
		return nil, fmt.Errorf("regex %q: %w", *p.Regex, err)
	}
	if err := checkBacktracking(*p.Regex); err != nil {
		return nil, fmt.Errorf("regex %q: %w", *p.Regex, err)
	}
	if lin, ok := linear(*p.Regex); ok {
		return linearRegex{lin}, nil
	}
	return newRegex(*p.Regex), nil
}

// linear compiles pattern with Go's regexp, whose matching time is linear
// in the text's length, when its matches are those regexp2 finds: the
// pattern parses in Go's syntax and uses nothing whose meaning differs
// between the two. Refused: the classes \d \w \s and \b and their
// negations (ASCII in Go, Unicode in regexp2), anchors ($ also matches
// before a final newline in regexp2), case folding (a few characters fold
// differently), class subtraction and POSIX classes (regexp2 reads them
// otherwise), and patterns that match the empty string (the two step past
// an empty match differently). Lookarounds and backreferences do not parse
// in Go's syntax. Both read \p{...} from Go's Unicode tables, and both
// choose among alternatives and repetitions as a backtracking matcher
// does, leftmost first.
func linear(pattern string) (*regexp.Regexp, bool) {
	if strings.Contains(pattern, "-[") || strings.Contains(pattern, "[:") || caseFlag.MatchString(pattern) {
		return nil, false
	}
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == '\\' && i+1 < len(pattern) {
			if strings.IndexByte("dDwWsSbBAzZG", pattern[i+1]) >= 0 {
				return nil, false
			}
			i++
		}
	}
	tree, err := gosyntax.Parse(pattern, gosyntax.Perl)
	if err != nil || !portable(tree) {
		return nil, false
	}
	re, err := regexp.Compile(pattern)
	if err != nil || re.MatchString("") {
		return nil, false
	}
	return re, true
}

// caseFlag finds a group turning on case folding, (?i) or (?si:...):
// Go's parser folds a class's ranges at once, leaving no mark portable sees.
var caseFlag = regexp.MustCompile(`\(\?[a-zA-Z-]*i`)

// portable reports whether a parsed Go pattern holds no anchor, no case
// folding and no repetition of what may match the empty string (Go's
// matcher and a backtracking one count such iterations differently: on
// (?:.*?x{0,3}|y){1,9}b they find other matches).
func portable(re *gosyntax.Regexp) bool {
	switch re.Op {
	case gosyntax.OpBeginLine, gosyntax.OpEndLine, gosyntax.OpBeginText, gosyntax.OpEndText,
		gosyntax.OpWordBoundary, gosyntax.OpNoWordBoundary:
		return false
	case gosyntax.OpStar, gosyntax.OpPlus, gosyntax.OpQuest, gosyntax.OpRepeat:
		if mayBeEmpty(re.Sub[0]) {
			return false
		}
	}
	if re.Flags&gosyntax.FoldCase != 0 {
		return false
	}
	for _, sub := range re.Sub {
		if !portable(sub) {
			return false
		}
	}
	return true
}

// mayBeEmpty reports whether re can match the empty string (it holds no
// anchor: portable refuses them).
func mayBeEmpty(re *gosyntax.Regexp) bool {
	switch re.Op {
	case gosyntax.OpEmptyMatch, gosyntax.OpStar, gosyntax.OpQuest:
		return true
	case gosyntax.OpLiteral:
		return len(re.Rune) == 0
	case gosyntax.OpCapture, gosyntax.OpPlus:
		return mayBeEmpty(re.Sub[0])
	case gosyntax.OpRepeat:
		return re.Min == 0 || mayBeEmpty(re.Sub[0])
	case gosyntax.OpConcat:
		for _, sub := range re.Sub {
			if !mayBeEmpty(sub) {
				return false
			}
		}
		return true
	case gosyntax.OpAlternate:
		for _, sub := range re.Sub {
			if mayBeEmpty(sub) {
				return true
			}
		}
		return false
	}
	return false // a class, any character, a nonempty literal
}

// linearRegex matches a pattern that linear accepted, in linear time.
type linearRegex struct{ re *regexp.Regexp }

func (r linearRegex) findAll(s string) [][2]int {
	var out [][2]int
	for _, m := range r.re.FindAllStringIndex(s, -1) {
		out = append(out, [2]int{m[0], m[1]})
	}
	return out
}

// checkBacktracking refuses at once a pattern where an unbounded repetition holds
// another repetition of variable length or an alternation, such as (a+)+ or
// (a|aa)*: a backtracking matcher can take time exponential in the text's
// length on them ((a+)+$ takes seconds on 26 characters). It reads the
// parser's tree dump, one node a line, indented by depth. Other shapes
// backtrack too (a*a*a*b, (?:a|aa){0,3000}b, nested bounded repetitions):
// what bounds the time of every pattern is regex's budget.
func checkBacktracking(pattern string) error {
	tree, err := syntax.Parse(pattern, syntax.RegexOptions(regexp2.None))
	if err != nil {
		return err
	}
	type open struct {
		depth     int
		unbounded bool
	}
	var stack []open
	for _, line := range strings.Split(tree.Dump(), "\n") {
		node := strings.TrimLeft(line, " ")
		if node == "" {
			continue
		}
		depth := len(line) - len(node)
		for len(stack) > 0 && stack[len(stack)-1].depth >= depth {
			stack = stack[:len(stack)-1]
		}
		variable := strings.HasPrefix(node, "Alternate") || repeats(node) && !strings.Contains(node, "Max = 1)") && !fixedCount(node)
		if variable && slices.ContainsFunc(stack, func(o open) bool { return o.unbounded }) {
			return errors.New("a repetition inside an unbounded repetition can take exponential time to match; rewrite it without the nesting")
		}
		stack = append(stack, open{depth, repeats(node) && strings.Contains(node, "Max = inf")})
	}
	return nil
}

// repeats reports whether a dumped node is a repetition: Loop, Lazyloop,
// Oneloop, Setlazy and the like.
func repeats(node string) bool {
	name, _, _ := strings.Cut(node, "(")
	return strings.HasSuffix(name, "loop") || strings.HasSuffix(name, "lazy") || name == "Loop" || name == "Lazyloop"
}

// fixedCount reports a repetition whose Min equals its Max, such as a{3}.
func fixedCount(node string) bool {
	i := strings.Index(node, "(Min = ")
	if i < 0 {
		return false
	}
	var lo, hi string
	if _, err := fmt.Sscanf(node[i:], "(Min = %s Max = %s", &lo, &hi); err != nil {
		return false
	}
	return strings.TrimSuffix(lo, ",") == strings.TrimSuffix(hi, ")")
}

// literal matches a fixed string; the empty string matches nothing.
type literal string

func (l literal) findAll(s string) [][2]int {
	var out [][2]int
	if l == "" {
		return nil
	}
	for i := 0; ; {
		j := strings.Index(s[i:], string(l))
		if j < 0 {
			return out
		}
		out = append(out, [2]int{i + j, i + j + len(l)})
		i += j + len(l)
	}
}

// scanner matches a split pattern with its hand-written scanner.
type scanner pieces.Scanner

func (sc scanner) findAll(s string) [][2]int {
	var out [][2]int
	pieces.Scanner(sc).Each(s, func(p string) bool {
		start := 0
		if len(out) > 0 {
			start = out[len(out)-1][1]
		}
		out = append(out, [2]int{start, start + len(p)})
		return true
	})
	return out
}

// regex matches any other regular expression, with regexp2: a
// backtracking matcher, as Hugging Face's is, which some patterns keep busy
// for a time exponential or polynomial in a text's length. So matching a
// text has a budget, matchBudget plus budgetPerChar a character (wall
// time, generous so that a loaded machine does not run out of it): no one
// match may take longer, nor all the matches together. A text past it is
// not encoded: findAll panics with a matchFailure, which the Tokenizer
// turns into its Err. regexp2 sets a match's limit when the pattern is
// compiled, so a pattern is compiled once for each budget, a power of two
// of milliseconds, that a text's length asks for.
type regex struct {
	pattern  string
	byBudget *[budgets]atomic.Pointer[regexp2.Regexp]
}

const (
	matchBudget   = 500 * time.Millisecond
	budgetPerChar = 10 * time.Microsecond
	budgets       = 48 // 2^47 ms: more than any text's budget
)

func newRegex(pattern string) regex {
	return regex{pattern, new([budgets]atomic.Pointer[regexp2.Regexp])}
}

// matcher returns the compiled pattern whose match timeout is the budget
// of a text of n characters, and that budget.
func (r regex) matcher(n int) (*regexp2.Regexp, time.Duration, error) {
	ms := (matchBudget + time.Duration(n)*budgetPerChar).Milliseconds()
	class := min(bits.Len64(uint64(ms)), budgets-1)
	budget := time.Duration(1<<class) * time.Millisecond
	if re := r.byBudget[class].Load(); re != nil {
		return re, budget, nil
	}
	re, err := regexp2.Compile(r.pattern, regexp2.None)
	if err != nil {
		return nil, 0, err
	}
	re.MatchTimeout = budget
	r.byBudget[class].CompareAndSwap(nil, re)
	return r.byBudget[class].Load(), budget, nil
}

// matchFailure is a regex past its budget.
type matchFailure struct{ err error }

func (r regex) findAll(s string) [][2]int {
	runes := []rune(s)
	offsets := make([]int, len(runes)+1)
	for i, pos := 0, 0; i < len(runes); i++ {
		pos += utf8.RuneLen(runes[i])
		offsets[i+1] = pos
	}
	re, budget, err := r.matcher(len(runes))
	var out [][2]int
	start := time.Now()
	var m *regexp2.Match
	if err == nil {
		m, err = re.FindRunesMatch(runes)
	}
	for err == nil && m != nil {
		out = append(out, [2]int{offsets[m.Index], offsets[m.Index+m.Length]})
		if time.Since(start) > budget {
			break
		}
		m, err = re.FindNextMatch(m)
	}
	if err != nil || time.Since(start) > budget {
		panic(matchFailure{fmt.Errorf("regex %q: matching a text of %d characters took longer than its budget of %v: the pattern backtracks too much on it",
			r.pattern, len(runes), budget)})
	}
	return out
}

// spansOf turns matches into spans covering all of s.
func spansOf(s string, matches [][2]int) []span {
	var out []span
	prev := 0
	for _, m := range matches {
		if m[0] > prev {
			out = append(out, span{prev, m[0], false})
		}
		out = append(out, span{m[0], m[1], true})
		prev = m[1]
	}
	if prev < len(s) {
		out = append(out, span{prev, len(s), false})
	}
	return out
}

// charSpans makes every character for which in holds a match of its own.
func charSpans(s string, in func(rune) bool) []span {
	var out []span
	prev := 0
	for i, r := range s {
		if !in(r) {
			continue
		}
		if i > prev {
			out = append(out, span{prev, i, false})
		}
		prev = i + utf8.RuneLen(r)
		out = append(out, span{i, prev, true})
	}
	if prev < len(s) {
		out = append(out, span{prev, len(s), false})
	}
	return out
}

// behavior is what a split does with the matches (SplitDelimiterBehavior).
type behavior int

const (
	removed behavior = iota
	isolated
	mergedWithPrevious
	mergedWithNext
	contiguous
)

var behaviors = map[string]behavior{
	"Removed": removed, "Isolated": isolated, "MergedWithPrevious": mergedWithPrevious,
	"MergedWithNext": mergedWithNext, "Contiguous": contiguous,
}

// cut splits p at the spans as behavior says; empty parts are dropped.
func cut(p piece, spans []span, b behavior) []piece {
	var parts []span
	switch b {
	case removed:
		for _, sp := range spans {
			if !sp.match {
				parts = append(parts, sp)
			}
		}
	case isolated:
		parts = spans
	case contiguous:
		parts = merge(spans, func(prev, cur span) bool { return prev.match == cur.match })
	case mergedWithPrevious:
		parts = merge(spans, func(prev, cur span) bool { return cur.match && !prev.match })
	case mergedWithNext:
		parts = merge(spans, func(prev, cur span) bool { return prev.match && !cur.match })
	}
	out := make([]piece, 0, len(parts))
	for _, sp := range parts {
		if sp.end > sp.start {
			out = append(out, piece{text: p.text[sp.start:sp.end], atStart: p.atStart && sp.start == 0})
		}
	}
	return out
}

// merge joins each span to the one before it when join(before, span).
// The first span's predecessor counts as a non-match.
func merge(spans []span, join func(prev, cur span) bool) []span {
	var out []span
	prev := span{match: false}
	for _, sp := range spans {
		if len(out) > 0 && join(prev, sp) {
			out[len(out)-1].end = sp.end
		} else {
			out = append(out, sp)
		}
		prev = sp
	}
	return out
}
