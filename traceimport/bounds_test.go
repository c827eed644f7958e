package traceimport

import (
	"math"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
)

// TestTokenCountBounds walks a generator span's reported token count with
// the bounds of what a stage holds: up to 2^31-1 it is kept exactly; past
// it, negative, fractional or not a number, it is left out and reported as
// a problem naming the attribute, the value and the limit, never wrapped
// or dropped in silence.
func TestTokenCountBounds(t *testing.T) {
	ctx := "text of d1, long enough to be found"
	for _, c := range []struct {
		name  string
		value any
		kept  string // the reported_tokens written, "" when left out
	}{
		{"max", int64(math.MaxInt32), `"reported_tokens":2147483647`},
		{"zero", int64(0), `"reported_tokens":0`},
		{"a number in a string", "12", `"reported_tokens":12`},
		{"max+1", int64(math.MaxInt32) + 1, ""},
		{"int64 max", int64(math.MaxInt64), ""},
		{"negative", int64(-1), ""},
		{"fraction", 1.5, ""},
		{"huge", 1e300, ""},
		{"not a number", "many", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			gen := llm("A", "a2", "a0", 10, ctx, "x")
			gen.attrs["llm.token_count.prompt"] = c.value
			lines := otlp(t, root("A", "a0", 20, "q"), retriever("A", "a1", "a0", "r", 5, "d1"), gen)
			out, man, err := run(t, OTLP, Mapping{}, input.FromBytes("p.jsonl", []byte(lines)))
			if err != nil {
				t.Fatal(err)
			}
			var found *Problem
			for i := range man.Problems {
				if man.Problems[i].Kind == BadTokens {
					found = &man.Problems[i]
				}
			}
			if c.kept != "" {
				if !strings.Contains(out, c.kept) || found != nil {
					t.Errorf("want %s and no problem, got %v in\n%s", c.kept, man.Problems, out)
				}
				return
			}
			if strings.Contains(out, "reported_tokens") {
				t.Errorf("a count written:\n%s", out)
			}
			if found == nil || found.First != "p.jsonl:1" || !strings.Contains(strings.Join(found.Names, ";"), "llm.token_count.prompt") ||
				!strings.Contains(strings.Join(found.Names, ";"), "from 0 to 2147483647") {
				t.Errorf("want a %q problem at p.jsonl:1 naming the attribute and the limit, got %+v", BadTokens, man.Problems)
			}
		})
	}
}
