package diag

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{File: "f", Line: 3, Query: "q", Item: "d", Msg: "m"}, `f:3: query "q", item "d": m`},
		{Error{File: "f", Msg: "m", Hint: "h"}, `f: m (h)`},
		{Error{Query: "q", Msg: "m"}, `query "q": m`},
		{Error{Msg: "m"}, `m`},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestList(t *testing.T) {
	var l List
	if l.Err() != nil {
		t.Fatal("an empty list is an error")
	}
	one := &Error{File: "f", Line: 2, Msg: "m"}
	l.Add(nil)
	l.Add(one)
	if l.Err() != one {
		t.Errorf("one problem: %v", l.Err())
	}
	var inner List
	for i := range Max + 5 {
		inner.Add(&Error{File: "f", Line: Max + 10 - i, Msg: fmt.Sprint(i)})
	}
	if full := l.Add(&inner); !full || l.Len() != Max+6 || len(l.Errs()) != Max {
		t.Errorf("full %v, Len %d, kept %d", full, l.Len(), len(l.Errs()))
	}
	l.Sort()
	var first *Error
	if !errors.As(l.Err(), &first) || first != one {
		t.Errorf("errors.As finds %v first, want line 2", first)
	}
	if msg := l.Error(); !strings.HasSuffix(msg, "... and 6 more problems (ragstat stops after 20)") {
		t.Errorf("message ends %q", msg[strings.LastIndex(msg, "\n"):])
	}
	var exact List
	for range Max {
		exact.Add(&Error{Msg: "x"})
	}
	if !strings.HasSuffix(exact.Error(), "(ragstat stops after 20 problems)") {
		t.Error("a full list does not say reading stopped")
	}
}

