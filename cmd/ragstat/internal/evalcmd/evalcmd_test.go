package evalcmd

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/flagname"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/parquettest"
	"github.com/ragstat/ragstat/internal/sharedtest"
	"github.com/ragstat/ragstat/runs"
)

func TestRequest(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return sharedtest.WriteFile(t, dir, name, text) }
	qrels := write("qrels.txt", "q1 0 a 1\nq1 0 b 0\nq2 0 a 1\n")
	run := write("a.txt", "q1 Q0 a 1 2 a\nq1 Q0 b 2 1 a\nq2 Q0 a 1 1 a\n")
	existing := write("existing.jsonl", "old\n")
	files := settings.Files{Open: func(p string) (*input.File, error) { return input.Open(p, nil) }}
	tests := []struct {
		name   string
		change func(*Request)
		err    string // as a command line writes it
		rows   bool   // rep.PerQuery
		shard  bool   // rep.Shard is set
		out    string // what PerQueryOut holds, in part
	}{
		{"plain", func(*Request) {}, "", true, false, ""},
		{"summary", func(r *Request) { r.Summary = true }, "", false, false, ""},
		{"rows and summary", func(r *Request) { r.PerQuery, r.Summary = true, true }, "--per-query and --summary exclude each other", false, false, ""},
		{"stage cutoff", func(r *Request) { r.StageCutoffs = map[string]int{"reranked": 10} },
			"-k NAME=K sets a stage's cutoff and applies to ragstat stages; eval takes -k K", false, false, ""},
		{"bad shard", func(r *Request) { r.Shard = "2/2" }, "2/2", false, false, ""},
		{"shard", func(r *Request) { r.Shard = "0/1" }, "", true, true, ""},
		{"missing run", func(r *Request) { r.Runs = []string{filepath.Join(dir, "nope")} }, "nope", false, false, ""},
		{"per-query file", func(r *Request) { r.PerQueryOut = filepath.Join(dir, "rows.jsonl") }, "", true, false, `"query":"q2"`},
		{"per-query file exists", func(r *Request) { r.PerQueryOut = existing }, "the file exists", true, false, "old"},
		{"per-query file forced", func(r *Request) { r.PerQueryOut, r.Force = existing, true }, "", true, false, `"query":"q1"`},
		{"per-query file is the run", func(r *Request) { r.PerQueryOut = run }, "is the same file as the input run", true, false, "q1 Q0 a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Request{Eval: settings.Eval{Judgments: qrels, MinGrade: 1}, Runs: []string{run}}
			tt.change(&r)
			src, err := r.Open(files, nil)
			defer src.Close()
			rep := &report.Eval{}
			var stdout bytes.Buffer
			if err == nil {
				err = src.Evaluate(rep, &stdout)
			}
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(flagname.Flagged(err), tt.err)) {
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

func TestEvaluateRuns(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		return p
	}
	qrels := write("qrels.txt", []byte("q1 0 a 1\nq1 0 b 0\n"))
	text := write("a.txt", []byte("q1 Q0 a 1 2 a\nq1 Q0 b 2 1 a\n"))
	data, err := parquettest.Encode([]parquettest.Run{{Query: "q1", Item: "b", Score: 2, Rank: 1}, {Query: "q1", Item: "a", Score: 1, Rank: 2}})
	if err != nil {
		t.Fatal(err)
	}
	pq := write("b.parquet", data)
	bad := write("bad.txt", []byte("q1 Q0 zzz 1 1 a\n"))
	for _, tt := range []struct {
		name    string
		args    []string
		digests bool
		inputs  string // role format, each
		err     string
	}{
		{"text and parquet", []string{text, "b=" + pq}, false, "judgments trec|run trec|run parquet", ""},
		{"digests", []string{text}, true, "judgments trec|run trec", ""},
		{"an unjudged item", []string{bad}, false, "", "zzz"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := settings.Eval{Judgments: qrels, MinGrade: 1}.Open(settings.Files{Open: func(p string) (*input.File, error) { return input.Open(p, nil) }})
			if err != nil {
				t.Fatal(err)
			}
			defer ev.File.Close()
			sys, err := systems.Open(tt.args, nil, systems.Options{})
			defer systems.Close(sys)
			if err != nil {
				t.Fatal(err)
			}
			rep := &report.Eval{}
			err = evaluateRuns(rep, ev, sys, runs.Options{}, tt.digests)
			if sharedtest.WantErr(t, err, tt.err) {
				return
			}
			var got []string
			for _, in := range rep.Inputs {
				got = append(got, in.Role+" "+in.Format)
				if (in.SHA256 != "") != tt.digests {
					t.Errorf("%s: digest %q, want one: %v", in.Path, in.SHA256, tt.digests)
				}
			}
			if strings.Join(got, "|") != tt.inputs || len(rep.Results) != len(tt.args) || rep.Policy != ev.Policy() {
				t.Errorf("inputs %q, %d results; want %q", got, len(rep.Results), tt.inputs)
			}
		})
	}
}
