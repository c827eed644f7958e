// Package diag holds the errors ragstat reports about its inputs: each one
// names the file and line (or JSON position), the query and the item, and
// says what to do. A List gathers up to Max of them so a user sees many
// problems at once instead of fixing them one run at a time.
package diag

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Max is how many problems a List keeps before it asks the reader to stop.
const Max = 20

// Error is one problem with one place in an input.
type Error struct {
	File  string // file name as the user gave it ("-" for standard input)
	Line  int    // 1-based line; 0 when the problem belongs to no line
	Query string // query id, when known
	Item  string // item id, when known
	Msg   string // what is wrong
	// Hint says what to do about it; may be empty. It names options as
	// {name} (see Expand), so that a command line names its flags.
	Hint string
	// Cause, when Msg is empty, says what is wrong: an error that names
	// options (an OptionError), written with them named as the hint's.
	Cause error
}

// Error formats the problem as `file:line: query "q", item "d": msg (hint)`,
// leaving out what is unknown; the hint names options as they are named.
func (e *Error) Error() string { return e.Named(nil) }

// Named is Error with the options of the hint named by name (Expand).
func (e *Error) Named(name func(option string) string) string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	var who []string
	if e.Query != "" {
		who = append(who, "query "+Quote(e.Query))
	}
	if e.Item != "" {
		who = append(who, "item "+Quote(e.Item))
	}
	if len(who) > 0 {
		b.WriteString(strings.Join(who, ", "))
		b.WriteString(": ")
	}
	msg := e.Msg
	if msg == "" && e.Cause != nil {
		msg = Render(e.Cause, name)
	}
	writeMsg(&b, msg, e.Hint, name)
	return b.String()
}

// writeMsg writes msg and, when there is one, the hint in parentheses, its
// options named by name.
func writeMsg(b *strings.Builder, msg, hint string, name func(string) string) {
	b.WriteString(msg)
	if hint != "" {
		b.WriteString(" (")
		b.WriteString(Expand(hint, name))
		b.WriteString(")")
	}
}

// MaxEcho is how many bytes of a field from the input a message repeats.
const MaxEcho = 80

// Quote quotes a field from the input for a message, as %q does, cut to
// MaxEcho bytes (on a character boundary) with "…" and its length when
// longer: a message never repeats a whole huge line.
func Quote(s string) string {
	if len(s) <= MaxEcho {
		return strconv.Quote(s)
	}
	cut := MaxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

// List collects problems. The zero value is ready to use; it is not safe for
// concurrent use (callers that collect from several goroutines lock around it).
type List struct {
	errs    []error
	total   int
	tallies []Tally
}

// Tally is the total of one kind of problem, every one counted though only
// a few are kept in detail: a count that counts them all.
type Tally struct {
	N    int    // how many problems of the kind
	Msg  string // the totals in words: "37,895 returned items in 43 queries have no judgment"
	Hint string // what would fix or accept them, options as {name}; may be empty
}

// Tally records the total of one kind of problem, printed after the kept
// problems. Of its N problems, shown were passed to Add (to be kept in
// detail, up to Max); the rest are counted here without being kept.
func (l *List) Tally(t Tally, shown int) {
	l.total += t.N - shown
	l.tallies = append(l.tallies, t)
}

// Unjudged is the tally of returned items without a judgment, in so many
// queries, with the unjudged policies that would accept them: eval's and
// stages' problem of a run or trace that returns unjudged items.
func Unjudged(items, queries int) Tally {
	in := "queries"
	if queries == 1 {
		in = "query"
	}
	msg := fmt.Sprintf("%s returned items in %s %s have no judgment", Count(items), Count(queries), in)
	if items == 1 {
		msg = "1 returned item in 1 query has no judgment"
	}
	return Tally{N: items, Msg: msg, Hint: "judge them, or accept them with {unjudged} nonrelevant|skip|bounds, or {like} trec_eval"}
}

// Tallies returns the totals recorded with Tally.
func (l *List) Tallies() []Tally { return l.tallies }

// Add records err (a nil err is ignored) and reports whether the list is now
// full, in which case the caller should stop reading.
func (l *List) Add(err error) (full bool) {
	if err == nil {
		return l.Full()
	}
	var inner *List
	if errors.As(err, &inner) && inner != l {
		for _, e := range inner.errs {
			l.Add(e)
		}
		l.total += inner.total - len(inner.errs)
		l.tallies = append(l.tallies, inner.tallies...)
		return l.Full()
	}
	l.total++
	if len(l.errs) < Max {
		l.errs = append(l.errs, err)
	}
	return l.Full()
}

// Full reports whether Max problems have been recorded.
func (l *List) Full() bool { return l.total >= Max }

// Len is the number of problems recorded, including those past Max.
func (l *List) Len() int { return l.total }

// Errs returns the kept problems.
func (l *List) Errs() []error { return l.errs }

// Sort orders the kept problems by file and line, so output does not depend
// on the order in which parallel readers found them.
func (l *List) Sort() {
	slices.SortStableFunc(l.errs, func(a, b error) int {
		fa, la := position(a)
		fb, lb := position(b)
		return cmp.Or(cmp.Compare(fa, fb), cmp.Compare(la, lb))
	})
}

func position(err error) (string, int) {
	var e *Error
	if errors.As(err, &e) {
		return e.File, e.Line
	}
	return "", 0
}

// Err returns nil when nothing was recorded, the single error when there is
// one, and the List itself otherwise.
func (l *List) Err() error {
	switch {
	case l.total == 0:
		return nil
	case l.total == 1 && len(l.errs) == 1 && len(l.tallies) == 0:
		return l.errs[0]
	}
	return l
}

// Error prints one problem a line, says how many were left out or that
// reading stopped, and then each tally's totals.
func (l *List) Error() string { return l.Named(nil) }

// Named is Error with the options of every problem named by name.
func (l *List) Named(name func(option string) string) string {
	var b strings.Builder
	for i, e := range l.errs {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(Render(e, name))
	}
	switch {
	case l.total > len(l.errs) && len(l.tallies) > 0:
		fmt.Fprintf(&b, "\n... and %s more problems, counted below", Count(l.total-len(l.errs)))
	case l.total > len(l.errs):
		fmt.Fprintf(&b, "\n... and %s more problems (ragstat stops after %d)", Count(l.total-len(l.errs)), Max)
	case l.Full() && len(l.tallies) == 0:
		fmt.Fprintf(&b, "\n(ragstat stops after %d problems)", Max)
	}
	for _, t := range l.tallies {
		b.WriteString("\nin all: ")
		writeMsg(&b, t.Msg, t.Hint, name)
	}
	return b.String()
}

// Count writes n with its thousands grouped by commas: 37,895.
func Count(n int) string {
	s := strconv.Itoa(n)
	digits := strings.TrimPrefix(s, "-")
	var b strings.Builder
	b.WriteString(s[:len(s)-len(digits)])
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Unwrap exposes the kept problems to errors.Is and errors.As.
func (l *List) Unwrap() []error { return l.errs }

// Size writes a size in bytes in the largest binary unit that divides it
// ("64 MiB"), for messages that name a limit.
func Size(n int64) string {
	for i := 4; i > 0; i-- {
		if unit := int64(1) << (10 * i); n%unit == 0 {
			return fmt.Sprintf("%d %ciB", n/unit, "KMGT"[i-1])
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
