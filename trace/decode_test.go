package trace

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/internal/jsonin"
)

// line is a trace with every kind of field: metadata, dates, raw JSON,
// escaped and non-ASCII text.
const line = `{"query":"q","system":"s","scopes":["eu"],"as_of":"2026-01-02","stages":[` +
	`{"name":"candidates","items":[{"id":"a","score":2.5,"scope":"eu","valid_from":"2025-01-01"},{"id":"b","score":1}]},` +
	`{"name":"context","budget_tokens":4000,"answer_reserve_tokens":300,"instructions":"Cite.","request":"Why?","text":"[a] h\u00e9 é",` +
	`"items":[{"id":"a","text":"h\u00e9 é","doc":"d","revision":"2","valid_to":"2027-01-01T00:00:00Z"}]}],` +
	`"answer":{"text":"Yes.","citations":["a"],"abstained":false},"latency_ms":{"candidates":12.5},"config":{"k":[1,2]},"meta":{"x":null}}`

// TestDecodeFastMatchesDecode checks that the fast decoder reads what the
// standard one reads, and refuses what it refuses with the same message,
// and refuses repeated or miscased keys besides.
func TestDecodeFastMatchesDecode(t *testing.T) {
	for _, in := range []string{line,
		`{"query":"q","system":"s","stages":[{"name":"a","items":[]},{"name":"b","items":null},{"name":"c"}]}`,
	} {
		var slow, fast Trace
		if err := jsonin.Decode([]byte(in), &slow); err != nil {
			t.Fatal(err)
		}
		if err := jsonin.DecodeFast([]byte(in), &fast, itemLists); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(slow, fast) {
			t.Fatalf("decoders differ:\n%+v\n%+v", slow, fast)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{`{"query":"q","x":1}`, `unknown field "x" (strict: only documented fields are accepted)`},
		{`{"query":1}`, `field "query": ids must be strings`},
		{`{"query":"q"} x`, "unexpected data after the JSON value"},
		{`{"query":"q","query":"r"}`, `key "query" given twice in one object`},
		{`{"stages":[{"name":"a","name":"b"}]}`, `key "name" given twice in one object`},
		{`{"Query":"q"}`, `unknown object member name "Query"`},
		{`{"latency_ms":{"a":1,"a":2}}`, `key "a" given twice in one object`},
		{`{"query":"h` + "\xff" + `i"}`, `invalid UTF-8`},
		{`{"stages":[{"name":"a","items":[{"id":"x"},{"id":"y","id":"z"}]}]}`, `key "id" given twice in one object`},
		{`{"stages":[{"name":"a","items":[{"id":"x"},{"idx":"y"}]}]}`, `unknown field "idx"`},
		{`{"stages":[{"name":"a","items":[{"id":"x"},7]}]}`, `expected an object, found JSON number`},
		{`{"stages":[{"name":"a","items":{"id":"x"}}]}`, `expected a list of objects, found JSON object`},
		{`{"stages":[{"name":"a","items":[{"id":"x"}}]}`, `invalid JSON`},
		{`{"stages":[{"name":"a","items":[{"id":"x"},]}]}`, `invalid JSON`},
	} {
		var tr Trace
		err := jsonin.DecodeFast([]byte(tc.in), &tr, itemLists)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.in, err, tc.want)
		}
	}
}

