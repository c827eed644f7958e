package topics

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/jsonin"
)

func TestRead(t *testing.T) {
	src := `{"id":"refund-clearance","text":"Can I return a clearance item?","tags":["multi-doc"],"answerable":true,"scopes":["tenant-a"],"as_of":"2026-06-01","family":"refund","facts":[{"id":"window","text":"Returns within 30 days","support":[{"item":"policy#2","span":"within 30 days"},{"item":"faq#7"}]},{"id":"clearance","support":[{"all":[{"item":"exceptions#4","span":"final sale"},{"item":"s2"}]}]}],"answers":["No."]}
{"id":"crypto","answerable":false}`
	s, err := Read(input.FromBytes("topics.jsonl", []byte(src)))
	if err != nil {
		t.Fatal(err)
	}
	tp := s.Get("refund-clearance")
	if !tp.Answerable || tp.AsOf.String() != "2026-06-01" || len(tp.Facts) != 2 || len(tp.Facts[0].Support) != 2 {
		t.Fatalf("%+v", tp)
	}
	if all := tp.Facts[1].Support[0]; len(all) != 2 || all[0].Span != "final sale" {
		t.Fatalf("all-of support %+v", all)
	}
	if s.Get("crypto").Answerable {
		t.Fatal("answerable:false ignored")
	}
}

// TestTSV: the tab-separated topics TREC collections ship are read as
// they are; a byte-order mark and CRLF line ends are no part of them.
func TestTSV(t *testing.T) {
	s, err := Read(input.FromBytes("queries.tsv", []byte("\ufeff1048585\twhat is paula deen's brother\r\n2\tAndrogen receptor define\r\n")))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Topics) != 2 || s.Get("1048585").Text != "what is paula deen's brother" || s.Get("2").Text != "Androgen receptor define" || !s.Get("2").Answerable {
		t.Errorf("%+v", s.Topics)
	}
}

func TestErrors(t *testing.T) {
	for src, want := range map[string]string{
		`{"text":"x"}`:                                   `missing or empty "id"`,
		`{"id":"a"}` + "\n" + `{"id":"a"}`:               "topic repeated (also line 1)",
		`{"id":"a","facts":[{"id":"f","support":null}]}`: "has no support",
		`{"id":"a","facts":[{"id":"f"}]}`:                "has no support",
		`{"id":"a","facts":[{"id":"f","support":[{"item":"x","all":[{"item":"y"}]}]}]}`: "not both",
		`{"id":"a","answerable":false,"facts":[{"id":"f","support":[{"item":"x"}]}]}`:   "cannot require facts",
		`{"id":"a","as_of":"yesterday"}`:                                                "neither YYYY-MM-DD",
		`{"id":"a","facts":[{"id":"f","importance":"high","support":[{"item":"x"}]}]}`:  `importance "high" is neither "vital" nor "okay"`,
		`{"id":"a","colour":"red"}`:                                                     `unknown field "colour"`,
		`{"id":"a","tags":"red"}`:                                                       `field "tags": expected a list of strings, found JSON string`,
		`{"id":7}`:                                                                      `field "id": ids must be strings`,
		`[1]`:                                                                           "expected a JSON object, found JSON array",
		"1\tquery\n2 no tab":                                                            "t.jsonl:2: no tab",
	} {
		_, err := Read(input.FromBytes("t.jsonl", []byte(src)))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", src, err, want)
		}
	}
}

func FuzzRead(f *testing.F) {
	f.Add(`{"id":"a","facts":[{"id":"f","support":[{"item":"x","span":"y"}]}]}`)
	f.Add(`{"id":"a","answerable":false,"meta":{"k":1}}`)
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Read(input.FromBytes("t.jsonl", []byte(src)))
		if err != nil {
			return
		}
		for _, tp := range s.Topics {
			for _, f := range tp.Facts {
				for _, alt := range f.Support {
					if len(alt) == 0 {
						t.Fatalf("fact %+v: an empty alternative accepted", f)
					}
				}
			}
		}
	})
}

// TestReadWithKeep keeps one shard's topics; every line is still checked.
func TestReadWithKeep(t *testing.T) {
	data := `{"id":"a","text":"A"}` + "\n" + `{"id":"b","text":"B"}` + "\n"
	keep := Options{Keep: func(id string) bool { return id == "b" }}
	s, err := ReadWith(input.FromBytes("topics.jsonl", []byte(data)), keep)
	if err != nil || len(s.Topics) != 1 || s.Get("a") != nil || s.Get("b") == nil || s.Get("b").Line != 2 {
		t.Fatalf("%+v, %v", s, err)
	}
	if _, err := ReadWith(input.FromBytes("topics.jsonl", []byte(data+"{\"id\":\"a\",\"bad\":1}\n")), keep); err == nil {
		t.Error("a malformed topic of another shard was accepted")
	}
}

// FuzzParseJSON checks that a topics line reads to the same topic, or the
// same error, with the fast decoder tried first (jsonin.DecodeSame) as
// with the strict standard decoder alone.
func FuzzParseJSON(f *testing.F) {
	f.Add(`{"id":"refund-clearance","text":"Can I return a clearance item?","tags":["multi-doc"],"answerable":true,"scopes":["tenant-a"],"as_of":"2026-06-01","family":"refund","facts":[{"id":"window","text":"Returns within 30 days","support":[{"item":"policy#2","span":"within 30 days"},{"item":"faq#7"}]},{"id":"clearance","support":[{"all":[{"item":"exceptions#4","span":"final sale"},{"item":"s2"}]}]}],"answers":["No."]}`)
	f.Add(`{"facts":[{"id":"f","support":[{"item":"q000000-p42"},{"item":"q000000-p29"}]}],"id":"q000000","text":"question q000000"}`)
	f.Add(`{"id":"a","answerable":null,"as_of":null,"tags":null,"meta":{"k":[1,{"x":"\u00e9"}], "k2" : null}}`)
	f.Add(`{"ID":"a","Text":"\ud800","meta":{"a":1,"a":2}}`)
	f.Fuzz(func(t *testing.T, line string) {
		same, errSame := parseJSON([]byte(line))
		std, errStd := parseWith([]byte(line), jsonin.Decode)
		if fmt.Sprint(errSame) != fmt.Sprint(errStd) {
			t.Fatalf("%q: errors differ: %v, %v", line, errSame, errStd)
		}
		if !reflect.DeepEqual(same, std) {
			t.Fatalf("%q: read differently:\n%#v\n%#v", line, same, std)
		}
	})
}

// BenchmarkParseJSON reads a topic shaped like bench/gentraces'.
func BenchmarkParseJSON(b *testing.B) {
	line := []byte(`{"facts":[{"id":"f","support":[{"item":"q000000-p42"},{"item":"q000000-p29"}]}],"id":"q000000","text":"question q000000"}`)
	for _, d := range []struct {
		name   string
		decode func([]byte, any) error
	}{{"standard", jsonin.Decode}, {"same", jsonin.DecodeSame}} {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				if _, err := parseWith(line, d.decode); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
