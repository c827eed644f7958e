package parquetio

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/sharedtest"
	"github.com/ragstat/ragstat/report"
)

func TestEvalRequest(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return sharedtest.WriteFile(t, dir, name, text) }
	qrels := write("qrels.txt", "q1 0 a 1\nq1 0 b 0\nq2 0 a 1\n")
	run := write("a.txt", "q1 Q0 a 1 2 a\nq1 Q0 b 2 1 a\nq2 Q0 a 1 1 a\n")
	existing := write("existing.jsonl", "old\n")
	files := eval.Files{Open: func(p string) (*input.File, error) { return input.Open(p, nil) }}
	tests := []struct {
		name   string
		change func(*EvalRequest)
		err    string // as a command line writes it
		rows   bool   // rep.PerQuery
		shard  bool   // rep.Shard is set
		out    string // what PerQueryOut holds, in part
	}{
		{"plain", func(*EvalRequest) {}, "", true, false, ""},
		{"summary", func(r *EvalRequest) { r.Summary = true }, "", false, false, ""},
		{"rows and summary", func(r *EvalRequest) { r.PerQuery, r.Summary = true, true }, "--per-query and --summary exclude each other", false, false, ""},
		{"stage cutoff", func(r *EvalRequest) { r.StageCutoffs = map[string]int{"reranked": 10} },
			"-k NAME=K sets a stage's cutoff and applies to ragstat stages; eval takes -k K", false, false, ""},
		{"bad shard", func(r *EvalRequest) { r.Shard = "2/2" }, "2/2", false, false, ""},
		{"shard", func(r *EvalRequest) { r.Shard = "0/1" }, "", true, true, ""},
		{"missing run", func(r *EvalRequest) { r.Runs = []string{filepath.Join(dir, "nope")} }, "nope", false, false, ""},
		{"per-query file", func(r *EvalRequest) { r.PerQueryOut = filepath.Join(dir, "rows.jsonl") }, "", true, false, `"query":"q2"`},
		{"per-query file exists", func(r *EvalRequest) { r.PerQueryOut = existing }, "the file exists", true, false, "old"},
		{"per-query file forced", func(r *EvalRequest) { r.PerQueryOut, r.Force = existing, true }, "", true, false, `"query":"q1"`},
		{"per-query file is the run", func(r *EvalRequest) { r.PerQueryOut = run }, "is the same file as the input run", true, false, "q1 Q0 a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := EvalRequest{Settings: eval.Settings{Judgments: qrels}, Runs: []string{run}}
			tt.change(&r)
			src, err := r.Open(files, nil)
			defer src.Close()
			rep := &report.Eval{}
			var stdout bytes.Buffer
			if err == nil {
				err = src.Evaluate(rep, &stdout)
			}
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(fmt.Sprint(diag.Flagged(err)), tt.err)) {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
			if tt.err != "" && rep.Results == nil {
				return
			}
			if rep.PerQuery != tt.rows || (rep.Shard != nil) != tt.shard || len(rep.Results) != 1 {
				t.Errorf("rows %v, shard %+v, %d results", rep.PerQuery, rep.Shard, len(rep.Results))
			}
			if tt.out != "" {
				if got, _ := os.ReadFile(r.PerQueryOut); !strings.Contains(string(got), tt.out) {
					t.Errorf("%s holds %q, want %q in it", r.PerQueryOut, got, tt.out)
				}
			}
		})
	}
}
