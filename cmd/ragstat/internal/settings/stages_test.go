package settings

import (
	"fmt"
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/flagname"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/stages"
)

// flagText writes a setting's error as a command line does.
func flagText(err error) string { return flagname.Flagged(err) }

func TestStagesOptions(t *testing.T) {
	tests := []struct {
		name    string
		r       Stages
		metrics string
		err     string
	}{
		{"defaults", Stages{Eval: Eval{MinGrade: 1}}, "R RR nDCG", ""},
		{"every option", Stages{Eval: Eval{MinGrade: 1, Metrics: []string{"nDCG@5"}}, Truncated: "drop", Tokenizer: "cl100k_base",
			Analyses: true, Target: "precision=0.9", Bins: 5, Shingle: 2, Jaccard: 0.5, PriceIn: 1}, "nDCG@5", ""},
		{"subtopics", Stages{Eval: Eval{MinGrade: 1, Subtopics: "s"}}, "", "--subtopics is not available for stages"},
		{"doc unit", Stages{Eval: Eval{MinGrade: 1, Unit: "doc"}}, "", "--unit doc is not available for stages"},
		{"one cutoff", Stages{Eval: Eval{MinGrade: 1, Cutoff: 10}}, "", "stages take per-stage cutoffs: --k NAME=K (e.g. --k candidates=50"},
		{"bad policy", Stages{Eval: Eval{MinGrade: 1, Unjudged: "maybe"}}, "", "--unjudged maybe is unknown"},
		{"bad truncated", Stages{Eval: Eval{MinGrade: 1}, Truncated: "cut"}, "", `unknown truncated policy "cut"`},
		{"price without analyses", Stages{Eval: Eval{MinGrade: 1}, PriceOut: 2}, "", "--target, --pass-f1, --price-in and --price-out belong to --analyses"},
		{"bad target", Stages{Eval: Eval{MinGrade: 1}, Analyses: true, Target: "speed=1"}, "", "speed"},
		{"pass F1 without analyses", Stages{Eval: Eval{MinGrade: 1}, PassF1: 0.5}, "", "--pass-f1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _, err := tt.r.Policy()
			var opt stages.Options
			if err == nil {
				opt, err = tt.r.Options(p)
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(flagText(err), tt.err) {
					t.Fatalf("got %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, m := range opt.Metrics {
				names = append(names, m.Name())
			}
			if strings.Join(names, " ") != tt.metrics || (opt.Analyses != nil) != tt.r.Analyses || (opt.Tokenizer != nil) != (tt.r.Tokenizer != "") ||
				tt.r.Truncated != "" && string(opt.Truncated) != tt.r.Truncated {
				t.Errorf("options %+v from %+v", opt, tt.r)
			}
		})
	}
}

func TestStagesRead(t *testing.T) {
	content := map[string]string{"qrels": "q1 0 a 1\n", "topics": `{"id":"q1","text":"why"}` + "\n",
		"corpus": `{"id":"a","doc":"d","text":"because"}` + "\n", "bad": "{\n"}
	files := Files{Open: func(path string) (*input.File, error) {
		c, ok := content[path]
		if !ok {
			return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
		}
		return input.FromBytes(path, []byte(c)), nil
	}}
	tests := []struct {
		name   string
		r      Stages
		opened int
		err    string
	}{
		{"without a corpus", Stages{Eval: Eval{MinGrade: 1, Judgments: "qrels"}, Topics: "topics"}, 2, ""},
		{"with a corpus", Stages{Eval: Eval{MinGrade: 1, Judgments: "qrels"}, Topics: "topics", Corpus: "corpus"}, 3, ""},
		{"no judgments", Stages{Eval: Eval{MinGrade: 1, Judgments: "nope"}, Topics: "topics"}, 0, "nope"},
		{"bad topics", Stages{Eval: Eval{MinGrade: 1, Judgments: "qrels"}, Topics: "bad"}, 2, "bad:1"},
		{"no corpus", Stages{Eval: Eval{MinGrade: 1, Judgments: "qrels"}, Topics: "topics", Corpus: "nope"}, 2, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Sources
			err := tt.r.Read(&s, eval.DefaultPolicy(), files)
			in, opened := s.Input, s.Files
			if len(opened) != tt.opened {
				t.Errorf("%d files opened, want %d", len(opened), tt.opened)
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || in.Judgments == nil || in.Topics == nil || (in.Corpus != nil) != (tt.r.Corpus != "") {
				t.Errorf("input %+v, %v", in, err)
			}
		})
	}
}

func TestParseCutoff(t *testing.T) {
	tests := []struct {
		in, stage string
		k         int
		err       string
	}{
		{"10", "", 10, ""},
		{" 7 ", "", 7, ""},
		{"reranked=10", "reranked", 10, ""},
		{"candidates= 50", "candidates", 50, ""},
		{"0", "", 0, "positive integer"},
		{"x", "", 0, "positive integer"},
		{"reranked=-1", "", 0, "positive integer"},
		{"=10", "", 0, "name the stage"},
		{" =10", "", 0, "name the stage"},
	}
	for _, tt := range tests {
		stage, k, err := parseCutoff(tt.in)
		if stage != tt.stage || k != tt.k || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("parseCutoff(%q) = %q, %d, %v; want %q, %d, %q", tt.in, stage, k, err, tt.stage, tt.k, tt.err)
		}
	}
}

func TestCutoffsUnmarshalText(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want Cutoffs
		err  string
	}{
		{"one default", []string{"10"}, Cutoffs{Default: 10}, ""},
		{"later wins", []string{"10", "5"}, Cutoffs{Default: 5}, ""},
		{"stages gather", []string{"candidates=50", "reranked=10", "3"},
			Cutoffs{Default: 3, ByStage: map[string]int{"candidates": 50, "reranked": 10}}, ""},
		{"stage replaced", []string{"reranked=10", "reranked=20"}, Cutoffs{ByStage: map[string]int{"reranked": 20}}, ""},
		{"bad value quoted", []string{"x"}, Cutoffs{}, `-k "x": the cutoff must be a positive integer`},
		{"unnamed stage", []string{"=3"}, Cutoffs{}, `-k "=3": name the stage, as in reranked=10`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c Cutoffs
			var err error
			for _, v := range tt.in {
				if err = c.UnmarshalText([]byte(v)); err != nil {
					break
				}
			}
			if got := fmt.Sprint(err); tt.err != "" && got != tt.err || tt.err == "" && err != nil {
				t.Fatalf("error %v, want %q", err, tt.err)
			}
			if tt.err == "" && !reflect.DeepEqual(c, tt.want) {
				t.Errorf("got %+v, want %+v", c, tt.want)
			}
		})
	}
}