// TestTally: a tally's problems count in Len though few are kept, and its
// totals follow the kept problems; an outer list takes an inner one's.
func TestTally(t *testing.T) {
	var inner List
	for i := range 3 {
		inner.Add(&Error{File: "r", Line: i + 1, Msg: "no judgment"})
	}
	inner.Tally(Tally{N: 37895, Msg: "37,895 items have no judgment", Hint: "accept them"}, 3)
	var l List
	l.Add(&Error{File: "q", Msg: "other"})
	l.Add(&inner)
	if l.Len() != 37896 || len(l.Errs()) != 4 || len(l.Tallies()) != 1 {
		t.Fatalf("Len %d, kept %d, tallies %v", l.Len(), len(l.Errs()), l.Tallies())
	}
	want := "q: other\nr:1: no judgment\nr:2: no judgment\nr:3: no judgment\n... and 37,892 more problems, counted below\nin all: 37,895 items have no judgment (accept them)"
	if got := l.Error(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	var one List
	one.Add(&Error{Msg: "x"})
	one.Tally(Tally{N: 1, Msg: "1 item"}, 1)
	if one.Err() != &one || one.Error() != "x\nin all: 1 item" {
		t.Errorf("a single tallied problem reads %q", one.Error())
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 37895: "37,895", -1234567: "-1,234,567"} {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestOptionError(t *testing.T) {
	flag := func(o string) string { return "--" + strings.ReplaceAll(o, "_", "-") }
	for _, c := range []struct {
		err         OptionError
		plain, flag string
	}{
		{OptionError{Msg: "{write_batch} and {read_batch}: give one"},
			"write_batch and read_batch: give one", "--write-batch and --read-batch: give one"},
		{OptionError{Msg: "{topics} and {out_topics} go together"},
			"topics and out_topics go together", "--topics and --out-topics go together"},
		{OptionError{Option: "close_after", Value: `"x"`, Msg: ": give a number"},
			`close_after "x": give a number`, `--close-after "x": give a number`},
		{OptionError{Scope: "policy", Option: "unjudged", Value: "{x}", Msg: "is unknown"},
			"policy: unjudged {x} is unknown", "--unjudged {x} is unknown"},
		{OptionError{Scope: "policy", Option: "queries", Msg: "is not set"}, "policy: queries is not set", "--queries is not set"},
		{OptionError{Scope: "policy", Msg: "give {doc_map} or {doc_id_pattern}, not both"},
			"policy: give doc_map or doc_id_pattern, not both", "give --doc-map or --doc-id-pattern, not both"},
		{OptionError{Option: "doc_id_pattern", Err: errors.New("no group")}, "doc_id_pattern: no group", "--doc-id-pattern: no group"},
		{OptionError{Option: "unit", Msg: "an {unclosed"}, "unit an {unclosed", "--unit an {unclosed"},
		{OptionError{Option: "stage", Msg: `: span "{Not An Option}" renamed twice`},
			`stage: span "{Not An Option}" renamed twice`, `--stage: span "{Not An Option}" renamed twice`},
		{OptionError{Msg: "{strict}: check them in " + Literal("runs/{old}/review.jsonl")},
			"strict: check them in runs/{old}/review.jsonl", "--strict: check them in runs/{old}/review.jsonl"},
		{OptionError{Msg: "a {{{x}}"}, "a {x}", "a {--x}"},
	} {
		if got := c.err.Error(); got != c.plain {
			t.Errorf("Error() = %q, want %q", got, c.plain)
		}
		if got := c.err.Named(flag); got != c.flag {
			t.Errorf("Named = %q, want %q", got, c.flag)
		}
		if got := Render(fmt.Errorf("wrapped: %w", &c.err), flag); got != c.flag {
			t.Errorf("Render = %q, want %q", got, c.flag)
		}
	}
	cause := errors.New("cause")
	if err := (&OptionError{Option: "x", Err: cause}); !errors.Is(err, cause) {
		t.Error("the cause is not unwrapped")
	}
	if plain := errors.New("plain"); Render(plain, flag) != "plain" || Render(nil, flag) != "" {
		t.Error("Render changed an error that names no option")
	}
}

// TestRenderHints: the hints of errors and of a list's problems and
// tallies name options as {name}, written as they are by Error and by the
// namer given to Render, wherever the errors are wrapped.
func TestRenderHints(t *testing.T) {
	flag := func(o string) string { return "--" + strings.ReplaceAll(o, "_", "-") }
	one := &Error{File: "q.txt", Line: 2, Msg: "looks like a run", Hint: "did you swap {judgments} and the run?"}
	var l List
	l.Add(one)
	l.Add(&Error{File: "q.txt", Line: 3, Msg: "{x} stays", Hint: "use {min_grade} {{y}"})
	l.Tally(Tally{N: 5, Msg: "5 unjudged", Hint: "accept them with {unjudged} nonrelevant"}, 2)
	for _, c := range []struct {
		err         error
		plain, flag string
	}{
		{one, "q.txt:2: looks like a run (did you swap judgments and the run?)", "q.txt:2: looks like a run (did you swap --judgments and the run?)"},
		{fmt.Errorf("reading: %w", one), "reading: q.txt:2: looks like a run (did you swap judgments and the run?)",
			"reading: q.txt:2: looks like a run (did you swap --judgments and the run?)"},
		{fmt.Errorf("all: %w", &l), "all: q.txt:2: looks like a run (did you swap judgments and the run?)\nq.txt:3: {x} stays (use min_grade {y})\n" +
			"... and 3 more problems, counted below\nin all: 5 unjudged (accept them with unjudged nonrelevant)",
			"all: q.txt:2: looks like a run (did you swap --judgments and the run?)\nq.txt:3: {x} stays (use --min-grade {y})\n" +
				"... and 3 more problems, counted below\nin all: 5 unjudged (accept them with --unjudged nonrelevant)"},
	} {
		if got := c.err.Error(); got != c.plain {
			t.Errorf("Error() = %q, want %q", got, c.plain)
		}
		if got := Render(c.err, flag); got != c.flag {
			t.Errorf("Render = %q, want %q", got, c.flag)
		}
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{32 << 30: "32 GiB", 1 << 20: "1 MiB", 1000: "1000 bytes"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}
