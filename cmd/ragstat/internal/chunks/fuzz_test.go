package chunks

import (
	"os"
	"testing"

	"github.com/ragstat/ragstat/input"
)

func seed(f *testing.F, name string) {
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"id":"a","doc":"d","revision":"1","start":0,"end":1,"text":"x"}`))
	f.Add([]byte("{}\n\n{"))
}

// FuzzRead checks that the chunk reader never panics and that every chunk
// it accepts is well formed.
func FuzzRead(f *testing.F) {
	seed(f, "chunks.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read(input.FromBytes("fuzz.jsonl", data))
		if err != nil {
			return
		}
		for _, c := range s.Chunks {
			if c.ID == "" || c.Doc == "" || c.Revision == "" || c.Start < 0 || c.Start >= c.End || s.Get(c.ID) != c {
				t.Fatalf("accepted a malformed chunk %+v", c)
			}
		}
	})
}

// FuzzReadDocuments checks that the documents reader never panics, and that
// slicing and searching an accepted text stay within it.
func FuzzReadDocuments(f *testing.F) {
	seed(f, "documents.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, err := ReadDocuments(input.FromBytes("fuzz.jsonl", data))
		if err != nil {
			return
		}
		for _, d := range ds.byKey {
			if ds.Get(d.Doc, d.Revision) != d || d.Slice(0, d.Len()) != d.Text {
				t.Fatalf("document %q %q does not read back", d.Doc, d.Revision)
			}
			if d.Len() > 0 {
				s := d.Slice(d.Len()/2, d.Len())
				if at := d.Find(s, 0, d.Len()); len(at) == 0 || d.Slice(at[0], at[0]+d.Len()-d.Len()/2) != s {
					t.Fatalf("Find(%q) = %v in %q", s, at, d.Text)
				}
			}
		}
	})
}
