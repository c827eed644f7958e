package stages

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/tokenize"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

// reading names what a test reads: the judgments (in format), the
// topics and, when given, the corpus; keep picks the queries (nil: all).
type reading struct {
	judgments, format, topics, corpus string
	keep                              func(string) bool
}

// readBoth reads the files held whole and spilled (Spill), and checks that
// both fail alike or neither does, and that the spill leaves no file
// behind on error.
func readBoth(t *testing.T, content map[string]string, r reading) (held, spilled Input, err error) {
	t.Helper()
	open := func(path string) (*input.File, error) {
		c, ok := content[path]
		if !ok {
			return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
		}
		return input.FromBytes(path, []byte(c)), nil
	}
	format, _ := input.ParseFormat(r.format)
	opt := judgments.Options{Format: format, Scale: judgments.DefaultScale, Keep: r.keep}
	readCorpus := func(in *Input) (err error) {
		if r.corpus != "" {
			var f *input.File
			if f, err = open(r.corpus); err == nil {
				in.Corpus, err = corpus.Read(f)
			}
		}
		return err
	}
	jf, err := open(r.judgments)
	if err == nil {
		held.Judgments, err = judgments.Read(jf, opt)
	}
	if err == nil {
		var tf *input.File
		if tf, err = open(r.topics); err == nil {
			held.Topics, err = topics.ReadWith(tf, topics.Options{Keep: r.keep})
		}
	}
	if err == nil {
		err = readCorpus(&held)
	}
	dir := t.TempDir()
	jf, serr := open(r.judgments)
	if serr == nil {
		stream := func(emit func(judgments.Judgment)) (input.Format, error) { return judgments.Stream(jf, opt, emit) }
		spilled.Spilled, serr = Spill(jf.Name, stream, func() (*input.File, error) { return open(r.topics) }, topics.Options{Keep: r.keep}, opt.Scale, dir)
	}
	if serr == nil {
		serr = readCorpus(&spilled)
	}
	if fmt.Sprint(err) != fmt.Sprint(serr) {
		t.Fatalf("reading whole: %v\nspilled: %v", err, serr)
	}
	if serr != nil {
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Errorf("%d files left behind after an error", len(left))
		}
		return held, spilled, err
	}
	t.Cleanup(func() {
		if err := spilled.Close(); err != nil {
			t.Error(err)
		}
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Errorf("%d files left behind", len(left))
		}
	})
	return held, spilled, nil
}

// describe writes everything a result says, the stages' evaluations
// included.
func describe(t *testing.T, res *Result, err error) string {
	t.Helper()
	if err != nil {
		return "error: " + err.Error()
	}
	b, jerr := json.Marshal(res)
	if jerr != nil {
		t.Fatal(jerr)
	}
	s := string(b)
	for _, sys := range res.Systems {
		for _, st := range sys.Stages {
			s += fmt.Sprintf("\n%s %s %+v", sys.Name, st.Name, *st.Eval)
		}
	}
	return s + fmt.Sprintf("\npositions %v", res.Positions)
}

// TestSpilledMatchesHeld evaluates the demo pipeline and hostile variants
// from judgments and topics held in memory and from a spill file, under
// several policies, with and without summaries and shards: the results,
// errors included, are the same.
func TestSpilledMatchesHeld(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "cmd", "ragstat", "internal", "demo", "fixtures", "pipeline", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	content := map[string]string{"judgments.jsonl": read("judgments.jsonl"), "topics.jsonl": read("topics.jsonl"), "corpus.jsonl": read("corpus.jsonl")}
	traces := read("traces-v1.jsonl") + read("traces-v2.jsonl")
	ts, err := trace.Read(input.FromBytes("traces.jsonl", []byte(traces)))
	if err != nil {
		t.Fatal(err)
	}
	// Each trace twice, the second time later: rows are replaced.
	ts = append(ts, ts...)
	base := reading{judgments: "judgments.jsonl", topics: "topics.jsonl", corpus: "corpus.jsonl"}
	shard := func(q string) bool { return strings.Compare(q, "refund-m") < 0 }
	cl100k, err := tokenize.New("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		r    func(*reading)
		opt  func(*Options)
	}{
		{"defaults", nil, nil},
		{"summary", nil, func(o *Options) { o.Summary = true }},
		{"queries judged", nil, func(o *Options) { o.Policy.Queries = eval.QueriesJudged }},
		{"bounds", nil, func(o *Options) { o.Policy.Unjudged = eval.UnjudgedBounds }},
		{"unanswerable zero", nil, func(o *Options) { o.Policy.Unanswerable = eval.UnanswerableZero }},
		{"shard", func(r *reading) { r.keep = shard }, func(o *Options) { o.Shard = shard }},
		{"tokens", nil, func(o *Options) { o.Tokenizer, o.Summary = cl100k, true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := base
			if tc.r != nil {
				tc.r(&r)
			}
			opt := options()
			opt.Policy.Unjudged = eval.UnjudgedNonrelevant
			if tc.opt != nil {
				tc.opt(&opt)
			}
			held, spilled, err := readBoth(t, content, r)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Evaluate(held, Slice(ts), opt)
			want := describe(t, res, err)
			res, err = Evaluate(spilled, Slice(ts), opt)
			if got := describe(t, res, err); got != want {
				t.Errorf("spilled:\n%s\nheld:\n%s", got, want)
			}
		})
	}
}

