package report

import (
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/input"
)

func TestStagesInputs(t *testing.T) {
	file := func(name string) *input.File { return input.FromBytes(name, nil) }
	for _, tt := range []struct {
		name   string
		files  []*input.File
		roles  []string
		format input.Format
		traces []*systems.Input
		want   string
	}{
		{"judgments and topics", []*input.File{file("q"), file("t")}, []string{"judgments", "topics"}, input.FormatTREC, nil, "judgments q trec|topics t jsonl"},
		{"with corpus and traces", []*input.File{file("q"), file("t"), file("c")}, []string{"judgments", "topics", "corpus"}, input.FormatTREC,
			[]*systems.Input{{File: file("x"), Format: "jsonl"}, {File: file("y"), Format: "otlp"}},
			"judgments q trec|topics t jsonl|corpus c jsonl|traces x jsonl|traces y otlp"},
		{"judgments unread", []*input.File{file("q")}, []string{"judgments"}, "", nil, "judgments q jsonl"},
		// The assignments were read before the topics; no corpus.
		{"nugget assignments", []*input.File{file("q"), file("a"), file("t")}, []string{"judgments", "nugget_assignments", "topics"}, input.FormatTREC, nil,
			"judgments q trec|nugget_assignments a jsonl|topics t jsonl"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, in := range StagesInputs(tt.files, tt.roles, tt.format, tt.traces, nil) {
				got = append(got, in.Role+" "+in.Path+" "+in.Format)
				if in.Mapping != nil {
					t.Errorf("%s: a mapping, none kept", in.Path)
				}
			}
			if strings.Join(got, "|") != tt.want {
				t.Errorf("got %q, want %q", strings.Join(got, "|"), tt.want)
			}
		})
	}
}
