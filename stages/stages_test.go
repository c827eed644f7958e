package stages

import (
	"math"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

// fixture builds an Input from JSONL texts.
func fixture(t *testing.T, qrels, tops, corp string, traces ...string) (Input, Traces) {
	t.Helper()
	var in Input
	var err error
	if in.Judgments, err = judgments.Read(input.FromBytes("qrels.jsonl", []byte(qrels)), judgments.Options{}); err != nil {
		t.Fatal(err)
	}
	if in.Topics, err = topics.Read(input.FromBytes("topics.jsonl", []byte(tops))); err != nil {
		t.Fatal(err)
	}
	if corp != "" {
		if in.Corpus, err = corpus.Read(input.FromBytes("corpus.jsonl", []byte(corp))); err != nil {
			t.Fatal(err)
		}
	}
	ts, err := trace.Read(input.FromBytes("traces.jsonl", []byte(strings.Join(traces, "\n"))))
	if err != nil {
		t.Fatal(err)
	}
	return in, Slice(ts)
}

func options(names ...string) Options {
	if len(names) == 0 {
		names = []string{"R", "RR", "nDCG"}
	}
	ms, _ := metric.ParseAll(names)
	return Options{Policy: eval.DefaultPolicy(), Metrics: ms, Truncated: TruncatedError}
}

const (
	qrels = `{"query":"q","item":"a","grade":3,"spans":["thirty days"]}
{"query":"q","item":"b","grade":2}
{"query":"q","item":"c","grade":0}
{"query":"q","item":"d","grade":1}`
	topic = `{"id":"q","text":"How long?","facts":[{"id":"f1","support":[{"item":"a","span":"thirty days"}]},{"id":"f2","support":[{"all":[{"item":"b"},{"item":"d"}]}]}]}`
	corp  = `{"id":"a","text":"Returns within thirty days."}
{"id":"b","text":"Exceptions apply to clearance items and gift cards."}
{"id":"c","text":"Noise."}
{"id":"d","text":"Gift cards."}`
	traceQ = `{"query":"q","system":"s","stages":[{"name":"candidates","items":[{"id":"c"},{"id":"a"},{"id":"b"},{"id":"d"}]},{"name":"reranked","items":[{"id":"a"},{"id":"b"},{"id":"c"}]},{"name":"context","items":[{"id":"a","text":"Returns within thirty"},{"id":"b"}]}],"answer":{"text":"Thirty days.","citations":["a","x"],"abstained":false}}`
)

func TestLossAndFacts(t *testing.T) {
	in, ts := fixture(t, qrels, topic, corp, traceQ)
	res, err := Evaluate(in, ts, options())
	if err != nil {
		t.Fatal(err)
	}
	sys := res.Systems[0]
	got := map[string]string{}
	for _, l := range sys.Loss.Lost {
		got[l.What] = l.Status + " @" + l.Reached
	}
	want := map[string]string{
		"a": StatusTruncated + " @reranked",
		"b": StatusDelivered + " @context",
		"d": "cut between candidates and reranked @candidates",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("item %s: %q, want %q", k, got[k], w)
		}
	}
	// f1 needs a's span, lost in packing; f2 needs b and d together, and d
	// was cut by the reranker.
	facts := map[string]string{}
	for _, l := range sys.FactLoss.Lost {
		facts[l.What] = l.Status
	}
	if facts["fact f1"] != StatusTruncated || facts["fact f2"] != "cut between candidates and reranked" {
		t.Errorf("fact losses %v", facts)
	}
	if qf := sys.Facts[0]; qf.Supported[0] != 2 || qf.Supported[1] != 1 || qf.Supported[2] != 0 {
		t.Errorf("facts supported per stage %v", qf.Supported)
	}
	// In the context a counts as grade 0: recall 1/3 (only b), RR 1/2.
	ctx := sys.Stages[2].Eval.Mean
	if math.Abs(ctx[0]-1.0/3) > 1e-12 || ctx[1] != 0.5 {
		t.Errorf("context R, RR = %v", ctx)
	}
	if a := sys.Answers; a.Cited != 2 || len(a.NotShown) != 1 || a.Supported != 0 {
		t.Errorf("citations %+v", a)
	}
}

