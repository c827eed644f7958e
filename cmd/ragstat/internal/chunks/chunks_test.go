package chunks

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
)

func readFixture(t *testing.T, name string) *input.File {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return input.FromBytes(name, data)
}

func TestReadAndCheck(t *testing.T) {
	s, err := Read(readFixture(t, "chunks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ds, err := ReadDocuments(readFixture(t, "documents.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(s, ds); err != nil {
		t.Fatal(err)
	}
	c := s.Get("café#1")
	if c == nil || c.Line != 3 || c.Len() != 5 || string(c.Meta) != `{"section":"intro"}` {
		t.Fatalf("café#1 = %+v", c)
	}
	if got := ds.Get("café", "1").Slice(c.Start, c.End); got != "Café " {
		t.Errorf("slice %q, want %q", got, "Café ")
	}
	if s.Get("nope") != nil || ds.Get("café", "2") != nil {
		t.Error("unknown ids found")
	}
}

func TestReadErrors(t *testing.T) {
	ok := `{"id":"a","doc":"d","revision":"1","start":0,"end":3}`
	for _, tc := range []struct{ name, content, want string }{
		{"unknown field", `{"id":"a","doc":"d","revision":"1","start":0,"end":3,"len":3}`, `chunks.jsonl:1: unknown field "len"`},
		{"missing id", `{"doc":"d","revision":"1","start":0,"end":3}`, `missing or empty "id"`},
		{"blank doc", `{"id":"a","doc":" ","revision":"1","start":0,"end":3}`, `missing or empty "doc"`},
		{"missing revision", `{"id":"a","doc":"d","start":0,"end":3}`, `missing or empty "revision"`},
		{"missing end", `{"id":"a","doc":"d","revision":"1","start":0}`, `missing "start" or "end"`},
		{"negative", `{"id":"a","doc":"d","revision":"1","start":-1,"end":3}`, `start -1 is negative`},
		{"empty chunk", `{"id":"a","doc":"d","revision":"1","start":3,"end":3}`, `start 3 is not before end 3`},
		{"fraction", `{"id":"a","doc":"d","revision":"1","start":0.5,"end":3}`, `field "start"`},
		{"repeated", ok + "\n" + ok, `chunks.jsonl:2: item "a": chunk repeated (also line 1)`},
		{"blank line", ok + "\n\n" + ok, `chunks.jsonl:2: blank line`},
		{"trailing data", ok + ` {}`, `unexpected data after the JSON value`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(input.FromBytes("chunks.jsonl", []byte(tc.content)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestReadDocumentsErrors(t *testing.T) {
	ok := `{"doc":"d","revision":"1","text":"abc"}`
	for _, tc := range []struct{ name, content, want string }{
		{"unknown field", `{"doc":"d","revision":"1","text":"abc","title":"x"}`, `docs.jsonl:1: unknown field "title"`},
		{"missing text", `{"doc":"d","revision":"1"}`, `missing or empty "text"`},
		{"missing revision", `{"doc":"d","text":"abc"}`, `missing or empty "revision"`},
		{"repeated", ok + "\n" + ok, `docs.jsonl:2: item "d": revision "1" repeated (also line 1)`},
		{"text not a string", `{"doc":"d","revision":"1","text":3}`, `field "text"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadDocuments(input.FromBytes("docs.jsonl", []byte(tc.content)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestCheckErrors(t *testing.T) {
	ds, err := ReadDocuments(readFixture(t, "documents.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, chunk, want string }{
		{"unknown revision", `{"id":"a","doc":"café","revision":"2","start":0,"end":3}`, `c.jsonl:1: item "a": document "café" revision "2" is not in documents.jsonl`},
		{"past the end", `{"id":"a","doc":"café","revision":"1","start":0,"end":29}`, `end 29 is past the end of "café" revision "1" (28 code points)`},
		{"bytes not code points", `{"id":"a","doc":"café","revision":"1","start":0,"end":4,"text":"Caf"}`, `text differs from code points [0, 4) of "café" revision "1", which read "Café"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Read(input.FromBytes("c.jsonl", []byte(tc.chunk)))
			if err != nil {
				t.Fatal(err)
			}
			if err := Check(s, ds); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestFind(t *testing.T) {
	d := newDocument("d", "1", "ça va, ça va, çaça")
	for _, tc := range []struct {
		s          string
		start, end int
		want       []int
	}{
		{"ça va", 0, d.Len(), []int{0, 7}},
		{"ça va", 1, d.Len(), []int{7}},
		{"ça va", 0, 11, []int{0}},
		{"ça", 12, d.Len(), []int{14, 16}},
		{"çaç", 0, d.Len(), []int{14}},
		{"nope", 0, d.Len(), nil},
		{"", 0, d.Len(), nil},
	} {
		got := d.Find(tc.s, tc.start, tc.end)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Find(%q, %d, %d) = %v, want %v", tc.s, tc.start, tc.end, got, tc.want)
		}
	}
	if got := d.Slice(14, 18); got != "çaça" {
		t.Errorf("Slice = %q", got)
	}
	ascii := newDocument("d", "1", "aaa")
	if got := ascii.Find("aa", 0, 3); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("overlapping occurrences: %v", got)
	}
}
