package sniff

import "testing"

func TestFirstLine(t *testing.T) {
	if got := string(FirstLine([]byte("\n  \n  {\"a\":1}\nnext"))); got != `{"a":1}` {
		t.Fatalf("got %q", got)
	}
}

// TestLooksLike: a run's head reads as a run and not as judgments, and
// judgments' the other way, in the TREC and JSON Lines formats; a query
// named "items" or "grade" in the JSON object format is neither; a first
// line longer than the head reads by the keys before the cut.
func TestLooksLike(t *testing.T) {
	for _, c := range []struct {
		head           string
		run, judgments bool
	}{
		{"q Q0 d 1 2.5 tag\n", true, false},
		{`{"query":"q","items":["d"]}` + "\n", true, false},
		{"q 0 d 2\n", false, true},
		{`{"query":"q","item":"d","grade":2}` + "\n", false, true},
		{`{"query":"q","items":["a line cut short by the head`, true, false},
		{`{"query":"q","item":"d","grade":2,"meta":{"a line cut short`, false, true},
		{`{"items":{"d":1}}`, false, false},
		{`{"grade":{"d":1}}`, false, false},
		{"\n", false, false},
	} {
		if got := LooksLikeRun([]byte(c.head)); got != c.run {
			t.Errorf("%q: LooksLikeRun %v", c.head, got)
		}
		if got := LooksLikeJudgments([]byte(c.head)); got != c.judgments {
			t.Errorf("%q: LooksLikeJudgments %v", c.head, got)
		}
	}
}

// TestNuggetFile: a top-level key is found, also on a line the head cuts
// short; a nested key, a key past the cut, or no object is not.
func TestNuggetFile(t *testing.T) {
	for _, c := range []struct {
		head string
		want bool
	}{
		{`{"query":"q","qid":"1","nuggets":[{"text":"a"}]}` + "\n", true},
		{"\n" + `{"query":"q","qid":"1","nuggets":[{"te`, true},
		{`{"id":"1","facts":[{"qid":"x"}]}`, false},
		{`{"id":"1","text":"a very long te`, false},
		{`{"id":"1"}` + "\n" + `{"qid":"2"}`, false},
		{`["qid"]`, false},
		{"qid\tquery", false},
		{"", false},
	} {
		if got := NuggetFile([]byte(c.head)); got != c.want {
			t.Errorf("%q: %v, want %v", c.head, got, c.want)
		}
	}
}
