package stagescmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/evalemit"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/sharedtest"
)

// TestRun runs the demo's pipeline through Run: what the
// report records, the per-query file put in place only after the report,
// the violations, and the settings refused before anything is read.
func TestRun(t *testing.T) {
	dir := "../demo/fixtures/pipeline"
	tmp := t.TempDir()
	exists := sharedtest.WriteFile(t, tmp, "exists.jsonl", "x\n")
	errRender := errors.New("stdout closed")
	tests := []struct {
		name       string
		set        func(*Run)
		failRender bool
		errHas     string // "" for success
		digests    bool   // the inputs carry their SHA-256
		records    string // the per-query file written, "" for none
		emitted    string // the evaluations file written, "" for none
		violations int
		full       bool // the result lists every query (not stages.Options.Summary)
	}{
		{name: "table", set: func(r *Run) {}},
		{name: "table per query", set: func(r *Run) { r.PerQuery = true }, full: true},
		{name: "json", set: func(r *Run) { r.Format = "json" }, digests: true, full: true},
		{name: "violations", set: func(r *Run) { r.FailOnViolation = true }, violations: 1},
		{name: "per-query file", set: func(r *Run) { r.PerQueryOut = filepath.Join(tmp, "records.jsonl") },
			records: filepath.Join(tmp, "records.jsonl")},
		{name: "per-query file, render fails", set: func(r *Run) { r.PerQueryOut = filepath.Join(tmp, "lost.jsonl") },
			failRender: true, errHas: errRender.Error()},
		{name: "per-query file exists", set: func(r *Run) { r.PerQueryOut = exists }, errHas: "the file exists"},
		{name: "subtopics refused", set: func(r *Run) { r.Subtopics = "s.txt" }, errHas: "subtopics"},
		{name: "emit file", set: func(r *Run) { r.Emit, r.EmitOut = evalemit.Langfuse, filepath.Join(tmp, "scores.jsonl") },
			digests: true, emitted: filepath.Join(tmp, "scores.jsonl")},
		{name: "emit file, render fails", set: func(r *Run) { r.Emit, r.EmitOut = evalemit.OTLP, filepath.Join(tmp, "lost-scores.jsonl") },
			failRender: true, errHas: errRender.Error()},
		{name: "emit nowhere", set: func(r *Run) { r.Emit = evalemit.OTLP }, errHas: "needs EmitOut or EmitTo"},
		{name: "emit file without a format", set: func(r *Run) { r.EmitOut = filepath.Join(tmp, "none.jsonl") }, errHas: "needs EmitOut or EmitTo"},
		{name: "emit langfuse to an endpoint", set: func(r *Run) {
			r.Emit, r.EmitTo = evalemit.Langfuse, &evalemit.Endpoint{URL: "http://127.0.0.1:1"}
		},
			errHas: "not an OTLP form"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := Run{Stages: settings.Stages{Eval: settings.Eval{Judgments: filepath.Join(dir, "judgments.jsonl"), MinGrade: 1},
				Topics: filepath.Join(dir, "topics.jsonl"), Corpus: filepath.Join(dir, "corpus.jsonl"), Tokenizer: "o200k_base"},
				Traces: []string{filepath.Join(dir, "traces-v1.jsonl"), filepath.Join(dir, "traces-v2.jsonl")}, Format: "table", Version: "v"}
			tt.set(&run)
			presets := 0
			var rep *report.Stages
			violations, err := run.Run(World{
				Files:   settings.Files{Open: func(path string) (*input.File, error) { return input.Open(path, nil) }},
				Formats: func(*corpus.Corpus) ([]systems.TraceReader, error) { return nil, nil },
				Preset:  func([]string) { presets++ },
			}, func(r *report.Stages) error {
				rep = r
				if tt.failRender {
					return errRender
				}
				return nil
			})
			if run.PerQueryOut != "" && run.PerQueryOut != exists {
				if _, serr := os.Stat(run.PerQueryOut); (serr == nil) != (tt.records != "") {
					t.Errorf("per-query file there: %v, want %v", serr == nil, tt.records != "")
				}
			}
			if run.EmitOut != "" {
				if _, serr := os.Stat(run.EmitOut); (serr == nil) != (tt.emitted != "") {
					t.Errorf("evaluations file there: %v, want %v", serr == nil, tt.emitted != "")
				}
			}
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("error %v, want one holding %q", err, tt.errHas)
				}
				var oe *diag.OptionError
				if errors.As(err, &oe) && presets != 0 {
					t.Errorf("preset told %d times before a refused setting", presets)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if presets != 1 || rep == nil || rep.Tool != "ragstat" || rep.Version != "v" || len(rep.Inputs) != 5 {
				t.Fatalf("preset told %d times, report %+v", presets, rep)
			}
			if got := rep.Inputs[4].SHA256 != ""; got != tt.digests {
				t.Errorf("digests %v, want %v", got, tt.digests)
			}
			// The table of sums holds what the bounded mode holds, with or
			// without a per-query file: memory flat in the traces.
			for _, sys := range rep.Result.Systems {
				if sys.Summary == tt.full {
					t.Errorf("system %s: summary %v, want %v", sys.Name, sys.Summary, !tt.full)
				}
			}
			if len(violations) != tt.violations {
				t.Errorf("violations %q, want %d", violations, tt.violations)
			}
			if tt.records != "" {
				data, err := os.ReadFile(tt.records)
				if err != nil || strings.Count(string(data), "\n") != 8 {
					t.Errorf("%d records, %v; want 8", strings.Count(string(data), "\n"), err)
				}
			}
		})
	}
}