func TestErrors(t *testing.T) {
	noSpan := `{"query":"q","item":"a","grade":3}
{"query":"q","item":"b","grade":0}`
	short := `{"query":"q","system":"s","stages":[{"name":"context","items":[{"id":"a","text":"Returns"}]}]}`
	tests := []struct {
		name      string
		qrels, tr string
		topic     string
		opt       func(*Options)
		want      string
	}{
		{"truncated without span", noSpan, short, `{"id":"q"}`, nil, "packed text is shorter than the corpus text"},
		{"unjudged", noSpan, `{"query":"q","system":"s","stages":[{"name":"candidates","items":[{"id":"zz"}]}]}`, `{"id":"q"}`, nil, `traces.jsonl:1: query "q", item "zz": stage "candidates" returned it but it has no judgment`},
		{"scope mismatch", noSpan, `{"query":"q","system":"s","scopes":["t2"],"stages":[{"name":"candidates","items":[]}]}`, `{"id":"q","scopes":["t1"]}`, nil, "differ from the topic's"},
		{"no topic", noSpan, `{"query":"other","system":"s","stages":[{"name":"candidates","items":[]}]}`, `{"id":"q"}`, nil, "not in the topics file"},
		{"missing metadata", noSpan, `{"query":"q","system":"s","stages":[{"name":"candidates","items":[{"id":"b"},{"id":"zz"}]}]}`, `{"id":"q","as_of":"2026-01-01"}`,
			func(o *Options) { o.Policy.Unjudged = eval.UnjudgedNonrelevant }, `item "zz": no metadata`},
		{"missing stage", noSpan, `{"query":"q","system":"s","stages":[{"name":"candidates","items":[]}]}` + "\n" + `{"query":"q2","system":"s","stages":[{"name":"reranked","items":[]}]}`,
			`{"id":"q"}` + "\n" + `{"id":"q2"}`, nil, `stages [reranked] differ from [candidates] in system "s"'s first trace (traces.jsonl:1)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opt := options()
			if tc.opt != nil {
				tc.opt(&opt)
			}
			in, ts := fixture(t, tc.qrels, tc.topic, corp, tc.tr)
			_, err := Evaluate(in, ts, opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestTruncatedPolicies(t *testing.T) {
	noSpan := `{"query":"q","item":"a","grade":3}`
	short := `{"query":"q","system":"s","stages":[{"name":"context","items":[{"id":"a","text":"Returns"}]}]}`
	for policy, recall := range map[Truncated]float64{TruncatedInherit: 1, TruncatedDrop: 0} {
		opt := options("R")
		opt.Truncated = policy
		in, ts := fixture(t, noSpan, `{"id":"q"}`, corp, short)
		res, err := Evaluate(in, ts, opt)
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Systems[0].Stages[0].Eval.Mean[0]; got != recall {
			t.Errorf("%s: recall %v, want %v", policy, got, recall)
		}
	}
}

func TestValidity(t *testing.T) {
	q := `{"query":"q","item":"a","grade":3}
{"query":"q","item":"b","grade":2}`
	c := `{"id":"a","doc":"p","revision":"2","scope":"t1","valid_from":"2026-01-01"}
{"id":"b","doc":"p","revision":"1","scope":"t2","valid_to":"2026-01-01"}`
	tr := `{"query":"q","system":"s","stages":[{"name":"context","items":[{"id":"a"},{"id":"b"}]}]}`
	in, ts := fixture(t, q, `{"id":"q","scopes":["t1"],"as_of":"2026-06-01"}`, c, tr)
	res, err := Evaluate(in, ts, options("R"))
	if err != nil {
		t.Fatal(err)
	}
	v := res.Systems[0].Validity
	if len(v.OutOfScope) != 1 || v.InContext != 1 || v.OutOfScope[0].Item != "b" || len(v.Stale) != 1 || len(v.Conflicts) != 1 {
		t.Fatalf("validity %+v", v)
	}
	if got := res.Systems[0].Stages[0].Eval.Mean[0]; got != 1 {
		t.Errorf("recall %v: the out-of-scope item is no positive, in the list or the denominator", got)
	}
}

// TestInvalidEvidenceIsNoPositive is the source document's rule: a query
// with five positive judgments, one out of scope and one stale, whose
// candidates hold the three valid ones, has candidate recall 3/3 and a
// perfect nDCG; the loss report still lists the two invalid ones.
func TestInvalidEvidenceIsNoPositive(t *testing.T) {
	q := `{"query":"q","item":"a","grade":3}
{"query":"q","item":"b","grade":2}
{"query":"q","item":"c","grade":1}
{"query":"q","item":"forbidden","grade":3}
{"query":"q","item":"old","grade":2}
{"query":"q","item":"n","grade":0}`
	c := `{"id":"a","scope":"t1"}
{"id":"b"}
{"id":"c","valid_from":"2026-01-01"}
{"id":"forbidden","scope":"t2"}
{"id":"old","valid_to":"2026-01-01"}
{"id":"n"}`
	tr := `{"query":"q","system":"s","stages":[{"name":"candidates","items":[{"id":"a"},{"id":"b"},{"id":"c"},{"id":"n"}]},` +
		`{"name":"context","items":[{"id":"a"},{"id":"n"}]}]}`
	in, ts := fixture(t, q, `{"id":"q","scopes":["t1"],"as_of":"2026-06-01"}`, c, tr)
	res, err := Evaluate(in, ts, options("R", "nDCG"))
	if err != nil {
		t.Fatal(err)
	}
	sys := res.Systems[0]
	if r, n := sys.Stages[0].Eval.Mean[0], sys.Stages[0].Eval.Mean[1]; r != 1 || math.Abs(n-1) > 1e-12 {
		t.Errorf("candidates: R %v nDCG %v, want 1 and 1", r, n)
	}
	// The context keeps a (grade 3) of the three valid positives.
	idcg := 7 + 3/math.Log2(3) + 1/2.0
	if r, n := sys.Stages[1].Eval.Mean[0], sys.Stages[1].Eval.Mean[1]; math.Abs(r-1.0/3) > 1e-12 || math.Abs(n-7/idcg) > 1e-12 {
		t.Errorf("context: R %v nDCG %v, want 1/3 and %v", r, n, 7/idcg)
	}
	status := map[string]string{}
	for _, l := range sys.Loss.Lost {
		status[l.What] = l.Status
	}
	if status["forbidden"] != StatusOutOfScope || status["old"] != StatusStale || status["a"] != StatusDelivered || len(status) != 5 {
		t.Errorf("loss %v", status)
	}
}

func TestPercentiles(t *testing.T) {
	var xs []float64
	for i := 1; i <= 100; i++ {
		xs = append(xs, float64(i))
	}
	p := percentiles("x", xs)
	if p.P50 != 50 || p.P90 != 90 || p.P99 != 99 || p.Max != 100 {
		t.Fatalf("%+v", p)
	}
}

// TestRecordIDs: the ids an import recorded reach each trace's record,
// the trace's and each stage's; a stage without one has none.
func TestRecordIDs(t *testing.T) {
	traced := `{"query":"q","system":"s","trace_id":"4f8f4c1083e83c45a0809ed94ad4f4d3","stages":[{"name":"candidates","span_id":"4c34cce44a477d1c","items":[{"id":"a"},{"id":"b"}]},{"name":"context","items":[{"id":"a"}]}]}`
	in, ts := fixture(t, qrels, `{"id":"q","text":"How long?"}`, "", traced)
	var got *QueryRecord
	opt := options()
	opt.PerQuery = func(r *QueryRecord) error { got = r; return nil }
	if _, err := Evaluate(in, ts, opt); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.TraceID != "4f8f4c1083e83c45a0809ed94ad4f4d3" || len(got.Stages) != 2 ||
		got.Stages[0].SpanID != "4c34cce44a477d1c" || got.Stages[1].SpanID != "" {
		t.Errorf("record: %+v", got)
	}
}
