package settings

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/sharedtest"
	"github.com/ragstat/ragstat/trace"
)

func TestStagesOpen(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	qrels, topics := write("qrels.txt", "q1 0 a 1\n"), write("topics.jsonl", `{"id":"q1","text":"why"}`+"\n")
	traces := write("traces.jsonl", `{"query":"q1","system":"s","stages":[{"name":"retrieved","items":[{"id":"a","score":1}]}]}`+"\n")
	run := write("run.txt", "q1 Q0 a 1 1 s\n")
	files := Files{Open: func(path string) (*input.File, error) { return input.Open(path, nil) }}
	req := Stages{Eval: Eval{MinGrade: 1, Judgments: qrels}, Topics: topics}
	jsonl := func(*corpus.Corpus) ([]systems.TraceReader, error) { return nil, nil }
	tests := []struct {
		name    string
		paths   []string
		formats func(*corpus.Corpus) ([]systems.TraceReader, error)
		traces  int
		err     string
	}{
		{"traces", []string{traces}, jsonl, 1, ""},
		{"a run", []string{run}, jsonl, 0, "traces expected"},
		{"a name", []string{"s=" + traces}, jsonl, 0, "give the path alone"},
		{"formats refused", []string{traces}, func(*corpus.Corpus) ([]systems.TraceReader, error) { return nil, errors.New("bad mapping") }, 0, "bad mapping"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := req.Open(eval.DefaultPolicy(), files, tt.paths, nil, tt.formats)
			defer src.Close()
			if sharedtest.WantErr(t, err, tt.err) {
				return
			}
			n := 0
			if err := src.Scan(func(*trace.Trace) error { n++; return nil }); err != nil || n != tt.traces {
				t.Errorf("scanned %d traces (%v), want %d", n, err, tt.traces)
			}
			if len(src.All()) != len(src.Files)+len(src.Traces) || src.Judgments == nil || src.Topics == nil {
				t.Errorf("sources %+v", src)
			}
		})
	}
	bad := req
	bad.Grades = "3..0"
	if _, _, err := bad.Policy(); err == nil || !strings.Contains(err.Error(), `"3..0"`) {
		t.Errorf("grades 3..0: got %v, want an error naming the scale", err)
	}
}
