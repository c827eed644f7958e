package judgments

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragstat/ragstat/input"
)

const sha = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// label is an LLM label line with a fixed provenance.
func label(q, item string, grade int, extra string) string {
	return `{"query":"` + q + `","item":"` + item + `","grade":` + string(rune('0'+grade)) +
		`,"source":"llm","model":"judge-1","prompt_sha256":"` + sha + `","time":"2025-01-02T03:04:05Z"` + extra + "}\n"
}

// TestLabelsRead: LLM labels are read with their provenance and kept apart
// from people's grades; a pair may carry one of each, never two of one.
func TestLabelsRead(t *testing.T) {
	data := `{"query":"q","item":"a","grade":3}` + "\n" +
		label("q", "a", 1, `,"temperature":0,"seed":7,"endpoint":"http://h/v1","audit":true`) +
		label("q", "b", 2, "") +
		label("r", "c", 0, "") +
		`{"query":"q","item":"d","grade":0,"source":"human"}` + "\n"
	s, err := Read(input.FromBytes("j.jsonl", []byte(data)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 2 || s.LLMLen() != 3 || !slices.Equal(s.IDs(), []string{"q"}) || !slices.Equal(s.LLMQueries(), []string{"q", "r"}) {
		t.Fatalf("%d grades (queries %v), %d labels (queries %v)", s.Len(), s.IDs(), s.LLMLen(), s.LLMQueries())
	}
	ls := s.LLMJudgments("q")
	p := ls[0].LLM
	if len(ls) != 2 || p.Model != "judge-1" || p.PromptSHA256 != sha || *p.Temperature != 0 || *p.Seed != 7 || p.Endpoint != "http://h/v1" ||
		!p.Audit || !p.Time.Equal(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)) || ls[0].Line != 2 || ls[1].LLM.Audit {
		t.Errorf("labels %+v, provenance %+v", ls, p)
	}
	if !slices.Equal(s.Models(), []string{"judge-1"}) {
		t.Errorf("models %v", s.Models())
	}
	// Written and read back, byte for byte.
	var b bytes.Buffer
	for _, id := range s.IDs() {
		if err := WriteJSONL(&b, s.Judgments(id)); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range s.LLMQueries() {
		if err := WriteJSONL(&b, s.LLMJudgments(id)); err != nil {
			t.Fatal(err)
		}
	}
	want := `{"query":"q","item":"a","grade":3}
{"query":"q","item":"d","grade":0}
{"query":"q","item":"a","grade":1,"source":"llm","model":"judge-1","prompt_sha256":"` + sha + `","endpoint":"http://h/v1","temperature":0,"seed":7,"time":"2025-01-02T03:04:05Z","audit":true}
` + label("q", "b", 2, "") + label("r", "c", 0, "")
	if b.String() != want {
		t.Errorf("written:\n%s\nwant:\n%s", b.String(), want)
	}
	back, err := Read(input.FromBytes("back.jsonl", b.Bytes()), Options{})
	if err != nil || back.LLMLen() != 3 || back.Len() != 2 {
		t.Errorf("read back: %v", err)
	}

	for _, tc := range []struct{ name, line, want string }{
		{"unknown source", `{"query":"q","item":"a","grade":1,"source":"bot"}`, `"source" "bot" is neither "human" nor "llm"`},
		{"a person's grade with a model", `{"query":"q","item":"a","grade":1,"model":"m"}`, `a person's grade carries an LLM label's fields`},
		{"no model", `{"query":"q","item":"a","grade":1,"source":"llm","prompt_sha256":"` + sha + `","time":"2025-01-02T03:04:05Z"}`, `an LLM label needs "model"`},
		{"short digest", `{"query":"q","item":"a","grade":1,"source":"llm","model":"m","prompt_sha256":"abc","time":"2025-01-02T03:04:05Z"}`, `"prompt_sha256" "abc" is not a SHA-256`},
		{"no time", `{"query":"q","item":"a","grade":1,"source":"llm","model":"m","prompt_sha256":"` + sha + `"}`, `an LLM label needs "time"`},
		{"bad time", `{"query":"q","item":"a","grade":1,"source":"llm","model":"m","prompt_sha256":"` + sha + `","time":"yesterday"}`, `"time" "yesterday" is not an RFC 3339 time`},
		{"negative temperature", strings.TrimSuffix(label("q", "a", 1, `,"temperature":-1`), "\n"), `"temperature" -1 is not a finite number of 0 or more`},
		{"off the scale", strings.TrimSuffix(label("q", "a", 7, ""), "\n"), "grade 7 is outside the scale 0..3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(input.FromBytes("j.jsonl", []byte(tc.line+"\n")), Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "j.jsonl:1") {
				t.Errorf("error %v, want %q at j.jsonl:1", err, tc.want)
			}
		})
	}
	_, err = Read(input.FromBytes("j.jsonl", []byte(label("q", "a", 1, "")+label("q", "a", 2, ""))), Options{})
	if err == nil || !strings.Contains(err.Error(), `j.jsonl:2: query "q", item "a": a second LLM label of this pair (the first on line 1)`) {
		t.Errorf("two labels of a pair: %v", err)
	}
}