// BenchmarkDecode compares the standard decoder, the fast one and
// decodeUsual (with the fast one as fallback, as Scan decodes) on
// traces shaped like bench/gentraces' (50 candidates, 10 reranked, 8
// context passages of 1 KB).
func BenchmarkDecode(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"query":"q000001","system":"bench","stages":[`)
	stage := func(name string, n int, text bool) {
		fmt.Fprintf(&sb, `{"name":%q,"items":[`, name)
		for i := range n {
			if i > 0 {
				sb.WriteByte(',')
			}
			fmt.Fprintf(&sb, `{"id":"q000001-p%02d","score":%d`, i, n-i)
			if text {
				fmt.Fprintf(&sb, `,"text":%q`, strings.Repeat("refund policy ", 72))
			}
			sb.WriteByte('}')
		}
		sb.WriteString("]}")
	}
	stage("candidates", 50, false)
	sb.WriteByte(',')
	stage("reranked", 10, false)
	sb.WriteByte(',')
	stage("context", 8, true)
	sb.WriteString(`],"answer":{"text":"a","citations":["q000001-p00"],"abstained":false},"latency_ms":{"candidates":10.5}}`)
	data := []byte(sb.String())
	for _, d := range []struct {
		name   string
		decode func([]byte, any) error
	}{{"encoding-json", jsonin.Decode}, {"fast", func(data []byte, v any) error { return jsonin.DecodeFast(data, v, itemLists) }},
		{"usual", func(data []byte, v any) error { return decode(data, v.(*Trace)) }}} {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				var tr Trace
				if err := d.decode(data, &tr); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzItemLists checks that decoding items into lists of their exact size
// reads what the fast decoder's own lists read, and refuses what it
// refuses with the same message.
func FuzzItemLists(f *testing.F) {
	f.Add(line)
	f.Add(`{"stages":[{"name":"a","items":[]},{"name":"b","items":null},{"items":[{"id":"x","score":1},{"id":"y","text":"t"}]}]}`)
	f.Add(`{"stages":[{"items":[{"id":"x"},{"id":"y","id":"z"}]}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		var plain, exact Trace
		errPlain := jsonin.DecodeFast([]byte(in), &plain, nil)
		errExact := jsonin.DecodeFast([]byte(in), &exact, itemLists)
		if fmt.Sprint(errPlain) != fmt.Sprint(errExact) {
			t.Fatalf("%q: errors differ: %v, %v", in, errPlain, errExact)
		}
		if errPlain == nil && !reflect.DeepEqual(plain, exact) {
			t.Fatalf("%q: decoded differently:\n%+v\n%+v", in, plain, exact)
		}
	})
}

// usualLine is a trace of the usual shape with every key decodeUsual
// reads, escapes, non-ASCII text and numbers in each form JSON allows.
const usualLine = `{"query":"q\"1\/é","system":"s","stages":[` +
	`{"name":"candidates","items":[{"id":"a","score":2.5},{"id":"b","score":-1E-3},{"id":"c"}]},` +
	`{"name":"context","budget_tokens":4000,"answer_reserve_tokens":0,"reported_tokens":17,"instructions":"Cite.\n","request":"Why?","text":"[a] h\té\r\n\n[b] x",` +
	"\n" + `"items":[ {"id":"a","text":"hé","score":0},{ "text" : "x\\\b\f" , "id" : "b" } ]}],` +
	`"answer":{"text":"Yes.","citations":["a","b"],"abstained":true},"latency_ms":{"candidates":12.5,"generation":1e3}} `

// TestDecodeUsual checks that the usual shape is read by decodeUsual as
// the general decoder reads it, and that what lies outside it is left to
// the general decoder.
func TestDecodeUsual(t *testing.T) {
	var usual, general Trace
	if !decodeUsual([]byte(usualLine), &usual) {
		t.Fatal("the usual shape was not read")
	}
	if err := jsonin.DecodeFast([]byte(usualLine), &general, itemLists); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(usual, general) {
		t.Fatalf("decoders differ:\n%+v\n%+v", usual, general)
	}
	for _, in := range []string{line,
		`{"query":"q","system":"s","stages":[{"name":"a","items":[]}]}`,
		`{"query":"q","system":"s","stages":[{"name":"a","items":null}]}`,
		`{"query":"q","query":"q"}`,
		`{"query":"q\u0041"}`,
		`{"query":"q"} x`,
		`{"query":"h` + "\xff" + `i"}`,
		`{"stages":[{"name":"a","items":[{"id":"x","score":1.}]}]}`,
		`{"stages":[{"name":"a","budget_tokens":1.5}]}`,
		`{"latency_ms":{}}`,
	} {
		var tr Trace
		if decodeUsual([]byte(in), &tr) {
			t.Errorf("%s: read by decodeUsual", in)
		}
	}
}

// FuzzDecodeUsual checks that every line decodeUsual reads is read to the
// same trace by the general decoder (so that falling back to it on the
// rest keeps every error and every refusal).
func FuzzDecodeUsual(f *testing.F) {
	f.Add(usualLine)
	f.Add(line)
	f.Add(`{"query":"q","system":"s","stages":[{"name":"a","items":[{"id":"x","score":-0}]}],"latency_ms":{"a":1e-400}}`)
	f.Add(`{"stages":[{"name":"a","budget_tokens":-0,"items":[{"id":"x","score":1e400}]}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		var usual Trace
		if !decodeUsual([]byte(in), &usual) {
			return
		}
		var general Trace
		if err := jsonin.DecodeFast([]byte(in), &general, itemLists); err != nil {
			t.Fatalf("%q: read by decodeUsual, refused by the general decoder: %v", in, err)
		}
		if !reflect.DeepEqual(usual, general) || fmt.Sprintf("%#v", scores(usual)) != fmt.Sprintf("%#v", scores(general)) {
			t.Fatalf("%q: decoded differently:\n%+v\n%+v", in, usual, general)
		}
	})
}

// scores are a trace's scores and latencies bit for bit (DeepEqual takes
// -0 for 0).
func scores(t Trace) []uint64 {
	var out []uint64
	for _, s := range t.Stages {
		for _, it := range s.Items {
			if it.Score != nil {
				out = append(out, math.Float64bits(*it.Score))
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(t.Latency)) {
		out = append(out, math.Float64bits(t.Latency[k]))
	}
	return out
}
