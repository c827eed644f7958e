package eval

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/sharedtest"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/runs"
)

func evaluator(t *testing.T, qrels string, p Policy, names ...string) *Evaluator {
	t.Helper()
	set, err := judgments.Read(input.FromBytes("qrels.txt", []byte(qrels)), judgments.Options{Scale: p.Scale})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := metric.ParseAll(names)
	if err != nil {
		t.Fatal(err)
	}
	var docOf func(string) string
	if p.Unit == UnitDoc {
		docOf = func(item string) string { // the document is what comes before the last #
			if i := strings.LastIndex(item, "#"); i > 0 {
				return item[:i]
			}
			return item
		}
	}
	e, err := New(set, p, ms, docOf)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func runText(t *testing.T, e *Evaluator, run string) (*Result, error) {
	t.Helper()
	return e.Run("r", input.FromBytes("run.txt", []byte(run)), runs.Options{})
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestMacroNotPooled(t *testing.T) {
	qrels := "a 0 x 1\nb 0 y1 1\nb 0 y2 1\nb 0 y3 1\n"
	e := evaluator(t, qrels, DefaultPolicy(), "R@10")
	res, err := e.Lists("r", map[string][]string{"a": {"x"}, "b": {}})
	if err != nil {
		t.Fatal(err)
	}
	// Macro: (1 + 0) / 2. Pooled would be 1/4.
	if !near(res.Mean[0], 0.5) {
		t.Fatalf("mean recall %v, want the macro 0.5", res.Mean[0])
	}
	if len(res.Rows) != 2 || res.Rows[0].Query != "a" {
		t.Fatalf("rows %+v", res.Rows)
	}
}

func TestQuerySets(t *testing.T) {
	run := "refund Q0 policy 1 3 t\nother Q0 x 1 1 t\n"
	tests := []struct {
		queries QuerySet
		err     []string
		rows    int
		ignored string
	}{
		{QueriesExact, []string{`1 query judged in qrels.txt but absent from the run: "limits"`, `1 query in the run but not judged in qrels.txt: "other"`}, 0, ""},
		{QueriesJudged, nil, 2, "other"},
		{QueriesRun, []string{`in the run but not judged`}, 0, ""},
	}
	for _, tc := range tests {
		p := DefaultPolicy()
		p.Queries = tc.queries
		res, err := runText(t, evaluator(t, sharedtest.Qrels, p, "R@10"), run)
		if tc.err != nil {
			for _, w := range tc.err {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("%s: error %v lacks %q", tc.queries, err, w)
				}
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.queries, err)
		}
		if len(res.Rows) != tc.rows || strings.Join(res.Ignored, ",") != tc.ignored {
			t.Errorf("%s: rows %d ignored %v", tc.queries, len(res.Rows), res.Ignored)
		}
		if tc.queries == QueriesJudged && (!res.Rows[1].Missing || res.Rows[1].Values[0] != 0) {
			t.Errorf("missing query not scored as an empty list: %+v", res.Rows[1])
		}
	}
	p := DefaultPolicy()
	p.Queries = QueriesRun
	res, err := runText(t, evaluator(t, sharedtest.Qrels, p, "R@10"), "refund Q0 policy 1 3 t\n")
	if err != nil || len(res.Rows) != 1 || strings.Join(res.Ignored, ",") != "limits" {
		t.Fatalf("--queries run: %v %+v", err, res)
	}
}

func TestEmptyListIsAnOutcome(t *testing.T) {
	e := evaluator(t, sharedtest.Qrels, DefaultPolicy(), "R@10", "nDCG@10", "RR@10")
	res, err := e.Run("r", input.FromBytes("run.jsonl", []byte(`{"query":"refund","items":[]}`+"\n"+`{"query":"limits","items":["limit"]}`)), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Rows[0].Values {
		if v != 0 {
			t.Fatalf("empty list scored %v", res.Rows[0].Values)
		}
	}
}

func TestUnjudgedPolicies(t *testing.T) {
	// limits: ranks limit(3), hole, scope(2).
	run := "refund Q0 policy 1 3 t\nlimits Q0 limit 1 3 t\nlimits Q0 hole 2 2 t\nlimits Q0 scope 3 1 t\n"
	p := DefaultPolicy()
	_, err := runText(t, evaluator(t, sharedtest.Qrels, p, "P@2"), run)
	if err == nil || !strings.Contains(err.Error(), `run.txt:3: query "limits", item "hole": returned at rank 2 but has no judgment`) {
		t.Fatalf("error policy: %v", err)
	}
	want := map[Unjudged][2]float64{
		UnjudgedNonrelevant: {0.5, 0},
		UnjudgedSkip:        {1, 0},
		UnjudgedBounds:      {0.5, 1},
	}
	for u, w := range want {
		p.Unjudged = u
		res, err := runText(t, evaluator(t, sharedtest.Qrels, p, "P@2", "Judged@2"), run)
		if err != nil {
			t.Fatal(err)
		}
		row := res.Rows[1]
		if !near(row.Values[0], w[0]) || row.Unjudged != 1 {
			t.Errorf("%s: P@2 %v (want %v), unjudged %d", u, row.Values[0], w[0], row.Unjudged)
		}
		if u == UnjudgedBounds && (row.High == nil || !near(row.High[0], w[1]) || !near(row.Values[1], 0.5)) {
			t.Errorf("bounds: %+v", row)
		}
		if u != UnjudgedBounds && row.High != nil {
			t.Errorf("%s: unexpected high values", u)
		}
	}
}

func TestUnanswerable(t *testing.T) {
	qrels := sharedtest.Qrels + "empty 0 nothing 0\n"
	run := "refund Q0 policy 1 3 t\nlimits Q0 limit 1 3 t\nempty Q0 nothing 1 1 t\n"
	_, err := runText(t, evaluator(t, qrels, DefaultPolicy(), "R@10"), run)
	if err == nil || !strings.Contains(err.Error(), `1 query with no judgment at or above grade 1: "empty"`) {
		t.Fatalf("got %v", err)
	}
	p := DefaultPolicy()
	p.Unanswerable = UnanswerableExclude
	res, err := runText(t, evaluator(t, qrels, p, "R@10"), run)
	if err != nil || len(res.Rows) != 2 || strings.Join(res.Excluded, ",") != "empty" {
		t.Fatalf("exclude: %v %+v", err, res)
	}
	// A threshold of 3 makes limits' scope non-relevant but keeps limit.
	p = DefaultPolicy()
	p.MinGrade = 3
	res, err = runText(t, evaluator(t, sharedtest.Qrels, p, "R@10"), "refund Q0 exception 1 3 t\nlimits Q0 scope 1 3 t\nlimits Q0 limit 2 2 t\n")
	if err != nil || res.Rows[0].Values[0] != 0 || res.Rows[1].Values[0] != 1 {
		t.Fatalf("min grade 3: %v %+v", err, res.Rows)
	}
}

func TestUnitDoc(t *testing.T) {
	qrels := "q 0 pol 3\nq 0 faq 1\n"
	p := DefaultPolicy()
	p.Unit = UnitDoc
	e := evaluator(t, qrels, p, "R@2", "nDCG@2", "NumRet")
	res, err := e.Run("r", input.FromBytes("run.jsonl", []byte(`{"query":"q","items":["pol#1","pol#2","faq#9"]}`)), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	row := res.Rows[0]
	if row.Folded != 1 || row.Values[0] != 1 || row.Values[1] != 1 || row.Values[2] != 2 {
		t.Fatalf("doc unit row %+v", row)
	}
}

func TestScoreQueryNotJudged(t *testing.T) {
	e := evaluator(t, sharedtest.Qrels, DefaultPolicy(), "R@10")
	if _, err := e.Score("x", &runs.Ranking{Query: "nope"}); err == nil {
		t.Fatal("scored a query with no judgments")
	}
}

func TestDocMapErrors(t *testing.T) {
	for content, want := range map[string]string{
		"a\tb\na\tc\n":                 "mapped twice (also line 1)",
		"a b\n":                        "expected 2 tab-separated fields",
		`{"item":"a"}`:                 "empty item or document id",
		`{"item":"a","doc":"d","x":1}`: "unknown field",
	} {
		_, err := ReadDocMap(input.FromBytes("map.tsv", []byte(content)))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", content, err, want)
		}
	}
}

func FuzzReadDocMap(f *testing.F) {
	f.Add("a\tb\n")
	f.Add(`{"item":"a","doc":"d"}`)
	f.Fuzz(func(t *testing.T, src string) {
		docOf, err := ReadDocMap(input.FromBytes("map", []byte(src)))
		if err == nil && docOf("never-mapped-item-id") != "never-mapped-item-id" {
			t.Fatal("an unmapped item must be its own document")
		}
	})
}

// BenchmarkRun evaluates a synthetic TREC run of 200 queries x 1,000
// items, ~100 judged each, the shape of the speed target's run.
func BenchmarkRun(b *testing.B) {
	var qrels, run strings.Builder
	for q := range 200 {
		for d := range 1000 {
			item := fmt.Sprintf("msmarco_passage_%02d_%09d", d%69, q*7919+d)
			if d%10 == 0 {
				fmt.Fprintf(&qrels, "q%d 0 %s %d\n", q, item, d%4)
			}
			fmt.Fprintf(&run, "q%d Q0 %s %d %.6f bench\n", q, item, d+1, 1000-float64(d)/7)
		}
	}
	set, err := judgments.Read(input.FromBytes("qrels", []byte(qrels.String())), judgments.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ms, _ := metric.ParseAll([]string{"R@10", "R@100", "R@1000", "RR@10", "nDCG@10", "nDCG@100", "P@10", "AP"})
	p := DefaultPolicy()
	p.Unjudged = UnjudgedNonrelevant
	e, _ := New(set, p, ms, nil)
	data := []byte(run.String())
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := e.Run("r", input.FromBytes("run", data), runs.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBoundsSpanBothReadings checks that a hole beyond a metric's cutoff
// does not lower its optimistic reading: recall@1 of [rel, hole] stays 1/2
// at worst and 1/2 at best, not 1/3.
func TestBoundsSpanBothReadings(t *testing.T) {
	p := DefaultPolicy()
	p.Unjudged = UnjudgedBounds
	e := evaluator(t, "q 0 a 1\nq 0 b 1\n", p, "R@1", "R@2", "Judged@2")
	res, err := e.Lists("r", map[string][]string{"q": {"a", "hole"}})
	if err != nil {
		t.Fatal(err)
	}
	row := res.Rows[0]
	want := [][2]float64{{0.5, 0.5}, {0.5, 2.0 / 3}, {0.5, 0.5}}
	for i, w := range want {
		if !near(row.Values[i], w[0]) || !near(row.High[i], w[1]) {
			t.Errorf("%s = [%v, %v], want %v", e.Metrics()[i].Name(), row.Values[i], row.High[i], w)
		}
	}
}
