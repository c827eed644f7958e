package topics

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/ragstat/ragstat/input"
)

// TestWriteRoundTrip writes topics with every field and reads them back;
// facts come last on a written line.
func TestWriteRoundTrip(t *testing.T) {
	in := `{"id":"refund","text":"How long <do> I have?","tags":["billing","paraphrase"],"answerable":true,"scopes":["public"],"as_of":"2026-03-01","family":"refund","answers":["30 days"],"meta":{"owner":"ops"},"facts":[{"id":"window","text":"30 days","support":[{"item":"policy#2","span":"within 30 days"},{"all":[{"item":"faq#1"},{"item":"faq#2","span":"30"}]}]}]}
{"id":"weather","answerable":false}
`
	s, err := Read(input.FromBytes("in.jsonl", []byte(in)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, s.Topics); err != nil {
		t.Fatal(err)
	}
	if buf.String() != in {
		t.Errorf("written:\n%s\nwant:\n%s", buf.String(), in)
	}
	back, err := Read(input.FromBytes("in.jsonl", buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s) {
		t.Errorf("read back %+v, want %+v", back, s)
	}
}

// TestWriteNoSupport: a fact nothing is known to support (a nugget no
// passage was assigned) is written with "support": [] and read back.
func TestWriteNoSupport(t *testing.T) {
	s, err := Read(input.FromBytes("nuggets.jsonl", []byte(`{"qid":"q","query":"why","nuggets":[{"text":"a","importance":"vital"}]}`)))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, s.Topics); err != nil {
		t.Fatal(err)
	}
	want := `{"id":"q","text":"why","answerable":true,"facts":[{"id":"1","text":"a","importance":"vital","support":[]}]}` + "\n"
	if buf.String() != want {
		t.Errorf("written %s, want %s", buf.String(), want)
	}
	back, err := Read(input.FromBytes("topics.jsonl", buf.Bytes()))
	if err != nil || !reflect.DeepEqual(back.Topics, s.Topics) {
		t.Errorf("read back %+v (%v), want %+v", back, err, s.Topics)
	}
}