// TestViews: people's grades alone, people's over the LLM's, the LLM's
// over people's.
func TestViews(t *testing.T) {
	data := `{"query":"q","item":"a","grade":3,"spans":["s"]}` + "\n" + `{"query":"q","item":"b","grade":0}` + "\n" +
		label("q", "a", 1, "") + label("q", "c", 2, "") + label("r", "d", 1, "")
	s, err := Read(input.FromBytes("j.jsonl", []byte(data)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	grades := func(v View) string {
		set, err := s.View(v)
		if err != nil {
			t.Fatal(err)
		}
		if set.LLMLen() != 0 || set.File != "j.jsonl" {
			t.Errorf("view %d: %d labels, file %s", v, set.LLMLen(), set.File)
		}
		var out []string
		for _, id := range set.IDs() {
			for _, j := range set.Judgments(id) {
				out = append(out, j.Query+"/"+j.Item+"="+string(rune('0'+j.Grade))+strings.Join(j.Spans, ""))
			}
		}
		return strings.Join(out, " ")
	}
	for v, want := range map[View]string{
		Human:        "q/a=3s q/b=0",
		HumanOverLLM: "q/a=3s q/b=0 q/c=2 r/d=1",
		LLMOverHuman: "q/a=1s q/b=0 q/c=2 r/d=1",
	} {
		if got := grades(v); got != want {
			t.Errorf("view %d: %s, want %s", v, got, want)
		}
	}
	if sub := s.Subset(func(q string) bool { return q == "r" }); sub.LLMLen() != 1 || sub.Len() != 0 {
		t.Errorf("subset: %d labels, %d grades", sub.LLMLen(), sub.Len())
	}
	h, l := s.Paired()
	if !slices.Equal(h, []int{3}) || !slices.Equal(l, []int{1}) {
		t.Errorf("paired %v %v", h, l)
	}
}

// TestAudit: a query is audited when every LLM label of it has a person's
// grade; once any query is drawn, only drawn ones count, and a drawn one
// still missing grades is counted.
func TestAudit(t *testing.T) {
	read := func(data string) Audit {
		s, err := Read(input.FromBytes("j.jsonl", []byte(data)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s.Audit()
	}
	human := func(q, item string) string { return `{"query":"` + q + `","item":"` + item + `","grade":1}` + "\n" }
	a := read(label("q", "a", 1, "") + label("r", "b", 1, "") + human("q", "a"))
	if !slices.Equal(a.Labelled, []string{"q", "r"}) || !slices.Equal(a.Audited, []string{"q"}) || len(a.Drawn) != 0 {
		t.Errorf("undrawn audit %+v", a)
	}
	drawn := `,"audit":true`
	a = read(label("q", "a", 1, drawn) + label("q", "b", 1, drawn) + label("r", "c", 1, "") + label("s", "d", 1, drawn) +
		human("q", "a") + human("r", "c") + human("s", "d"))
	if !slices.Equal(a.Drawn, []string{"q", "s"}) || !slices.Equal(a.Audited, []string{"s"}) || a.Missing["q"] != 1 || !slices.Equal(a.Undrawn, []string{"r"}) {
		t.Errorf("drawn audit %+v", a)
	}
}

// TestMergeLabels: a person's grade and an LLM label of one pair both
// stand; of two LLM labels, the later file's, with a note.
func TestMergeLabels(t *testing.T) {
	read := func(name, data string) *Set {
		s, err := Read(input.FromBytes(name, []byte(data)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	fill := read("fill.jsonl", `{"query":"q","item":"a","grade":3}`+"\n"+label("q", "b", 1, "")+label("q", "c", 0, ""))
	audit := read("audit.jsonl", `{"query":"q","item":"b","grade":2}`+"\n")
	again := read("again.jsonl", label("q", "c", 2, "")+label("q", "d", 1, ""))
	m, err := Merge([]*Set{fill, audit, again}, Scale{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != 2 || m.LLMLen() != 3 {
		t.Errorf("%d grades, %d labels", m.Len(), m.LLMLen())
	}
	var got []string
	for _, j := range m.LLMJudgments("q") {
		got = append(got, j.Item+"="+string(rune('0'+j.Grade)))
	}
	if strings.Join(got, " ") != "b=1 c=2 d=1" {
		t.Errorf("labels %v", got)
	}
	if n := m.Notes(); len(n) != 1 || n[0] != `1 pairs carry an LLM label in two judgment files: the later file's label is kept (query "q" item "c": again.jsonl line 1 replaces fill.jsonl line 3)` {
		t.Errorf("notes %q", n)
	}
	if v, _ := m.View(HumanOverLLM); v.Len() != 4 {
		t.Errorf("view of the merge: %d grades", v.Len())
	}
}
