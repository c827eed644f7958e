package settings

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/flagname"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/sharedtest"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
)

// memFiles opens the named contents, and counts the files left open.
type memFiles struct {
	content map[string]string
	opened  []*input.File
}

func (m *memFiles) files() Files {
	return Files{Open: func(path string) (*input.File, error) {
		c, ok := m.content[path]
		if !ok {
			return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
		}
		f := input.FromBytes(path, []byte(c))
		m.opened = append(m.opened, f)
		return f, nil
	}}
}

func TestEvalPolicy(t *testing.T) {
	tests := []struct {
		name   string
		s      Eval
		want   func(*eval.Policy)
		preset int    // settings the preset lists
		err    string // the error, named with flags as Text names them
	}{
		{"none: the strict default", Eval{MinGrade: 1}, func(*eval.Policy) {}, 0, ""},
		{"every choice", Eval{MinGrade: 2, Grades: "0..4", Gain: "linear", Unjudged: "skip", Unanswerable: "exclude",
			Queries: "judged", JudgedDivisor: "list", Unit: "doc", Order: "rank"}, func(p *eval.Policy) {
			p.MinGrade, p.Scale, p.Gain, p.Unjudged, p.Unanswerable = 2, judgments.Scale{Min: 0, Max: 4}, metric.Linear, eval.UnjudgedSkip, eval.UnanswerableExclude
			p.Queries, p.JudgedDivisor, p.Unit, p.Order = eval.QueriesJudged, eval.JudgedByList, eval.UnitDoc, "rank"
		}, 0, ""},
		{"a preset, then what is given", Eval{MinGrade: 1, Like: "trec_eval", Unjudged: "error"}, func(p *eval.Policy) {
			p.Like, p.Gain, p.Unanswerable, p.Queries = "trec_eval", metric.Linear, eval.UnanswerableZero, eval.QueriesBoth
		}, 5, ""},
		{"unknown preset", Eval{MinGrade: 1, Like: "excel"}, nil, 0, "--like excel is unknown: use trec_eval, pytrec_eval, ir_measures, ranx"},
		{"unknown unjudged", Eval{MinGrade: 1, Unjudged: "maybe"}, nil, 0, "--unjudged maybe is unknown: use error, nonrelevant, skip, bounds"},
		{"bad scale", Eval{MinGrade: 1, Grades: "3"}, nil, 0, `grade scale "3": write MIN..MAX`},
		{"threshold off the scale", Eval{MinGrade: 5}, nil, 0, "--min-grade 5 must be a positive grade on the scale 0..3"},
		{"exp gain overflows", Eval{MinGrade: 1, Grades: "0..2000"}, nil, 0, "use --gain linear"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, preset, err := tt.s.Policy()
			if tt.err != "" {
				if err == nil || !strings.Contains(flags(err), tt.err) {
					t.Fatalf("got %v, want %q", err, tt.err)
				}
				return
			}
			want := eval.DefaultPolicy()
			tt.want(&want)
			if err != nil || p != want || len(preset) != tt.preset {
				t.Errorf("got %+v, %d preset, %v; want %+v, %d preset", p, len(preset), err, want, tt.preset)
			}
		})
	}
}

// flags writes an error as a command line does.
func flags(err error) string { return flagname.Flagged(err) }

