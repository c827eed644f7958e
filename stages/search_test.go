package stages

import (
	"encoding/json"
	"testing"
)

// TestSearchSteps: a search step's calls against the query's judgments,
// worked out by hand: q has relevant a (2) and b (1). Call 1 returns x a
// (a new and relevant: recall 1/2), call 2 a y (a again), call 3 b (new,
// relevant: recall 1). The union x a y b: the context packs a and y, the
// answer cites b and y.
func TestSearchSteps(t *testing.T) {
	qrels := `{"query":"q","item":"a","grade":2}
{"query":"q","item":"b","grade":1}
{"query":"q","item":"x","grade":0}`
	tops := `{"id":"q","text":"q"}`
	in, ts := fixture(t, qrels, tops, "",
		`{"query":"q","system":"s","stages":[{"name":"search","items":[{"id":"x"},{"id":"a"},{"id":"y"},{"id":"b"}],"calls":[{"query":"one","ids":["x","a"]},{"ids":["a","y"]},{"ids":["b"]}]},{"name":"context","items":[{"id":"a"},{"id":"y"}]}],"answer":{"text":"t","citations":["b","y"]}}`)
	opt := options("R")
	opt.Policy.Unjudged = "nonrelevant"
	res, err := Evaluate(in, ts, opt)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(res.Systems[0].Search)
	want := `[{"query":"q","stage":"search","relevant":2,"calls":[` +
		`{"query":"one","items":2,"new":2,"new_relevant":1,"duplicates":0,"recall":0.5},` +
		`{"items":2,"new":1,"new_relevant":0,"duplicates":1,"recall":0.5},` +
		`{"items":1,"new":1,"new_relevant":1,"duplicates":0,"recall":1}],` +
		`"first_relevant_call":1,"union":4,"duplicates":1,"union_relevant":2,"union_in_context":2,"union_cited":2,"relevant_in_context":1,"relevant_cited":1}]`
	if string(got) != want {
		t.Errorf("search steps\n%s\nwant\n%s", got, want)
	}
}
