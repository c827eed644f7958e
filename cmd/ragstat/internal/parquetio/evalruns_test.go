package parquetio

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/systems"
	"github.com/ragstat/ragstat/report"
	"github.com/ragstat/ragstat/runs"
)

func TestEvaluateRuns(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		return p
	}
	qrels := write("qrels.txt", []byte("q1 0 a 1\nq1 0 b 0\n"))
	text := write("a.txt", []byte("q1 Q0 a 1 2 a\nq1 Q0 b 2 1 a\n"))
	pq := write("b.parquet", encode(t, []row{{"q1", "b", 2, 1}, {"q1", "a", 1, 2}}))
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
			ev, err := eval.Settings{Judgments: qrels}.Open(eval.Files{Open: func(p string) (*input.File, error) { return input.Open(p, nil) }})
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
			err = EvaluateRuns(rep, ev, sys, runs.Options{}, tt.digests)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
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
