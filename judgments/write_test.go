package judgments

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/ragstat/ragstat/input"
)

// TestWriteRoundTrip writes every judgment of a set and reads them back:
// spans, facts and meta pass through unchanged.
func TestWriteRoundTrip(t *testing.T) {
	in := `{"query":"refund","item":"policy","grade":3,"spans":["within 30 days","<b>&"]}
{"query":"refund","item":"noise","grade":0}
{"query":"refund","item":"faq","grade":2,"spans":["5 to 10 days"],"facts":["days"],"meta":{"assessors":{"ann":2},"seconds":[4.5]}}
{"query":"limits","item":"limit","grade":-1}
`
	opt := Options{Scale: Scale{-1, 3}}
	s, err := Read(input.FromBytes("in.jsonl", []byte(in)), opt)
	if err != nil {
		t.Fatal(err)
	}
	var all []Judgment
	for _, id := range s.IDs() {
		all = append(all, s.Judgments(id)...)
	}
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, all); err != nil {
		t.Fatal(err)
	}
	if buf.String() != in {
		t.Errorf("written:\n%s\nwant:\n%s", buf.String(), in)
	}
	back, err := Read(input.FromBytes("out.jsonl", buf.Bytes()), opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range s.IDs() {
		if got, want := back.Judgments(id), s.Judgments(id); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read back %+v, want %+v", id, got, want)
		}
	}
	if s.Judgments("nope") != nil {
		t.Error("unjudged query has judgments")
	}
}
