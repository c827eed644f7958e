package judgments

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/jsonin"
	"github.com/ragstat/ragstat/internal/schematest"
)

func read(t *testing.T, name, content string, opt Options) (*Set, error) {
	t.Helper()
	return Read(input.FromBytes(name, []byte(content)), opt)
}

func TestFormats(t *testing.T) {
	trec := "refund 0 policy 3\nrefund 0 noise 0\nlimits Q0 limit 2\n"
	jsonl := `{"query":"refund","item":"policy","grade":3}
{"query":"refund","item":"noise","grade":0,"spans":["within 30 days"]}
{"query":"limits","item":"limit","grade":2}
`
	obj := `{"refund": {"policy": 3, "noise": 0},
 "limits": {"limit": 2}}`
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte(trec))
	w.Close()
	for _, tc := range []struct {
		name, content string
		format        input.Format
	}{
		{"q.txt", trec, input.FormatTREC}, {"q.jsonl", jsonl, input.FormatJSONL}, {"q.json", obj, input.FormatJSON}, {"q.txt.gz", gz.String(), input.FormatTREC},
	} {
		s, err := read(t, tc.name, tc.content, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if s.Format != tc.format {
			t.Errorf("%s: format %s, want %s", tc.name, s.Format, tc.format)
		}
		if g, ok := s.Query("refund").Grade("policy"); !ok || g != 3 {
			t.Errorf("%s: refund/policy = %d %v", tc.name, g, ok)
		}
		if s.Len() != 3 || strings.Join(s.IDs(), ",") != "refund,limits" {
			t.Errorf("%s: %d judgments, queries %v", tc.name, s.Len(), s.IDs())
		}
	}
	s, _ := read(t, "q.jsonl", jsonl, Options{})
	if sp := s.Query("refund").Spans("noise"); len(sp) != 1 || sp[0] != "within 30 days" {
		t.Errorf("spans = %v", sp)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name, content string
		opt           Options
		want          []string
	}{
		{"grade out of range", "q 0 d 4\n", Options{}, []string{"q.txt:1:", `query "q", item "d"`, "grade 4 is outside the scale 0..3", "declare the scale with grades MIN..MAX"}},
		{"negative grade allowed by scale", "q 0 d -2\nq 0 e 1\n", Options{Scale: Scale{-2, 4}}, nil},
		{"negative grade", "q 0 d -1\n", Options{}, []string{"outside the scale 0..3"}},
		{"duplicate", "q 0 d 1\nq 0 e 2\nq 0 d 1\n", Options{}, []string{"q.txt:3:", "duplicate judgment on line 1"}},
		{"conflict", "q 0 d 1\nq 0 d 2\n", Options{}, []string{"q.txt:2:", "conflicting judgment: grade 2 here, 1 on line 1"}},
		{"empty", "", Options{}, []string{"empty"}},
		{"a TREC run", "q Q0 d 1 2.5 bm25\nq Q0 e 2 1.5 bm25\n", Options{}, []string{"q.txt: looks like a run", "did you swap judgments and the run?"}},
		{"a JSONL run", `{"query":"q","items":["d"]}`, Options{}, []string{"looks like a run"}},
		{"a query named items", `{"items": {"d": 1}}`, Options{}, nil},
		{"numeric id", `{"query":7,"item":"d","grade":1}`, Options{}, []string{`q.txt:1: field "query": ids must be strings: quote them ("7", not 7), or pass numeric_ids`}},
		{"numeric item id", `{"query":"q","item":42,"grade":1}`, Options{}, []string{`query "q": field "item": ids must be strings`, "or pass numeric_ids"}},
		{"numeric ids accepted", `{"query":7,"item":-42,"grade":1}`, Options{NumericIDs: true}, nil},
		{"fractional numeric id", `{"query":7.5,"item":"d","grade":1}`, Options{NumericIDs: true}, []string{`field "query": id 7.5 is a number but not an integer`}},
		{"exponent numeric id", `{"query":"q","item":1e3,"grade":1}`, Options{NumericIDs: true}, []string{`field "item": id 1e3 is a number but not an integer`}},
		{"negative zero id", `{"query":-0,"item":"d","grade":1}`, Options{NumericIDs: true}, []string{`id -0 is a number but not an integer`}},
		{"boolean id", `{"query":true,"item":"d","grade":1}`, Options{NumericIDs: true}, []string{`field "query": expected a string, found JSON bool`}},
		{"trec grade with a plus sign", "q 0 d +1\n", Options{}, []string{`grade "+1" is not an integer`}},
		{"jsonl key given twice", `{"query":"q","item":"d","grade":0,"grade":3}`, Options{}, []string{"q.txt:1:", `key "grade" given twice`}},
		{"jsonl key twice in meta", `{"query":"q","item":"d","grade":0,"meta":{"a":1,"a":2}}`, Options{}, []string{`key "a" given twice`}},
		{"jsonl invalid UTF-8 id", "{\"query\":\"q\",\"item\":\"caf\xe9\",\"grade\":1}", Options{}, []string{"q.txt:1:", "invalid UTF-8 at byte 25"}},
		{"json invalid UTF-8 id", "{\"q\":\n {\"caf\xe9\": 1}}", Options{}, []string{"q.txt:2:", "invalid UTF-8"}},
		{"jsonl fractional grade", `{"query":"q","item":"d","grade":1.5}`, Options{}, []string{"q.txt:1:", "grade 1.5 is not an integer"}},
		{"jsonl string grade", `{"query":"q","item":"d","grade":"2"}`, Options{}, []string{`grade "2" is not an integer`}},
		{"jsonl unknown field", `{"query":"q","item":"d","grade":2,"relevance":3}`, Options{}, []string{`unknown field "relevance"`}},
		{"jsonl empty item", `{"query":"q","item":" ","grade":2}`, Options{}, []string{"empty item id"}},
		{"jsonl missing grade", `{"query":"q","item":"d"}`, Options{Format: input.FormatJSONL}, []string{`missing "grade"`}},
		{"jsonl trailing junk", `{"query":"q","item":"d","grade":2} x`, Options{}, []string{"after the JSON value"}},
		{"jsonl blank line", "{\"query\":\"q\",\"item\":\"d\",\"grade\":2}\n\n{\"query\":\"q\",\"item\":\"e\",\"grade\":2}\n", Options{}, []string{"q.txt:2:", "blank line"}},
		{"json repeated key", "{\"q\": {\"d\": 1,\n \"d\": 2}}", Options{}, []string{"q.txt:2:", `repeated key "d" (first on line 1)`}},
		{"json not nested", `{"q": 3}`, Options{Format: input.FormatJSON}, []string{`the value of "q" must be a JSON object`}},
		{"json fraction", `{"q": {"d": 2.0}}`, Options{}, []string{"grade 2.0 is not an integer"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := read(t, "q.txt", tc.content, tc.opt)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestManyErrorsStopAtTwenty(t *testing.T) {
	var b strings.Builder
	for i := range 50 {
		b.WriteString("q 0 d")
		b.WriteString(strings.Repeat("x", i))
		b.WriteString(" 9\n")
	}
	_, err := read(t, "q.txt", b.String(), Options{})
	if err == nil || strings.Count(err.Error(), "outside the scale") != 20 || !strings.Contains(err.Error(), "more problems") {
		t.Fatalf("got %v", err)
	}
}

func TestParseScale(t *testing.T) {
	for in, ok := range map[string]bool{"0..3": true, "-2..4": true, "3..0": false, "0-3": false, "a..b": false} {
		if _, err := ParseScale(in); (err == nil) != ok {
			t.Errorf("ParseScale(%q) error %v", in, err)
		}
	}
}

func TestMapFoldsToDocuments(t *testing.T) {
	s, err := read(t, "q.txt", "q 0 a#1 1\nq 0 a#2 3\nq 0 b#1 0\n", Options{})
	if err != nil {
		t.Fatal(err)
	}
	docs, folded := s.Map(func(it string) string { return strings.Split(it, "#")[0] })
	if g, _ := docs.Query("q").Grade("a"); g != 3 || folded != 1 || docs.Len() != 2 {
		t.Fatalf("a=%d folded=%d len=%d", g, folded, docs.Len())
	}
}

func FuzzRead(f *testing.F) {
	for _, seed := range []string{
		"q 0 d 3\n", "q 0 d 1\nq 0 d 2\n", `{"query":"q","item":"d","grade":3}`,
		`{"q":{"d":1,"e":0}}`, `{"q":{}}`, "{\"q\": {\"d\": 1,\n \"d\": 2}}", "", "\x1f\x8b", "q 0 d\n",
		`{"query":"q","item":"d","grade":1,"spans":["x"]}`,
		`{"query":"q","item":"d","grade":1,"source":"llm","model":"m","prompt_sha256":"` + strings.Repeat("ab", 32) + `","time":"2025-01-02T03:04:05Z","seed":1,"audit":true}` + "\n" + `{"query":"q","item":"d","grade":0}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read(input.FromBytes("fuzz", data), Options{Scale: Scale{-3, 3}})
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		n := 0
		for _, id := range s.IDs() {
			q := s.Query(id)
			for _, it := range q.Items() {
				if g, ok := q.Grade(it); !ok || g < -3 || g > 3 {
					t.Fatalf("bad grade %d for %q", g, it)
				}
				if strings.TrimSpace(it) == "" {
					t.Fatal("empty item accepted")
				}
				n++
			}
		}
		if n != s.Len() {
			t.Fatalf("Len %d but %d items", s.Len(), n)
		}
	})
}

func TestSchema(t *testing.T) { schematest.Check(t, "judgment.schema.json", jsonlJudgment{}) }

func TestReadSubtopics(t *testing.T) {
	s, err := ReadSubtopics(input.FromBytes("div.qrels", []byte("q 1 a 1\nq 2 a 1\nq 2 b 1\nq 3 c 0\nr 1 x 1\n")), Scale{})
	if err != nil {
		t.Fatal(err)
	}
	q := s.Query("q")
	if q.Len() != 3 || len(q.Of("a")) != 2 || q.Of("b")[0].Subtopic != 1 || strings.Join(q.Items(), ",") != "a,b,c" {
		t.Fatalf("query q: %d subtopics, a %v, b %v, items %v", q.Len(), q.Of("a"), q.Of("b"), q.Items())
	}
	for _, tc := range []struct{ in, want string }{
		{"q 1 a 1\nq 1 a 0\n", `div.qrels:2: query "q", item "a": judged twice for subtopic "1" (first on line 1)`},
		{"q 1 a 7\n", "grade 7 is outside the scale 0..3"},
		{"", "the file is empty"},
		{"q 1 a\n", "div.qrels:1"},
	} {
		_, err := ReadSubtopics(input.FromBytes("div.qrels", []byte(tc.in)), Scale{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

func FuzzReadSubtopics(f *testing.F) {
	f.Add([]byte("q 1 a 1\nq 2 b 0\n"))
	f.Add([]byte("q 1 a 1\nq 1 a 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSubtopics(input.FromBytes("f", data), Scale{})
		if err == nil && len(s.queries) == 0 {
			t.Fatal("no error and no judgments")
		}
	})
}

func TestNew(t *testing.T) {
	set, err := New("memory", []Judgment{{Query: "q", Item: "a", Grade: 3, Spans: []string{"the answer"}}, {Query: "q", Item: "b"}}, Scale{})
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := set.Query("q").Grade("a"); !ok || g != 3 || set.Len() != 2 || set.Query("q").Spans("a")[0] != "the answer" {
		t.Errorf("set %+v", set)
	}
	for _, tt := range []struct {
		js   []Judgment
		want string
	}{
		{nil, "memory: no judgments found"},
		{[]Judgment{{Query: "q", Item: "a", Grade: 4}}, `memory: query "q", item "a": grade 4 is outside the scale 0..3`},
		{[]Judgment{{Query: "q", Item: " "}}, `memory: query "q": empty item id`},
		{[]Judgment{{Query: "q", Item: "a"}, {Query: "q", Item: "a", Grade: 1}}, `item "a"`},
	} {
		if _, err := New("memory", tt.js, Scale{}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%v) = %v, want %q", tt.js, err, tt.want)
		}
	}
}

// TestNumericIDsExact: an integer id reads as its digits exactly, however
// long, so pandas' to_json output matches a run's string ids.
func TestNumericIDsExact(t *testing.T) {
	s, err := read(t, "q.jsonl", `{"query":7,"item":123456789012345678901234567890,"grade":2}`+"\n", Options{NumericIDs: true})
	if err != nil {
		t.Fatal(err)
	}
	q := s.Query("7")
	if q == nil {
		t.Fatalf("query 7 not read as \"7\": %v", s.IDs())
	}
	if g, ok := q.Grade("123456789012345678901234567890"); !ok || g != 2 {
		t.Fatalf(`Grade("7", "1234…") = %d, %v; want 2, true`, g, ok)
	}
}

// FuzzQuick checks that a line the quick path reads is one Decode reads
// without error, to the same values.
func FuzzQuick(f *testing.F) {
	for _, seed := range []string{
		`{"query":"q","item":"d","grade":3}`, ` { "grade" : -1 , "item":"d", "query":"q" } `,
		`{"query":"q","item":"d","grade":3.5e2}`, `{"query":"q","item":"d","grade":03}`,
		`{"query":"q","query":"r","item":"d","grade":3}`, `{"Query":"q","item":"d","grade":3}`,
		`{"query":"q\u0041","item":"d","grade":3}`, `{"query":7,"item":"d","grade":3}`,
		`{"query":"q","item":"d","grade":"3"}`, `{"query":"q","item":"d","grade":null}`, `{}`,
		`{"query":"q","item":"d","grade":3}x`, "{\"query\":\"\xff\",\"item\":\"d\",\"grade\":3}",
		`{"query":"q","item":"d","grade":1,"spans":["x"]}`, `{"query":"q","item":"d","grade":-}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v quickLine
		if !v.read(data) {
			return
		}
		var quick jsonlJudgment
		if v.query != nil {
			quick.Query = jsonin.StringID(string(v.query))
		}
		if v.item != nil {
			quick.Item = jsonin.StringID(string(v.item))
		}
		if v.grade != nil {
			quick.Grade = json.RawMessage(v.grade)
		}
		var slow jsonlJudgment
		if err := jsonin.Decode(data, &slow); err != nil {
			t.Fatalf("%q: quick path read it, Decode: %v", data, err)
		}
		if !reflect.DeepEqual(quick, slow) {
			t.Fatalf("%q: quick %+v, Decode %+v", data, quick, slow)
		}
	})
}

// BenchmarkReadJSONL reads 160,000 judgments in JSON Lines, 16 a query, as
// bench/gentraces writes them.
func BenchmarkReadJSONL(b *testing.B) {
	var buf bytes.Buffer
	for q := range 10000 {
		for i := range 16 {
			fmt.Fprintf(&buf, `{"grade":%d,"item":"q%06d-p%02d","query":"q%06d"}`+"\n", i%4, q, i, q)
		}
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		if _, err := Read(input.FromBytes("judgments.jsonl", buf.Bytes()), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadTREC reads 200,000 TREC qrels lines, 100 a query, shaped as
// the judgments of bench/run.sh.
func BenchmarkReadTREC(b *testing.B) {
	var buf bytes.Buffer
	for i := range 200000 {
		fmt.Fprintf(&buf, "%d 0 msmarco_passage_%02d_%d %d\n", i/100, i%69, i*7919, i%4)
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		if _, err := Read(input.FromBytes("qrels.txt", buf.Bytes()), Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestJSONLProblemKeepsIDs reads a line the quick path takes but rejects
// (its grade is off the scale), then lines read into the same buffer: the
// problem still names the first line's ids.
func TestJSONLProblemKeepsIDs(t *testing.T) {
	data := `{"query":"q1","item":"first-item","grade":9}` + "\n" +
		`{"query":"q2","item":"another-one","grade":1}` + "\n" +
		`{"query":"q2","item":"xxxxxxxxxx-xx","grade":2}` + "\n"
	_, err := Read(input.FromBytes("j.jsonl", []byte(data)), Options{})
	if err == nil || !strings.Contains(err.Error(), `query "q1", item "first-item": grade 9 is outside the scale 0..3`) {
		t.Fatalf("got %v", err)
	}
}

// TestGradeConcurrent looks items up from several goroutines at once, as
// an evaluation's workers do: the index built at the first lookup is built
// once (run with -race).
func TestGradeConcurrent(t *testing.T) {
	set, err := Read(input.FromBytes("q.txt", []byte("q 0 a 1\nq 0 b 2\nq 0 c 0\n")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	q := set.Query("q")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for item, want := range map[string]int{"a": 1, "b": 2, "c": 0} {
				if g, ok := q.Grade(item); !ok || g != want {
					t.Errorf("Grade(%q) = %d, %v; want %d, true", item, g, ok, want)
				}
			}
			if _, ok := q.Grade("d"); ok {
				t.Error("an unjudged item was found")
			}
		})
	}
	wg.Wait()
}