// TestSpilledReadErrors checks that a spill reports what reading whole
// reports: problems in lines, repeated judgments and topics, in order.
func TestSpilledReadErrors(t *testing.T) {
	var many strings.Builder
	for i := range 30 {
		fmt.Fprintf(&many, "{\"query\":\"q%d\",\"item\":\"a\",\"grade\":1}\n{\"query\":\"q%d\",\"item\":\"a\",\"grade\":2}\n", i, i)
	}
	for _, tc := range []struct {
		name, qrels, topics string
		format              string
	}{
		{"valid", "{\"query\":\"q\",\"item\":\"a\",\"grade\":1}\n{\"query\":\"r\",\"item\":\"a\",\"grade\":1}\n{\"query\":\"q\",\"item\":\"b\",\"grade\":2}\n", "{\"id\":\"q\"}\n{\"id\":\"r\"}\n", ""},
		{"repeated judgment", "{\"query\":\"q\",\"item\":\"a\",\"grade\":1}\n{\"query\":\"r\",\"item\":\"a\",\"grade\":1}\n{\"query\":\"q\",\"item\":\"a\",\"grade\":2}\n", "{\"id\":\"q\"}\n", ""},
		{"bad line and repeat", "{\"query\":\"q\",\"item\":\"a\",\"grade\":1}\n{\"query\":\"q\",\"item\":\"a\",\"grade\":1}\n{\"query\":\"q\",\"item\":\"b\",\"grade\":9}\n", "{\"id\":\"q\"}\n", ""},
		{"many repeats", many.String(), "{\"id\":\"q\"}\n", ""},
		{"no judgments", "", "{\"id\":\"q\"}\n", ""},
		{"trec", "q 0 a 1\nq 0 b 0\nr 0 a 2\n", "{\"id\":\"q\"}\n{\"id\":\"r\",\"answerable\":false}\n", ""},
		{"json with an empty query", `{"q": {"a": 1}, "e": {}, "r": {"b": 2}}`, "{\"id\":\"q\"}\n{\"id\":\"e\"}\n{\"id\":\"r\"}\n", "json"},
		{"repeated topic", "q 0 a 1\n", "{\"id\":\"q\"}\n{\"id\":\"r\"}\n{\"id\":\"q\"}\n{\"id\":\"q\"}\n", ""},
		{"bad topic and repeat", "q 0 a 1\n", "{\"id\":\"q\"}\n{\"id\":\"q\"}\n{\"nope\":1}\n", ""},
		{"tsv topics", "q 0 a 1\n", "q\twhy\nr\thow\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			content := map[string]string{"qrels": tc.qrels, "topics": tc.topics}
			held, spilled, err := readBoth(t, content, reading{judgments: "qrels", format: tc.format, topics: "topics"})
			if err != nil {
				return // readBoth compared the errors
			}
			ms := options().Metrics
			if held.JudgmentsFormat() != spilled.JudgmentsFormat() {
				t.Errorf("format %q, want %q", spilled.JudgmentsFormat(), held.JudgmentsFormat())
			}
			for _, id := range append(held.Judgments.IDs(), "nope") {
				q, err := spilled.Spilled.get(id)
				if err != nil {
					t.Fatal(err)
				}
				ht, hq := held.Topics.Get(id), held.Judgments.Query(id)
				if q == nil {
					if ht != nil || hq != nil {
						t.Errorf("%s: not found in the spill", id)
					}
					continue
				}
				if fmt.Sprint(q.topic) != fmt.Sprint(ht) || fmt.Sprint(q.q.Items(), q.q.Grades(nil)) != fmt.Sprint(hq.Items(), hq.Grades(nil)) {
					t.Errorf("%s: spilled %v %v, held %v %v", id, q.topic, q.q, ht, hq)
				}
			}
			_ = ms
		})
	}
}

// TestSpillManyQueries spills 20,000 queries whose judgments come in two
// runs each, interleaved, so that several ids share the index's 24-bit
// hash: every query is found, and the judged ones come in the judgments'
// order.
func TestSpillManyQueries(t *testing.T) {
	const n = 20000
	var qrels, tops strings.Builder
	for half := range 2 {
		for i := range n {
			q := (i*7919 + half*13) % n
			fmt.Fprintf(&qrels, "q%d 0 d%d-%d %d\n", q, half, i, (q+half)%3)
		}
	}
	for i := range n {
		fmt.Fprintf(&tops, "{\"id\":\"q%d\",\"answerable\":%v}\n", i, i%10 != 3)
	}
	fmt.Fprintf(&tops, "{\"id\":\"unjudged\"}\n")
	held, spilled, err := readBoth(t, map[string]string{"qrels": qrels.String(), "topics": tops.String()},
		reading{judgments: "qrels", topics: "topics"})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]int{}
	for _, id := range append(held.Judgments.IDs(), "unjudged") {
		seen[queryHash(id)]++
		q, err := spilled.Spilled.get(id)
		if err != nil {
			t.Fatal(err)
		}
		hq := held.Judgments.Query(id)
		if q == nil || q.id != id || q.topic.ID != id || (hq == nil) != (q.q == nil) ||
			hq != nil && fmt.Sprint(q.q.Items(), q.q.Grades(nil)) != fmt.Sprint(hq.Items(), hq.Grades(nil)) {
			t.Fatalf("%s: spilled %+v", id, q)
		}
	}
	if len(seen) == n+1 {
		t.Log("no two ids share a hash: collisions untested")
	}
	var order, want []string
	err = spilled.Spilled.eachJudged(func(q judgedQuery) error {
		if q.pos != len(order) {
			t.Errorf("%s at position %d, want %d", q.id, q.pos, len(order))
		}
		order = append(order, q.id)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range held.Judgments.IDs() {
		if held.Topics.Get(id).Answerable {
			want = append(want, id)
		}
	}
	if fmt.Sprint(order) != fmt.Sprint(want) {
		t.Errorf("judged queries in another order")
	}
}
