package judgments

import (
	"strings"
	"testing"
)

// TestMerge: the judgments of several files join; a pair judged alike
// twice is kept once with both files' spans and facts (the first's meta),
// and a pair graded differently is an error naming both files and lines.
func TestMerge(t *testing.T) {
	set := func(name string, js ...Judgment) *Set {
		s, err := New(name, js, Scale{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a := set("a.txt", Judgment{Query: "q", Item: "x", Grade: 2, Line: 1}, Judgment{Query: "q", Item: "y", Grade: 0, Line: 2, Spans: []string{"s1"}, Facts: []string{"f1"}, Meta: []byte(`{"by":"ann"}`)})
	b := set("b.jsonl", Judgment{Query: "q", Item: "y", Grade: 0, Line: 1, Spans: []string{"s2"}, Facts: []string{"f1", "f2"}, Meta: []byte(`{"by":"bob"}`)}, Judgment{Query: "r", Item: "z", Grade: 1, Line: 2})
	c := set("c.jsonl", Judgment{Query: "q", Item: "x", Grade: 3, Line: 7})

	m, err := Merge([]*Set{a, b}, Scale{})
	if err != nil {
		t.Fatal(err)
	}
	if m.File != "a.txt + b.jsonl" || m.Len() != 3 || len(m.IDs()) != 2 {
		t.Errorf("merged %s: %d judgments, queries %v", m.File, m.Len(), m.IDs())
	}
	if g, _ := m.Query("q").Grade("x"); g != 2 {
		t.Errorf("q/x grade %d", g)
	}
	if sp := m.Query("q").Spans("y"); strings.Join(sp, ",") != "s1,s2" {
		t.Errorf("q/y spans %v, want both files'", sp)
	}
	for _, j := range m.Judgments("q") {
		if j.Item == "y" && (strings.Join(j.Facts, ",") != "f1,f2" || string(j.Meta) != `{"by":"ann"}`) {
			t.Errorf("q/y facts %v and meta %s, want both files' facts and the first's meta", j.Facts, j.Meta)
		}
	}

	_, err = Merge([]*Set{a, b, c}, Scale{})
	if err == nil || !strings.Contains(err.Error(), `c.jsonl:7: query "q", item "x": graded 3 here and 2 in a.txt line 1`) {
		t.Errorf("conflict: %v", err)
	}

	if one, err := Merge([]*Set{a}, Scale{}); err != nil || one != a {
		t.Errorf("one set: %v", err)
	}
}
