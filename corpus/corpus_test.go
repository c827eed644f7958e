package corpus

import (
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
)

func TestRead(t *testing.T) {
	src := `{"id":"policy#2","doc":"refund-policy","revision":"2026-03","scope":"tenant-a","valid_from":"2026-03-01","valid_to":"2026-09-01","text":"..."}
{"id":"faq#7"}`
	c, err := Read(input.FromBytes("corpus.jsonl", []byte(src)))
	if err != nil {
		t.Fatal(err)
	}
	if it := c.Get("policy#2"); it.Scope != "tenant-a" || !it.HasText || it.ValidTo.String() != "2026-09-01" {
		t.Fatalf("%+v", it)
	}
	if it := c.Get("faq#7"); it.HasText || it.Known() {
		t.Fatalf("%+v", it)
	}
	var nilCorpus *Corpus
	if nilCorpus.Get("x") != nil {
		t.Fatal("nil corpus found an item")
	}
}

func TestErrors(t *testing.T) {
	for src, want := range map[string]string{
		`{"doc":"d"}`:                      `missing or empty "id"`,
		`{"id":"a"}` + "\n" + `{"id":"a"}`: "item repeated (also line 1)",
		`{"id":"a","valid_from":"2026-05-01","valid_to":"2026-01-01"}`:      "is not after valid_from",
		`{"id":"a","tenant":"x"}`:                                           `unknown field "tenant"`,
		`{"id":"refund","text":"How do I get a refund?","answerable":true}`: `c.jsonl:1: looks like a topics file (it has "answerable"), not a corpus (did you give the topics as corpus?)`,
	} {
		_, err := Read(input.FromBytes("c.jsonl", []byte(src)))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", src, err, want)
		}
	}
}

func TestMerge(t *testing.T) {
	m := Meta{Scope: "a"}.Merge(Meta{Scope: "b", Doc: "d"})
	if m.Scope != "a" || m.Doc != "d" {
		t.Fatalf("%+v", m)
	}
}

func FuzzRead(f *testing.F) {
	f.Add(`{"id":"a","doc":"d","revision":"1","valid_from":"2026-01-01T00:00:00Z"}`)
	f.Fuzz(func(t *testing.T, src string) {
		c, err := Read(input.FromBytes("c.jsonl", []byte(src)))
		if err != nil {
			return
		}
		for _, it := range c.Items {
			if c.Get(it.ID) != it {
				t.Fatal("index disagrees with items")
			}
		}
	})
}
