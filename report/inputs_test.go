package report

import (
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/systems"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/stages"
	"github.com/ragstat/ragstat/traceimport"
)

func TestStagesInputs(t *testing.T) {
	file := func(name string) *input.File { return input.FromBytes(name, nil) }
	trec := &judgments.Set{Format: judgments.TREC}
	for _, tt := range []struct {
		name string
		src  *stages.Sources
		want string
	}{
		{"judgments and topics", &stages.Sources{Input: stages.Input{Judgments: trec}, Files: []*input.File{file("q"), file("t")}},
			"judgments q trec|topics t jsonl"},
		{"with corpus and traces", &stages.Sources{Input: stages.Input{Judgments: trec}, Files: []*input.File{file("q"), file("t"), file("c")},
			Traces: []*systems.Input{{File: file("x"), Format: "jsonl"}, {File: file("y"), Format: "otlp"}}},
			"judgments q trec|topics t jsonl|corpus c jsonl|traces x jsonl|traces y otlp"},
		{"judgments unread", &stages.Sources{Files: []*input.File{file("q")}}, "judgments q jsonl"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, in := range StagesInputs(tt.src, &traceimport.Manifests{}) {
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
