package intervenecmd

import (
	"bytes"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/demo"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/sharedtest"
	"github.com/ragstat/ragstat/intervene"
	"github.com/ragstat/ragstat/trace"
)

// fixtures are the demo's pipeline files.
const fixtures = "../demo/fixtures/pipeline"

// TestJobRun runs a Job over the demo's pipeline files with each source of
// answers: an endpoint, a batch file written, and the settings refused.
func TestJobRun(t *testing.T) {
	srv := httptest.NewServer(demo.ReaderHandler())
	defer srv.Close()
	tmp := t.TempDir()
	exists := sharedtest.WriteFile(t, tmp, "exists.jsonl", "x\n")
	tests := []struct {
		name    string
		set     func(*Job)
		option  bool   // the error is a diag.OptionError
		errHas  string // "" for success
		batch   bool   // a batch file is written
		noteHas string
	}{
		{name: "endpoint", set: func(j *Job) { j.Endpoint.URL = srv.URL + "/v1" }, noteHas: "generator: " + srv.URL},
		{name: "write batch", set: func(j *Job) { j.WriteBatch = filepath.Join(tmp, "batch.jsonl") }, batch: true},
		{name: "both batches", set: func(j *Job) { j.WriteBatch, j.ReadBatch = "a", "b" }, option: true,
			errHas: "write_batch and read_batch: give one"},
		{name: "no endpoint", set: func(j *Job) {}, option: true, errHas: "give endpoint URL"},
		{name: "batch over a file", set: func(j *Job) { j.WriteBatch = exists }, errHas: "the file exists"},
		{name: "batch over an input", set: func(j *Job) { j.WriteBatch, j.Force = j.Topics, true },
			errHas: "is the same file as the input --topics"},
		{name: "bad tokenizer", set: func(j *Job) { j.Tokenizer = "nope" }, errHas: "nope"},
		{name: "min grade 0", set: func(j *Job) { j.MinGrade = 0 }, option: true, errHas: "must be a positive grade on the scale 0..3"},
		{name: "min grade above the scale", set: func(j *Job) { j.MinGrade = 9 }, option: true, errHas: "must be a positive grade on the scale 0..3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := Job{Judgments: filepath.Join(fixtures, "judgments.jsonl"), Topics: filepath.Join(fixtures, "topics.jsonl"),
				Corpus: filepath.Join(fixtures, "corpus.jsonl"), Tokenizer: "o200k_base", MinGrade: 1, KeyEnv: "KEY", NoCache: true,
				Traces:   []string{filepath.Join(fixtures, "traces-v1.jsonl"), filepath.Join(fixtures, "traces-v2.jsonl")},
				Settings: intervene.Settings{Model: "reader-1"}}
			tt.set(&j)
			var stdout bytes.Buffer
			out, err := j.Run(World{Stdout: &stdout, Getenv: func(string) string { return "k" },
				Files:   settings.Files{Open: func(path string) (*input.File, error) { return input.Open(path, nil) }},
				Formats: func(*corpus.Corpus) ([]systems.TraceReader, error) { return nil, nil }})
			if tt.errHas != "" {
				var oe *diag.OptionError
				if err == nil || !strings.Contains(err.Error(), tt.errHas) || errors.As(err, &oe) != tt.option {
					t.Fatalf("error %v, want one holding %q (an OptionError: %v)", err, tt.errHas, tt.option)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if out.Result == nil || len(out.Sources.Traces) != 2 {
				t.Fatalf("no result or not every trace file: %+v", out)
			}
			if got := strings.Join(out.Notes, "\n"); !strings.Contains(got, tt.noteHas) {
				t.Errorf("notes %q, want %q", got, tt.noteHas)
			}
			if (out.Batch != nil) != tt.batch {
				t.Fatalf("batch %v, want one: %v", out.Batch, tt.batch)
			}
			if tt.batch {
				data, err := os.ReadFile(j.WriteBatch)
				if err != nil || out.Batch.Len() == 0 || bytes.Count(data, []byte("\n")) != out.Batch.Len() {
					t.Errorf("batch file of %d lines, want %d (%v)", bytes.Count(data, []byte("\n")), out.Batch.Len(), err)
				}
			}
		})
	}
}

// TestGather: traces scanned in any order come back by file, line,
// system and query.
func TestGather(t *testing.T) {
	in := []*trace.Trace{{File: "b", Line: 1}, {File: "a", Line: 2}, {File: "a", Line: 1, Query: "q2"}, {File: "a", Line: 1, Query: "q1"}}
	got, err := gather(func(fn func(*trace.Trace) error) error {
		for _, t := range in {
			if err := fn(t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, tr := range got {
		order = append(order, tr.File+tr.Query)
	}
	if strings.Join(order, " ") != "aq1 aq2 a b" {
		t.Errorf("order %v", order)
	}
}
