package pool

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/schematest"
	"github.com/ragstat/ragstat/internal/sharedtest"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/topics"
)

var rankings = []Ranking{
	{System: "bm25", Query: "q1", Items: []string{"a", "b", "c", "d"}},
	{System: "dense", Query: "q1", Items: []string{"b", "e", "a", "f"}},
	{System: "dense", Query: "q2", Items: []string{"x", "y"}},
	// A trace gives one list per stage; the system's top k is their union.
	{System: "rag", Query: "q1", Items: []string{"g", "a"}},
	{System: "rag", Query: "q1", Items: []string{"a", "h"}},
}

func TestBuild(t *testing.T) {
	judged := func(q, item string) bool { return q == "q1" && item == "b" }
	res, err := Build(rankings, Options{Depth: 2, Seed: 7, Judged: judged})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for i, e := range res.Queue {
		if e.Order != i+1 {
			t.Errorf("order %d at %d", e.Order, i)
		}
		got[e.Query+"/"+e.Item] = strings.Join(e.Systems, ",")
	}
	want := map[string]string{"q1/a": "bm25,rag", "q1/e": "dense", "q1/g": "rag", "q1/h": "rag", "q2/x": "dense", "q2/y": "dense"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("queue %v, want %v", got, want)
	}
	if res.AlreadyJudged != 1 || res.Queries != 2 {
		t.Errorf("judged %d, queries %d", res.AlreadyJudged, res.Queries)
	}
	// Queries stay together, in id order.
	if res.Queue[0].Query != "q1" || res.Queue[len(res.Queue)-1].Query != "q2" {
		t.Errorf("queries interleaved: %+v", res.Queue)
	}
	stats := map[string]SystemStats{}
	for _, s := range res.Systems {
		stats[s.System] = s
	}
	bm := stats["bm25"] // top 2: a, b (b judged); ranks 3-4: c, d (neither pooled)
	if bm.TopK != 2 || bm.Judged != 1 || bm.Pooled != 1 || bm.Unique != 0 || bm.Deeper != 2 || bm.DeeperJudged != 0 || bm.JudgedAfter() != 1 || bm.JudgedBefore() != 0.5 {
		t.Errorf("bm25 %+v", bm)
	}
	dense := stats["dense"] // q1: b (judged), e (unique); q2: x, y (unique); ranks 3-4 of q1: a (pooled), f
	if dense.Queries != 2 || dense.TopK != 4 || dense.Unique != 3 || dense.Deeper != 2 || dense.DeeperJudged != 1 || dense.DeeperAfter() != 0.5 {
		t.Errorf("dense %+v", dense)
	}
	rag := stats["rag"] // union of stages: g, a; h at rank 2 of a stage is in the top k too
	if rag.TopK != 3 || rag.Unique != 2 {
		t.Errorf("rag %+v", rag)
	}
}

