package comparecmd

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/flagname"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/sharedtest"
	"github.com/ragstat/ragstat/stats"
)

// flagText writes a setting's error as a command line does.
func flagText(err error) string { return flagname.Flagged(err) }

func TestRequestConfig(t *testing.T) {
	ok := Request{Eval: settings.Eval{MinGrade: 1}, Top: 10, MinSlice: 10, Resamples: 100, Randomizations: 100, Level: 0.95}
	tests := []struct {
		name   string
		change func(*Request)
		err    string
	}{
		{"defaults", func(*Request) {}, ""},
		{"every setting", func(r *Request) {
			r.Topics, r.SliceBy, r.Correction, r.Interval, r.AllowMismatch = "t", []string{"family"}, "bh", "bca", []string{"policy.gain"}
			r.FailOn, r.FailOnSignificant, r.GateSlices = []string{"nDCG@10 < -0.01"}, true, []string{"tag:a"}
			r.Quality = "context/nDCG@10"
		}, ""},
		{"bounds", func(r *Request) { r.Unjudged = "bounds" }, "--unjudged bounds gives [low, high] per query"},
		{"slices without topics", func(r *Request) { r.SliceBy = []string{"tag"} }, "--slice-by needs --topics"},
		{"no resamples", func(r *Request) { r.Resamples = 0 }, "--top, --min-slice, --resamples and --randomizations must be positive"},
		{"level", func(r *Request) { r.Level = 1 }, "--level 1 must lie strictly between 0 and 1"},
		{"correction", func(r *Request) { r.Correction = "sidak" }, `--correction: stats: unknown correction "sidak"`},
		{"mismatch", func(r *Request) { r.AllowMismatch = []string{"colour"} }, "--allow-mismatch: "},
		{"rule", func(r *Request) { r.FailOn = []string{"nDCG@10"} }, `--fail-on "nDCG@10": write METRIC OP NUMBER`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ok
			tt.change(&r)
			cfg, err := r.Config()
			switch {
			case tt.err == "" && err != nil:
				t.Fatal(err)
			case tt.err != "" && (err == nil || !strings.Contains(flagText(err), tt.err)):
				t.Fatalf("got %v, want %q", err, tt.err)
			case tt.err == "" && (cfg.Top != r.Top || cfg.Stats.Level != r.Level || len(cfg.FailOn) != len(r.FailOn) ||
				cfg.Correction != stats.Correction(r.Correction) || cfg.Quality != r.Quality):
				t.Errorf("config %+v from %+v", cfg, r)
			}
		})
	}
}

func TestRequestGiven(t *testing.T) {
	content := map[string]string{"qrels": "q1 0 a 1\n", "topics": `{"id":"q1","text":"why"}` + "\n", "corpus": `{"id":"a","doc":"d","text":"because"}` + "\n"}
	opened := map[string]*input.File{}
	files := settings.Files{Open: func(path string) (*input.File, error) {
		c, ok := content[path]
		if !ok {
			return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
		}
		opened[path] = input.FromBytes(path, []byte(c))
		return opened[path], nil
	}}
	tests := []struct {
		name string
		r    Request
		err  string
	}{
		{"judgments alone", Request{Eval: settings.Eval{MinGrade: 1}}, ""},
		{"every file", Request{Eval: settings.Eval{MinGrade: 1}, Topics: "topics", Corpus: "corpus", Tokenizer: "cl100k_base", RunFormat: "trec", PriceIn: 2.5, PriceOut: 10}, ""},
		{"no topics file", Request{Eval: settings.Eval{MinGrade: 1}, Topics: "nope"}, "nope: file does not exist"},
		{"no tokenizer", Request{Eval: settings.Eval{MinGrade: 1}, Tokenizer: "nope"}, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.r.Judgments = "qrels"
			ev, err := tt.r.Open(files)
			if err != nil {
				t.Fatal(err)
			}
			g, err := tt.r.Given(ev, files)
			if sharedtest.WantErr(t, err, tt.err) {
				return
			}
			defer g.Close()
			if g.Evaluator != ev.Evaluator || g.Judgments != ev.File || (g.Topics != nil) != (tt.r.Topics != "") ||
				(g.Corpus != nil) != (tt.r.Corpus != "") || (g.Tokenizer != nil) != (tt.r.Tokenizer != "") || string(g.RunFormat) != tt.r.RunFormat ||
				(g.Price != nil) != (tt.r.PriceIn != 0) || g.Price != nil && (g.Price.Input != tt.r.PriceIn || g.Price.Output != tt.r.PriceOut) {
				t.Errorf("given %+v from %+v", g, tt.r)
			}
		})
	}
}

func TestRequestCompare(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string { return sharedtest.WriteFile(t, dir, name, text) }
	qrels := write("qrels", "q1 0 a 1\nq1 0 b 0\nq2 0 b 1\n")
	base := write("base.run", "q1 Q0 a 1 2 base\nq1 Q0 b 2 1 base\nq2 Q0 b 1 2 base\n")
	cand := write("cand.run", "q1 Q0 b 1 2 cand\nq1 Q0 a 2 1 cand\nq2 Q0 b 1 2 cand\n")
	traces := write("rag.jsonl", `{"query":"q1","system":"rag","stages":[{"name":"reranked","items":[{"id":"a"}]}]}`+"\n")
	files := settings.Files{Open: func(path string) (*input.File, error) { return input.Open(path, nil) }}
	ok := Request{Eval: settings.Eval{Judgments: qrels, MinGrade: 1}, Top: 10, MinSlice: 10, Resamples: 100, Randomizations: 100, Level: 0.95}
	tests := []struct {
		name    string
		change  func(*Request, *Sources)
		err     string // as a command line writes it
		reasons int
	}{
		{"runs", func(*Request, *Sources) {}, "", 0},
		{"gate", func(r *Request, _ *Sources) { r.FailOn = []string{"R@10 < 0"} }, "", 0},
		{"gate fails", func(r *Request, _ *Sources) { r.FailOn = []string{"RR@10 < -0.1"} }, "", 1},
		{"shard as table", func(r *Request, s *Sources) { s.Keep = func(string) bool { return true } },
			"--shard writes a partial comparison for ragstat merge: give --format json", 0},
		{"shard as json", func(r *Request, s *Sources) { r.Format, s.Keep = "json", func(string) bool { return true } }, "", 0},
		{"traces without topics", func(_ *Request, s *Sources) { s.Systems, s.Traces = []string{traces, traces}, nil },
			traces + ": comparing traces needs --topics: what each query requires", 0},
		{"missing run", func(_ *Request, s *Sources) { s.Systems = []string{base, filepath.Join(dir, "nope")} }, "nope", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, opened := ok, 0
			src := Sources{Files: files, Systems: []string{base, cand}, Version: "test", Opened: func(*settings.Evaluation) { opened++ }}
			tt.change(&r, &src)
			cfg, err := r.Config()
			if err != nil {
				t.Fatal(err)
			}
			res, reasons, err := r.Compare(cfg, src)
			switch {
			case tt.err != "":
				if err == nil || !strings.Contains(flagText(err), tt.err) {
					t.Fatalf("got %v, want %q", err, tt.err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if opened != 1 || len(reasons) != tt.reasons || res.Manifest.Version != "test" ||
				(src.Keep != nil) != (res.Partial != nil) || src.Keep == nil && len(res.Comparisons) == 0 {
				t.Errorf("opened %d times, reasons %q, result %+v", opened, reasons, res)
			}
		})
	}
}
