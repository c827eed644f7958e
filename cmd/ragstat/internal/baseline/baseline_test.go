package baseline

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/sharedtest"
	"github.com/ragstat/ragstat/topics"
)

var docs = []Doc{
	{"policy", "Refunds are issued within 30 days of purchase. Refund requests need the receipt."},
	{"limits", "Daily withdrawal limits are 500 dollars for standard accounts."},
	{"restore", "To restore a deleted file, open the trash and choose restore."},
	{"noise", "The cafeteria opens at nine."},
	{"refund-faq", "Refund FAQ: how long does a refund take?"},
}

var queries = []Query{
	{"refund", "how do I get a refund"},
	{"limits", "what are the withdrawal limits"},
	{"stop", "the and of"},
}

func TestRanksMatchingPassagesFirst(t *testing.T) {
	rs, err := Search(docs, queries, Options{K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 3 {
		t.Fatalf("%d rankings", len(rs))
	}
	if got := ids(rs[0]); got != "refund-faq policy" {
		t.Errorf("refund: %s", got)
	}
	if got := ids(rs[1]); got != "limits" {
		t.Errorf("limits: %s", got)
	}
	if len(rs[2].Hits) != 0 {
		t.Errorf("a query of stop words matched %v", rs[2].Hits)
	}
}

func ids(r Ranking) string {
	var s []string
	for _, h := range r.Hits {
		s = append(s, h.Item)
	}
	return strings.Join(s, " ")
}

// TestIsBM25 checks a one-term query's score against bleve's BM25:
// idf * t*k1 / (t + k1*(1 - b + b*len/avglen)) with t = sqrt(tf),
// idf = ln(1 + (N - df + 0.5)/(df + 0.5)) and avglen bleve's estimate, the
// field's distinct terms per document rounded up (here 5 terms / 3 docs).
func TestIsBM25(t *testing.T) {
	d := []Doc{{"a", "apple banana"}, {"b", "apple apple cherry grape"}, {"c", "melon"}}
	rs, err := Search(d, []Query{{"q", "apple"}}, Options{K: 10})
	if err != nil {
		t.Fatal(err)
	}
	const k1, b = 1.2, 0.75
	avg := math.Ceil(5.0 / 3.0)
	idf := math.Log(1 + (3-2+0.5)/(2+0.5))
	bm25 := func(tf, n float64) float64 {
		t := math.Sqrt(tf)
		return idf * t * k1 / (t + k1*(1-b+b*n/avg))
	}
	want := map[string]float64{"a": bm25(1, 2), "b": bm25(2, 4)}
	if len(rs[0].Hits) != 2 {
		t.Fatalf("hits %v", rs[0].Hits)
	}
	for _, h := range rs[0].Hits {
		if math.Abs(h.Score-want[h.Item]) > 2e-6 {
			t.Errorf("%s: score %v, BM25 says %v", h.Item, h.Score, want[h.Item])
		}
	}
}

// TestDeterministic: the same input gives the same bytes, whatever the
// order the corpus lists its passages in; equal scores are broken by id.
func TestDeterministic(t *testing.T) {
	var many []Doc
	for i := range 3000 {
		many = append(many, Doc{fmt.Sprintf("p%04d", i), fmt.Sprintf("refund policy section %d", i%7)})
	}
	qs := []Query{{"refund", "refund policy"}, {"s3", "section 3"}}
	first := runBytes(t, many, qs)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2 {
		rng.Shuffle(len(many), func(i, j int) { many[i], many[j] = many[j], many[i] })
		if got := runBytes(t, many, qs); got != first {
			t.Fatal("a shuffled corpus gave another run")
		}
	}
	lines := strings.Split(first, "\n")
	if lines[0] != "refund Q0 p2999 1 "+strings.Fields(lines[0])[4]+" bm25" {
		t.Errorf("ties are not broken by id descending: %q", lines[0])
	}
}

func runBytes(t *testing.T, d []Doc, qs []Query) string {
	t.Helper()
	rs, err := Search(d, qs, Options{K: 50})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteRun(&buf, rs, "bm25"); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestErrors(t *testing.T) {
	if _, err := Search(docs, queries, Options{K: 0}); err == nil {
		t.Error("k 0 accepted")
	}
	var buf bytes.Buffer
	err := WriteRun(&buf, []Ranking{{Query: "a b", Hits: []Hit{{"x", 1}}}}, "bm25")
	if err == nil || !strings.Contains(err.Error(), "space") {
		t.Errorf("an id with a space: %v", err)
	}
}

// TestRun: items without text are left out and counted, a query matching
// nothing is listed as empty, and a topic without text is refused.
func TestRun(t *testing.T) {
	cs, err := corpus.Read(input.FromBytes("corpus.jsonl", []byte(`{"id":"policy","text":"Refunds are issued within 30 days."}
{"id":"image"}
`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, topics, summary, empty, warning, err string
	}{
		{"ranked", `{"id":"refund","text":"refunds"}` + "\n" + `{"id":"stop","text":"the and of"}`,
			"BM25 over 1 passages (1 without text left out), 2 queries, top 5", "stop",
			"warning: 1 queries matched no passage and are absent from the run: stop", ""},
		{"topic without text", `{"id":"refund"}`, "", "", "", "the topic has no text"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts, err := topics.Read(input.FromBytes("topics.jsonl", []byte(c.topics+"\n")))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(cs, ts, Options{K: 5})
			if sharedtest.WantErr(t, err, c.err) {
				return
			}
			if got := res.Summary(); got != c.summary {
				t.Errorf("summary %q, want %q", got, c.summary)
			}
			if got := strings.Join(res.Empty(), ","); got != c.empty {
				t.Errorf("empty %q, want %q", got, c.empty)
			}
			if got := strings.Join(res.Warnings(), "\n"); got != c.warning {
				t.Errorf("warnings %q, want %q", got, c.warning)
			}
		})
	}
}
