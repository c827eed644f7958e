package stages

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/topics"
)

// TestNuggetScores reports nuggetizer's four scores of the answers beside
// the rest, in one run and merged from shards. The assignments are
// topics/testdata's: per answer (1, 1, 0.5, 0.625) for "2024-1" and
// (1/3, 0.5, 0.4, 0.6) for "2024-2"; "2024-3" has none, and system t
// records no answer, so two answers of system s count.
func TestNuggetScores(t *testing.T) {
	data, err := os.ReadFile("../topics/testdata/assignments.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	as, err := topics.ReadAssignments(input.FromBytes("assignments.jsonl", data))
	if err != nil {
		t.Fatal(err)
	}
	scores, err := NuggetAnswers("assignments.jsonl", as)
	if err != nil {
		t.Fatal(err)
	}
	qrels := `{"query":"2024-1","item":"a","grade":2}
{"query":"2024-2","item":"b","grade":1}
{"query":"2024-3","item":"c","grade":1}`
	tops := `{"id":"2024-1"}
{"id":"2024-2"}
{"id":"2024-3"}`
	in, ts := fixture(t, qrels, tops, "",
		`{"query":"2024-1","system":"s","stages":[{"name":"context","items":[{"id":"a"}]}],"answer":{"text":"Python is a language.","abstained":false}}`,
		`{"query":"2024-2","system":"s","stages":[{"name":"context","items":[{"id":"b"}]}],"answer":{"text":"Bees gather nectar.","abstained":false}}`,
		`{"query":"2024-1","system":"t","stages":[{"name":"context","items":[{"id":"a"}]}]}`,
		`{"query":"2024-2","system":"t","stages":[{"name":"context","items":[{"id":"b"}]}]}`,
		`{"query":"2024-3","system":"t","stages":[{"name":"context","items":[{"id":"c"}]}]}`,
		`{"query":"2024-3","system":"s","stages":[{"name":"context","items":[{"id":"c"}]}],"answer":{"text":"?","abstained":false}}`)
	in.Nuggets = scores
	want := &NuggetReport{Answers: 2, StrictVital: (1 + 1.0/3) / 2, Vital: 0.75, StrictAll: 0.45, All: 0.6125}
	check := func(what string, r *Result) {
		t.Helper()
		for _, sys := range r.Systems {
			got := sys.Answers.Nuggets
			switch {
			case sys.Name == "t" && got != nil:
				t.Errorf("%s: system t, with no answer: %+v", what, got)
			case sys.Name == "s" && !nearReport(got, want):
				t.Errorf("%s: %+v, want %+v", what, got, want)
			}
		}
	}
	opt := options("R")
	whole, err := Evaluate(in, ts, opt)
	if err != nil {
		t.Fatal(err)
	}
	check("one run", whole)
	merged := evaluateSharded(t, in, ts, opt, []string{"2024-1", "2024-3"}, []string{"2024-2"})
	check("merged", merged)
	if !reflect.DeepEqual(merged.Systems[0].Answers.Nuggets, whole.Systems[0].Answers.Nuggets) {
		t.Errorf("merged %+v, one run %+v", merged.Systems[0].Answers.Nuggets, whole.Systems[0].Answers.Nuggets)
	}
}

func nearReport(got, want *NuggetReport) bool {
	const tol = 1e-15
	return got != nil && got.Answers == want.Answers && abs(got.StrictVital-want.StrictVital) < tol &&
		abs(got.Vital-want.Vital) < tol && abs(got.StrictAll-want.StrictAll) < tol && abs(got.All-want.All) < tol
}

func abs(x float64) float64 { return max(x, -x) }

func TestNuggetAnswersErrors(t *testing.T) {
	a := `{"qid":"q","run_id":"%s","nuggets":[{"text":"n","importance":"vital","assignment":"support"}]}`
	two := strings.Replace(a, "%s", "r1", 1) + "\n" + strings.Replace(a, "%s", "r2", 1)
	if _, err := nuggetAnswers(two); err == nil || !strings.Contains(err.Error(), `a.jsonl:2: query "q": a second answer assigned (also line 1)`) {
		t.Errorf("two runs' answers: %v", err)
	}
	// Passages' assignments are passed over.
	passage := `{"qid":"q","docid":"d","nuggets":[{"text":"n","importance":"vital","assignment":"support"}]}`
	if s, err := nuggetAnswers(passage); err != nil || len(s) != 0 {
		t.Errorf("passage only: %v, %v", s, err)
	}
}

func nuggetAnswers(src string) (map[string]topics.NuggetScores, error) {
	as, err := topics.ReadAssignments(input.FromBytes("a.jsonl", []byte(src)))
	if err != nil {
		return nil, err
	}
	return NuggetAnswers("a.jsonl", as)
}
