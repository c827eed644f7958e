package runs

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/schematest"
)

// collect reads content and returns each query's items in rank order.
func collect(t *testing.T, content string, opt Options) (map[string][]string, input.Format, error) {
	t.Helper()
	var mu sync.Mutex
	out := map[string][]string{}
	f, err := Read(input.FromBytes("run.txt", []byte(content)), opt, func(r *Ranking) error {
		mu.Lock()
		defer mu.Unlock()
		out[strings.Clone(r.Query)] = slices.Collect(func(yield func(string) bool) {
			for _, it := range r.Items {
				if !yield(strings.Clone(it)) {
					return
				}
			}
		})
		return nil
	})
	return out, f, err
}

func TestOrdering(t *testing.T) {
	tests := []struct {
		name, content string
		opt           Options
		want          map[string][]string
		format        input.Format
	}{
		{"trec by score, ties by id descending, rank column ignored",
			"q Q0 a 1 1.0 t\nq Q0 c 2 2.0 t\nq Q0 b 3 1.0 t\nq Q0 d 4 1.0 t\n", Options{},
			map[string][]string{"q": {"c", "d", "b", "a"}}, input.FormatTREC},
		{"trec by rank column", "q Q0 a 3 1.0 t\nq Q0 c 1 2.0 t\nq Q0 b 2 1.0 t\n", Options{Order: ByRank},
			map[string][]string{"q": {"c", "b", "a"}}, input.FormatTREC},
		{"jsonl ordered list kept as given", `{"query":"q","items":["b","a","c"]}` + "\n" + `{"query":"e","items":[]}`, Options{},
			map[string][]string{"q": {"b", "a", "c"}, "e": {}}, input.FormatJSONL},
		{"jsonl scored", `{"query":"q","items":[{"id":"a","score":1},{"id":"b","score":3}]}`, Options{},
			map[string][]string{"q": {"b", "a"}}, input.FormatJSONL},
		{"json object", `{"q":{"a":0.5,"b":2.5,"c":0.5},"e":{}}`, Options{},
			map[string][]string{"q": {"b", "c", "a"}, "e": {}}, input.FormatJSON},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, f, err := collect(t, tc.content, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if f != tc.format {
				t.Errorf("format %s, want %s", f, tc.format)
			}
			if !maps.EqualFunc(got, tc.want, slices.Equal) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name, content string
		opt           Options
		want          []string
	}{
		{"duplicate item", "q Q0 a 1 2 t\nq Q0 b 2 1 t\nq Q0 a 3 0.5 t\n", Options{}, []string{"run.txt:3:", `query "q", item "a"`, "returned twice in one list (also line 1)"}},
		{"duplicate rank", "q Q0 a 1 2 t\nq Q0 b 1 1 t\n", Options{Order: ByRank}, []string{"run.txt:2:", "rank 1 repeats line 1"}},
		{"jsonl duplicate item", `{"query":"q","items":["a","a"]}`, Options{}, []string{"returned twice"}},
		{"jsonl duplicate query", `{"query":"q","items":["a"]}` + "\n" + `{"query":"q","items":["b"]}`, Options{}, []string{"run.txt:2:", "query listed twice (also line 1)"}},
		{"jsonl empty id", `{"query":"q","items":["a",""]}`, Options{}, []string{"empty item id"}},
		{"jsonl mixed items", `{"query":"q","items":["a",{"id":"b","score":1}]}`, Options{}, []string{"mix plain ids"}},
		{"jsonl missing items", `{"query":"q"}`, Options{}, []string{`missing "items"`}},
		{"jsonl bad score", `{"query":"q","items":[{"id":"b","score":"x"}]}`, Options{}, []string{`score "x" is a string`}},
		{"TREC judgments", "q 0 d 1\nq 0 e 0\n", Options{}, []string{"looks like judgments", "did you swap judgments and the run?"}},
		{"JSONL judgments", `{"query":"q","item":"d","grade":1}`, Options{}, []string{"looks like judgments"}},
		{"jsonl score in a string", `{"query":"q","items":[{"id":"b","score":"2.5"}]}`, Options{}, []string{`score "2.5" is a string: write it as a JSON number`}},
		{"json score in a string", `{"q":{"a":"2.5"}}`, Options{}, []string{`score "2.5" is a string`}},
		{"trec score with separator", "q Q0 a 1 1_0 r\n", Options{}, []string{`score "1_0" is not a finite number`}},
		{"trec hexadecimal score", "q Q0 a 1 0x1p3 r\n", Options{}, []string{`score "0x1p3" is not a finite number`}},
		{"jsonl unknown field", `{"query":"q","items":[],"extra":1}`, Options{}, []string{`unknown field "extra"`}},
		{"json huge score", `{"q":{"a":1e999}}`, Options{}, []string{"not a finite number"}},
		{"json repeated item", "{\"q\":{\"a\":1,\n\"a\":2}}", Options{}, []string{"run.txt:2:", `repeated key "a"`}},
		{"empty", "", Options{}, []string{"empty"}},
		{"jsonl numeric query", `{"query":7,"items":["a"]}`, Options{}, []string{"run.txt:1:", `field "query": ids must be strings: quote them ("7", not 7), or pass numeric_ids`}},
		{"jsonl numeric item", `{"query":"q","items":["a",8]}`, Options{}, []string{`query "q": field "items[1]": ids must be strings`, "or pass numeric_ids"}},
		{"jsonl numeric scored item", `{"query":"q","items":[{"id":8,"score":1}]}`, Options{}, []string{`field "items[0].id": ids must be strings`}},
		{"jsonl fractional query", `{"query":7.5,"items":["a"]}`, Options{NumericIDs: true}, []string{`field "query": id 7.5 is a number but not an integer`}},
		{"jsonl exponent item", `{"query":"q","items":[1e3]}`, Options{NumericIDs: true}, []string{`field "items[0]": id 1e3 is a number but not an integer`}},
		{"jsonl null item", `{"query":"q","items":[null]}`, Options{NumericIDs: true}, []string{"item 1: expected an id string"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := collect(t, tc.content, tc.opt)
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

// TestNumericIDs: under NumericIDs an integer id reads as its digits,
// exactly, in every place a JSON Lines run holds an id.
func TestNumericIDs(t *testing.T) {
	content := `{"query":7,"items":[12345678901234567890,-3]}` + "\n" + `{"query":"x","items":[{"id":1,"score":2},{"id":"b","score":1}]}` + "\n"
	got, _, err := collect(t, content, Options{NumericIDs: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"7": {"12345678901234567890", "-3"}, "x": {"1", "b"}}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestParseOrder(t *testing.T) {
	if _, err := ParseOrder("given"); err == nil {
		t.Error("accepted an unknown order")
	}
	if o, err := ParseOrder("RANK"); err != nil || o != ByRank {
		t.Errorf("got %v %v", o, err)
	}
}

func FuzzRead(f *testing.F) {
	for _, seed := range []string{
		"q Q0 a 1 1.0 t\n", "q Q0 a 1 1.0 t\nq Q0 a 2 0.5 t\n", `{"query":"q","items":["a","b"]}`,
		`{"query":"q","items":[{"id":"a","score":1}]}`, `{"q":{"a":1}}`, `{"q":{}}`, "", "q Q0 a 1 nan t\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, err := collect(t, string(data), Options{Workers: 2})
		if err != nil && err.Error() == "" {
			t.Fatal("empty error message")
		}
	})
}

// TestUngroupedRun reads a TREC run whose queries are interleaved: every
// query comes out whole, and a problem is reported once, not once per
// delivery.
func TestUngroupedRun(t *testing.T) {
	grouped := "a Q0 x 1 3 t\na Q0 y 2 2 t\nb Q0 z 1 3 t\nb Q0 w 2 2 t\n"
	mixed := "a Q0 x 1 3 t\nb Q0 z 1 3 t\na Q0 y 2 2 t\nb Q0 w 2 2 t\n"
	want, _, err := collect(t, grouped, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := collect(t, mixed, Options{})
	if err != nil || !maps.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("ungrouped: %v %v, want %v", got, err, want)
	}
	_, _, err = collect(t, mixed+"a Q0 x 3 1 t\n", Options{})
	if err == nil || strings.Count(err.Error(), "returned twice") != 1 {
		t.Fatalf("a repeat in an ungrouped run: %v", err)
	}
}

func TestSchema(t *testing.T) { schematest.Check(t, "run.schema.json", jsonlList{}) }
