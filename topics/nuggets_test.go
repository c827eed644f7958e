package topics

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/sniff"
)

func readTestdata(t *testing.T, name string) *input.File {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return input.FromBytes(name, data)
}

// TestNuggetFile reads a nugget file as topics (recognised by its first
// line), its facts supported by the retrieval assignments' passages.
func TestNuggetFile(t *testing.T) {
	s, err := Read(readTestdata(t, "nuggets.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Topics) != 2 {
		t.Fatalf("%d topics", len(s.Topics))
	}
	bees := s.Get("2024-2")
	want := []Fact{
		{ID: "1", Text: "Bees collect nectar", Importance: Vital},
		{ID: "2", Text: "Enzymes break down the nectar", Importance: Vital},
		{ID: "3", Text: "Water evaporates from the nectar", Importance: Vital},
		{ID: "4", Text: "Honey is stored in wax cells", Importance: Okay},
		{ID: "5", Text: "A hive makes about 25 kg a year", Importance: Okay},
	}
	if bees == nil || bees.Text != "how do bees make honey" || !bees.Answerable || bees.Line != 2 || !reflect.DeepEqual(bees.Facts, want) {
		t.Fatalf("%+v", bees)
	}
	opt := Options{AssignmentsFile: "retrieval_assignments.jsonl"}
	if opt.Assignments, err = ReadAssignments(readTestdata(t, opt.AssignmentsFile)); err != nil {
		t.Fatal(err)
	}
	var lines [][]byte
	parse, err := Stream(readTestdata(t, "nuggets.jsonl"), opt, func(tp *Topic, data []byte) error {
		if tp.ID == "2024-2" {
			bees = tp
			lines = append(lines, data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Partial support (doc_01#3 for the enzymes) adds nothing.
	support := [][]Support{
		{{{Item: "msmarco_v2.1_doc_01#3"}}},
		{{{Item: "msmarco_v2.1_doc_07#1"}}},
		{{{Item: "msmarco_v2.1_doc_07#1"}}},
		nil, nil,
	}
	for i, f := range bees.Facts {
		if !reflect.DeepEqual(f.Support, support[i]) {
			t.Errorf("fact %s: support %v, want %v", f.ID, f.Support, support[i])
		}
	}
	// The parser Stream returns reads the line again with its support.
	again, err := parse(lines[0])
	if err != nil || !reflect.DeepEqual(again.Facts, bees.Facts) {
		t.Errorf("read again: %+v, %v", again, err)
	}
	// The facts' importance survives the topics format, once every fact has
	// support.
	bees.Facts = bees.Facts[:3]
	var buf strings.Builder
	if err := Write(&buf, []*Topic{bees}); err != nil {
		t.Fatal(err)
	}
	back, err := Read(input.FromBytes("topics.jsonl", []byte(buf.String())))
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Get("2024-2").Facts; !reflect.DeepEqual(got, bees.Facts) {
		t.Errorf("written and read back: %+v, want %+v", got, bees.Facts)
	}
	// Topics that already list a passage get it once.
	listed, err := ReadWith(input.FromBytes("topics.jsonl", []byte(buf.String())), opt)
	if err != nil || !reflect.DeepEqual(listed.Get("2024-2").Facts, bees.Facts) {
		t.Errorf("topics listing the support: %+v, %v", listed, err)
	}
}

// TestNuggetScores checks nuggetizer's four scores against hand-worked
// answers: "2024-1" is nuggetizer's own documented assignment example.
func TestNuggetScores(t *testing.T) {
	as, err := ReadAssignments(readTestdata(t, "assignments.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	want := []NuggetScores{
		// 2 vital, both supported; of 4, 2 supported and 1 partly: 2.5/4.
		{StrictVital: 1, VitalScore: 1, StrictAll: 0.5, AllScore: 0.625, Vital: 2, All: 4},
		// 3 vital: support, partial, none: 1/3 and 1.5/3; of 5, 2
		// supported and 2 partly: 2/5 and 3/5.
		{StrictVital: 1.0 / 3, VitalScore: 0.5, StrictAll: 0.4, AllScore: 0.6, Vital: 3, All: 5},
	}
	if len(as) != len(want) {
		t.Fatalf("%d assignments", len(as))
	}
	for i, a := range as {
		if a.Run != "run-a" || a.Doc != "" || a.Line != i+1 {
			t.Errorf("line %d: %+v", i+1, a)
		}
		if got := a.Scores(); got != want[i] {
			t.Errorf("%s: %+v, want %+v", a.Query, got, want[i])
		}
	}
	// Without a vital nugget the vital scores are 0, as nuggetizer has them.
	okay := Assignment{Nuggets: []Assigned{{Text: "x", Importance: Okay, Assignment: Supported}}}
	if got := okay.Scores(); got != (NuggetScores{StrictAll: 1, AllScore: 1, All: 1}) {
		t.Errorf("no vital nugget: %+v", got)
	}
}

func TestNuggetErrors(t *testing.T) {
	nugget := func(rest string) string {
		return `{"qid":"q","query":"x","nuggets":[` + rest + `]}`
	}
	for _, tt := range []struct {
		src, want string
		read      func(*input.File) error
	}{
		{`{"query":"x","nuggets":[{"text":"a","importance":"vital"}]}`, `n.jsonl:1: missing or empty "qid"`, readNuggets},
		{nugget(``), "no nuggets", readNuggets},
		{nugget(`{"text":"a","importance":"vital"},{"text":"a","importance":"okay"}`), `nugget 2 repeats nugget 1's text "a"`, readNuggets},
		{nugget(`{"text":" ","importance":"vital"}`), "nugget 1: empty text", readNuggets},
		{nugget(`{"text":"a","importance":"failed"}`), "could not score it", readNuggets},
		{nugget(`{"text":"a","importance":"Vital"}`), `importance "Vital" is neither "vital" nor "okay"`, readNuggets},
		{nugget(`{"text":"a","importance":"vital","assignment":"support"}`), "this is an assignment file", readNuggets},
		{nugget(`{"text":"a","importance":"vital","weight":2}`), `unknown field "weight"`, readNuggets},
		{nugget(`{"text":"a","importance":"vital"}`) + "\n" + nugget(`{"text":"b","importance":"vital"}`), `n.jsonl:2: query "q": topic repeated (also line 1)`, readNuggets},
		{`{"qid":7,"nuggets":[]}`, `field "qid"`, readNuggets},
		{nugget(`{"text":"a","importance":"vital"}`), "this is a nugget file", readAssignments},
		{nugget(`{"text":"a","importance":"vital","assignment":"supported"}`), `assignment "supported" is none of`, readAssignments},
		{nugget(`{"text":"a","importance":"vital","assignment":"support"}`) + "\n" + nugget(`{"text":"a","importance":"vital","assignment":"support"}`), "the same answer assigned again (also line 1)", readAssignments},
		{`{"qid":"q","docid":"d","nuggets":[{"text":"a","importance":"okay","assignment":"support"}]}` + "\n" + `{"qid":"q","docid":"d","nuggets":[{"text":"a","importance":"okay","assignment":"support"}]}`, `n.jsonl:2: query "q", item "d": the same passage assigned again`, readAssignments},
	} {
		if err := tt.read(input.FromBytes("n.jsonl", []byte(tt.src))); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.src, err, tt.want)
		}
	}
}

func readNuggets(f *input.File) error {
	_, err := Read(f)
	return err
}

func readAssignments(f *input.File) error {
	_, err := ReadAssignments(f)
	return err
}

// TestSupportErrors: a retrieval assignment of a query the topics lack,
// or of a nugget none of its query's facts is, is an error naming the
// assignments' file and line; a query of another shard is read, so not
// lacking.
func TestSupportErrors(t *testing.T) {
	line := func(qid, doc, text, importance string) Assignment {
		return Assignment{Query: qid, Doc: doc, Line: 3, Nuggets: []Assigned{{Text: text, Importance: importance, Assignment: Supported}}}
	}
	for _, tt := range []struct {
		a    Assignment
		keep func(string) bool
		want string
	}{
		{line("nope", "d", "x", Okay), nil, `r.jsonl:3: query "nope", item "d": no such query in nuggets.jsonl`},
		{line("2024-1", "d", "Python is slow", Okay), nil, `r.jsonl:3: query "2024-1", item "d": nugget "Python is slow" is none of the query's facts (nuggets.jsonl:1)`},
		{line("2024-1", "d", "Python is used for data science", Vital), nil, `r.jsonl:3: query "2024-1", item "d": nugget "Python is used for data science" is vital here and okay in the topics`},
		{line("2024-1", "d", "Python is slow", Okay), func(id string) bool { return id != "2024-1" }, `nugget "Python is slow" is none of the query's facts`},
		{line("2024-1", "d", "Python is used for data science", Okay), func(id string) bool { return id != "2024-1" }, ""},
	} {
		opt := Options{Keep: tt.keep, Assignments: []Assignment{{Query: "2024-1", Run: "run-a", Line: 1}, tt.a}, AssignmentsFile: "r.jsonl"}
		_, err := ReadWith(readTestdata(t, "nuggets.jsonl"), opt)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("error %v, want %q", err, tt.want)
		}
	}
	// A topics file that fails is not also said to lack the query.
	_, err := ReadWith(input.FromBytes("n.jsonl", []byte(`{"qid":"q","nuggets":[]}`)), Options{Assignments: []Assignment{line("q", "d", "x", Okay)}, AssignmentsFile: "r.jsonl"})
	if err == nil || strings.Contains(err.Error(), "no such query") {
		t.Errorf("error %v", err)
	}
}

// FuzzReadNuggets: a nugget file reads to topics whose facts all have a
// text and an importance, or to an error; never a panic.
func FuzzReadNuggets(f *testing.F) {
	f.Add(`{"query": "what is python", "qid": "2024-1", "nuggets": [{"text": "Python is a language", "importance": "vital"}]}`)
	f.Add(`{"qid":"q","nuggets":[{"text":"a","importance":"okay","reasoning":"r","trace":{"k":[1]}}],"trace":null}`)
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Read(input.FromBytes("n.jsonl", []byte(src)))
		if err != nil || !sniff.NuggetFile([]byte(src)) {
			return
		}
		for _, tp := range s.Topics {
			if len(tp.Facts) == 0 {
				t.Fatal("a topic without nuggets accepted")
			}
			for _, f := range tp.Facts {
				if strings.TrimSpace(f.Text) == "" || f.Importance != Vital && f.Importance != Okay {
					t.Fatalf("fact %+v accepted", f)
				}
			}
		}
	})
}

// FuzzReadAssignments: an assignment file reads to assignments whose
// scores lie in [0, 1], or to an error.
func FuzzReadAssignments(f *testing.F) {
	f.Add(`{"query": "q", "qid": "1", "answer_text": "a", "response_length": 1, "run_id": "r", "nuggets": [{"text": "n", "importance": "vital", "assignment": "partial_support"}]}`)
	f.Add(`{"text": "q", "qid": "1", "candidate_text": "c", "docid": "d", "nuggets": [{"text": "n", "importance": "okay", "assignment": "not_support"}]}`)
	f.Fuzz(func(t *testing.T, src string) {
		as, err := ReadAssignments(input.FromBytes("a.jsonl", []byte(src)))
		if err != nil {
			return
		}
		for _, a := range as {
			s := a.Scores()
			for _, v := range []float64{s.StrictVital, s.VitalScore, s.StrictAll, s.AllScore} {
				if !(v >= 0 && v <= 1) {
					t.Fatalf("%+v: score %v", a, v)
				}
			}
			if s.StrictVital > s.VitalScore || s.StrictAll > s.AllScore || s.All != len(a.Nuggets) {
				t.Fatalf("%+v: scores %+v", a, s)
			}
		}
	})
}
