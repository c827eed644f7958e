package intervene

import (
	"testing"

	"github.com/ragstat/ragstat/trace"
)

func stage(text *string, items ...string) *trace.Stage {
	s := &trace.Stage{Name: trace.ContextStage, Text: text}
	for i := 0; i+1 < len(items); i += 2 {
		s.Items = append(s.Items, trace.Item{ID: items[i], Text: &items[i+1]})
	}
	return s
}

func ptr(s string) *string { return &s }

func TestLayoutOf(t *testing.T) {
	verified := []Evidence{{ID: "c", Text: "p"}, {ID: "d", Text: "q"}}
	for _, tc := range []struct {
		name, source, want string
		stage              *trace.Stage
	}{
		{"markers", "trace", "[c] p\n\n[d] q", stage(ptr("[a] alpha text\n\n[b] beta text"), "a", "alpha text", "b", "beta text")},
		{"head and tail", "trace", "Context:\n<doc id=c>p</doc>\n<doc id=d>q</doc>\nEnd",
			stage(ptr("Context:\n<doc id=a>alpha text</doc>\n<doc id=b>beta text</doc>\n<doc id=e>gamma text</doc>\nEnd"), "a", "alpha text", "b", "beta text", "e", "gamma text")},
		{"one item", "trace, separator assumed", "Sources:\n[c] p\n\n[d] q", stage(ptr("Sources:\n[a] alpha text"), "a", "alpha text")},
		{"no ids", "trace", "p\n---\nq", stage(ptr("alpha text\n---\nbeta text"), "a", "alpha text", "b", "beta text")},
		{"numbered", "default (the text between context items differs (\"\\n2. \", then \"\\n3. \"))", "[c] p\n\n[d] q",
			stage(ptr("1. alpha text\n2. beta text\n3. gamma text"), "a", "alpha text", "b", "beta text", "e", "gamma text")},
		{"no text", "default (the trace has no context text)", "[c] p\n\n[d] q", stage(nil, "a", "alpha text")},
		{"out of order", "default (context item b's text is not in the context text, in order)", "[c] p\n\n[d] q",
			stage(ptr("[b] beta text\n\n[a] alpha text"), "a", "alpha text", "b", "beta text")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := layoutOf(tc.stage)
			if l.Source != tc.source {
				t.Errorf("source %q, want %q", l.Source, tc.source)
			}
			if got := l.Format(verified); got != tc.want {
				t.Errorf("format %q, want %q", got, tc.want)
			}
		})
	}
}