func TestEvalOpen(t *testing.T) {
	m := &memFiles{content: map[string]string{
		"qrels":     sharedtest.Qrels,
		"docmap":    "policy\tdoc1\nexception\tdoc1\n",
		"subtopics": "refund 1 policy 1\nrefund 2 exception 1\nlimits 1 limit 1\n",
	}}
	tests := []struct {
		name    string
		s       Eval
		metrics []string
		folded  int
		err     string
	}{
		{"defaults", Eval{MinGrade: 1, Judgments: "qrels"}, []string{"R@10", "RR@10", "nDCG@10"}, 0, ""},
		{"cutoff", Eval{MinGrade: 1, Judgments: "qrels", Cutoff: 3}, []string{"R@3", "RR@3", "nDCG@3"}, 0, ""},
		{"metrics named", Eval{MinGrade: 1, Judgments: "qrels", Metrics: []string{"AP", "P@5"}}, []string{"AP", "P@5"}, 0, ""},
		{"doc map", Eval{MinGrade: 1, Judgments: "qrels", Unit: "doc", DocMap: "docmap"}, []string{"R@10", "RR@10", "nDCG@10"}, 1, ""},
		{"doc pattern", Eval{MinGrade: 1, Judgments: "qrels", Unit: "doc", DocIDPattern: `(o)`}, []string{"R@10", "RR@10", "nDCG@10"}, 4, ""},
		{"subtopics", Eval{MinGrade: 1, Judgments: "qrels", Subtopics: "subtopics", Metrics: []string{"alpha-nDCG@10"}}, []string{"alpha-nDCG@10"}, 0, ""},
		{"no judgments file", Eval{MinGrade: 1, Judgments: "nope"}, nil, 0, "nope: file does not exist"},
		{"bad metric", Eval{MinGrade: 1, Judgments: "qrels", Metrics: []string{"nDCG@0"}}, nil, 0, "positive integer"},
		{"map without the doc unit", Eval{MinGrade: 1, Judgments: "qrels", DocMap: "docmap"}, nil, 0, "--doc-map and --doc-id-pattern apply to --unit doc only"},
		{"map and pattern", Eval{MinGrade: 1, Judgments: "qrels", Unit: "doc", DocMap: "docmap", DocIDPattern: "(.)"}, nil, 0, "give --doc-map or --doc-id-pattern, not both"},
		{"doc unit without a map", Eval{MinGrade: 1, Judgments: "qrels", Unit: "doc"}, nil, 0, "--unit doc needs --doc-map FILE or --doc-id-pattern REGEX"},
		{"pattern without a group", Eval{MinGrade: 1, Judgments: "qrels", Unit: "doc", DocIDPattern: "x"}, nil, 0, `--doc-id-pattern: document id pattern "x" has no group`},
		{"no subtopics file", Eval{MinGrade: 1, Judgments: "qrels", Subtopics: "nope"}, nil, 0, "nope: file does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m.opened = nil
			ev, err := tt.s.Open(m.files())
			if tt.err != "" {
				if err == nil || !strings.Contains(flags(err), tt.err) {
					t.Fatalf("got %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, mt := range ev.Metrics() {
				names = append(names, mt.Name())
			}
			if !slices.Equal(names, tt.metrics) || ev.FoldedJudgments != tt.folded || ev.File != m.opened[0] {
				t.Errorf("metrics %v, folded %d; want %v, %d", names, ev.FoldedJudgments, tt.metrics, tt.folded)
			}
		})
	}
}

// Keep leaves out the judgments and the ranked lists of the queries it
// rejects.
func TestEvalOpenKeep(t *testing.T) {
	m := &memFiles{content: map[string]string{"qrels": sharedtest.Qrels}}
	files := m.files()
	var judged []string
	files.Keep = func(s *judgments.Set) func(string) bool {
		judged = s.IDs()
		return func(q string) bool { return q == "limits" }
	}
	ev, err := Eval{MinGrade: 1, Judgments: "qrels"}.Open(files)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(judged, []string{"refund", "limits"}) || !slices.Equal(ev.Judgments().IDs(), []string{"limits"}) {
		t.Errorf("judged %v, kept %v", judged, ev.Judgments().IDs())
	}
	res, err := ev.Lists("run", map[string][]string{"refund": {"policy"}, "limits": {"limit"}})
	if err != nil || len(res.Rows) != 1 || res.Rows[0].Query != "limits" {
		t.Errorf("rows %+v, %v; want limits alone", res.Rows, err)
	}
}

// TestSettingsOpenDigest: the judgments' digest is the SHA-256 of the file,
// with Digest computed as it is read.
func TestEvalOpenDigest(t *testing.T) {
	want := fmt.Sprintf("%x", sha256.Sum256([]byte(sharedtest.Qrels)))
	for _, digest := range []bool{true, false} {
		files := (&memFiles{content: map[string]string{"qrels": sharedtest.Qrels}}).files()
		files.Digest = digest
		ev, err := Eval{MinGrade: 1, Judgments: "qrels"}.Open(files)
		if err != nil {
			t.Fatal(err)
		}
		if sum, err := ev.File.SHA256(); err != nil || sum != want {
			t.Errorf("Digest %v: %s, %v; want %s", digest, sum, err, want)
		}
	}
}

// TestDocPattern: an item's document is the pattern's first group; an id
// the pattern does not match is its own document, and a pattern without a
// group is refused.
func TestDocPattern(t *testing.T) {
	docOf, err := docPattern(`^(.+)#`)
	if err != nil {
		t.Fatal(err)
	}
	if got := docOf("d1#p3"); got != "d1" {
		t.Errorf("d1#p3 in %q", got)
	}
	if got := docOf("d2"); got != "d2" {
		t.Errorf("d2 in %q", got)
	}
	if _, err := docPattern("nogroup"); err == nil {
		t.Error("pattern without a group accepted")
	}
}