// An item that is not acceptable evidence for its query (out of scope,
// stale) is neither pooled nor counted in a system's top k.
func TestBuildLeavesInvalidEvidenceOut(t *testing.T) {
	cs, err := corpus.Read(input.FromBytes("corpus.jsonl", []byte(`{"id":"a","scope":"t2"}
{"id":"e","valid_to":"2026-01-01"}
{"id":"b","scope":"t1"}`)))
	if err != nil {
		t.Fatal(err)
	}
	ts, err := topics.Read(input.FromBytes("topics.jsonl", []byte(`{"id":"q1","scopes":["t1"],"as_of":"2026-06-01"}`)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Build(rankings, Options{Depth: 2, Invalid: InvalidEvidence(cs, ts)})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Queue {
		if e.Query == "q1" && (e.Item == "a" || e.Item == "e") {
			t.Errorf("invalid evidence pooled: %+v", e)
		}
	}
	for _, s := range res.Systems {
		// bm25's top 2 is a (out of scope), b; dense's q1 top 2 is b, e (stale); rag's is g, a, h.
		want := map[string][2]int{"bm25": {1, 1}, "dense": {3, 1}, "rag": {2, 1}}[s.System]
		if s.TopK != want[0] || s.Invalid != want[1] {
			t.Errorf("%s: top k %d, invalid %d; want %v", s.System, s.TopK, s.Invalid, want)
		}
	}
}

func TestShuffleSeeded(t *testing.T) {
	var items []string
	for i := range 50 {
		items = append(items, fmt.Sprintf("d%02d", i))
	}
	rs := []Ranking{{System: "s", Query: "q", Items: items}, {System: "s", Query: "r", Items: items[:5]}}
	order := func(seed uint64, rs []Ranking) []string {
		res, err := Build(rs, Options{Depth: 50, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range res.Queue {
			if e.Query == "q" {
				out = append(out, e.Item)
			}
		}
		return out
	}
	a, b, c := order(1, rs), order(1, rs), order(2, rs)
	if !slices.Equal(a, b) {
		t.Error("the same seed gave two orders")
	}
	if slices.Equal(a, c) {
		t.Error("two seeds gave one order")
	}
	if slices.IsSorted(a) || slices.Equal(a, items) {
		t.Error("the queue shows the rank order")
	}
	// Another query added or removed leaves this query's order alone.
	if d := order(1, rs[:1]); !slices.Equal(a, d) {
		t.Error("the order of q depends on the other queries")
	}
}

func TestBuildErrors(t *testing.T) {
	if _, err := Build(rankings, Options{Depth: 0}); err == nil {
		t.Error("depth 0 accepted")
	}
	if _, err := Build([]Ranking{{System: "", Query: "q"}}, Options{Depth: 1}); err == nil {
		t.Error("a nameless system accepted")
	}
}

func TestQueueRoundTrip(t *testing.T) {
	res, _ := Build(rankings, Options{Depth: 3, Seed: 1})
	var b strings.Builder
	if err := WriteQueue(&b, res.Queue); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), `{"query":"q1","item":`) || !strings.Contains(b.String(), `"systems":["`) {
		t.Errorf("queue file:\n%s", b.String())
	}
	back, err := ReadQueue(input.FromBytes("queue.jsonl", []byte(b.String())))
	if err != nil {
		t.Fatal(err)
	}
	for i := range back {
		back[i].Line = 0
	}
	if fmt.Sprint(back) != fmt.Sprint(res.Queue) {
		t.Errorf("read back\n%v\nwrote\n%v", back, res.Queue)
	}
}

func TestReadQueueErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"query":"q","item":"d","systems":[],"order":1}` + "\n" + `{"query":"q","item":"d","systems":[],"order":2}`, `q.jsonl:2: query "q", item "d": duplicate queue entry (also line 1)`},
		{`{"query":"q","item":"d","order":1}` + "\n" + `{"query":"q","item":"e","order":1}`, `q.jsonl:2: query "q", item "e": order 1 repeats line 1`},
		{`{"query":"q","item":"d","order":0}`, "not a positive integer"},
		{`{"query":"q","item":"","order":1}`, `missing or empty "item"`},
		{`{"query":"q","item":"d","order":1,"rank":3}`, `unknown field "rank"`},
		{`{"query":"q","item":"d","order":1}` + "\n\n", "blank line"},
	} {
		_, err := ReadQueue(input.FromBytes("q.jsonl", []byte(c.in)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

// TestQueueSchema keeps docs/schema/queue.schema.json in step with Entry.
func TestQueueSchema(t *testing.T) { schematest.Check(t, "queue.schema.json", Entry{}) }

// TestPool: the judgments, topics and corpus of Sources become the judged
// and invalid tests, and topics go with a corpus.
func TestPool(t *testing.T) {
	ins, err := systems.Open([]string{"-"}, strings.NewReader("q1 Q0 a 1 2 bm25\nq1 Q0 b 2 1 bm25\n"), systems.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer systems.Close(ins)
	js, err := judgments.Read(input.FromBytes("qrels", []byte("q1 0 a 1\nq1 0 b -1\n")), judgments.Options{Scale: JudgedScale})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := topics.Read(input.FromBytes("topics.jsonl", []byte(`{"id":"q1","scopes":["t1"]}`)))
	if err != nil {
		t.Fatal(err)
	}
	cs, err := corpus.Read(input.FromBytes("corpus.jsonl", []byte(`{"id":"b","scope":"t1"}`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		src   Sources
		queue string
		err   string
	}{
		{"nothing judged", Sources{}, "q1/a q1/b", ""},
		{"a judged, b pooled before", Sources{Judgments: js}, "q1/b", ""},
		{"topics without a corpus", Sources{Topics: ts}, "", "topics and corpus go together"},
		{"corpus without topics", Sources{Corpus: cs}, "", "topics and corpus go together"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.src.Systems = ins
			res, err := Pool(c.src, Options{Depth: 2})
			if sharedtest.WantErr(t, err, c.err) {
				return
			}
			var got []string
			for _, e := range res.Queue {
				got = append(got, e.Query+"/"+e.Item)
			}
			slices.Sort(got)
			if strings.Join(got, " ") != c.queue || res.Depth != 2 {
				t.Errorf("queue %v, depth %d; want %s", got, res.Depth, c.queue)
			}
		})
	}
}
