package stages

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/analysis"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

// pipeline reads the demo's pipeline fixtures.
func pipeline(t *testing.T, files ...string) (Input, Traces) {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "cmd", "ragstat", "internal", "demo", "fixtures", "pipeline", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var traces []string
	for _, f := range files {
		traces = append(traces, strings.TrimSpace(read(f)))
	}
	return fixture(t, read("judgments.jsonl"), read("topics.jsonl"), read("corpus.jsonl"), traces...)
}

// v3 packs the stale 2025 revision, policy#2, shipping, and the FAQ
// passage cut down to the very words of policy#2 (an exact repeat), and
// answers right.
const traceV3 = `{"query":"refund-window","system":"v3","scopes":["tenant-a"],"as_of":"2026-06-01","stages":[{"name":"context","items":[{"id":"policy-2025#2","text":"one two three four"},{"id":"policy#2","text":"Refund policy: within 30 days."},{"id":"shipping#3","text":"Returns are accepted within 30 days"},{"id":"faq#7","text":"refund policy within 30 days"}]}],"answer":{"text":"Within 30 days of delivery.","citations":["faq#7"],"abstained":false}}`

func TestAnalysesOnThePipeline(t *testing.T) {
	in, tr := pipeline(t, "traces-v1.jsonl", "traces-v2.jsonl")
	ts := []*trace.Trace{}
	if err := tr(func(x *trace.Trace) error { ts = append(ts, x); return nil }); err != nil {
		t.Fatal(err)
	}
	v3, err := trace.Read(input.FromBytes("v3.jsonl", []byte(traceV3)))
	if err != nil {
		t.Fatal(err)
	}
	opt := options()
	opt.Policy.Unjudged = "nonrelevant"
	opt.Policy.Queries = eval.QueriesRun
	a := DefaultAnalysisOptions()
	a.Target, a.Bins = analysis.Target{Precision: 0.9}, 2
	opt.Analyses = &a
	res, err := Evaluate(in, Slice(append(slices.Clone(ts), v3...)), opt)
	if err != nil {
		t.Fatal(err)
	}
	// The analyses do not depend on the order traces arrive in.
	all := append(ts, v3...)
	slices.Reverse(all)
	again, err := Evaluate(in, Slice(all), opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range res.Systems {
		if !reflect.DeepEqual(s.Analyses, again.Systems[i].Analyses) {
			t.Errorf("system %s: the analyses change with the order of the traces", s.Name)
		}
	}
	v1, v2, sys3 := res.Systems[0].Analyses, res.Systems[1].Analyses, res.Systems[2].Analyses

	// Calibration, per system and stage. v2's reranked lists hold six
	// judged items scored 5.0 (g3), 3.9 (g3), 2.8 (g1); 5.0 (g3), 3.9
	// (g2); 5.0 (limits#1, g3): two bins over [2.8, 5], every item
	// relevant, so the lowest cut, 2.8, keeps precision 1 and recall 1.
	c := v2.Calibration[1]
	if c.Stage != "reranked" || c.Queries != 3 || c.Judged != 6 || c.ECE != nil ||
		c.Bins[0].Count != 1 || c.Bins[1].Count != 5 || !close(c.Bins[1].MeanScore, (5+3.9+5+3.9+5)/5) ||
		c.Bins[0].Relevant != 1 || c.Bins[1].Relevant != 1 ||
		c.Threshold == nil || *c.Threshold != 2.8 || c.Precision != 1 || c.Recall != 1 || c.EmptyQueries != 0 {
		t.Errorf("v2 reranked calibration %+v", c)
	}
	// v1's candidates rank grade-0 items high enough that no cut keeps
	// precision 0.9.
	if c := v1.Calibration[0]; c.Stage != "candidates" || c.Threshold != nil || c.Bins[0].Count+c.Bins[1].Count != c.Judged {
		t.Errorf("v1 candidates calibration %+v", c)
	}
	if len(sys3.Calibration) != 0 {
		t.Errorf("unscored stages calibrated: %+v", sys3.Calibration)
	}

	// Redundancy in v3's context: faq#7 repeats policy#2 word for word (5
	// words of 4+5+6+5 = 20); its two relevant passages are one piece of
	// evidence.
	if len(sys3.Redundancy.Stages) != 1 || sys3.Redundancy.Unit != "words" || sys3.Redundancy.Shingle != 3 || sys3.Redundancy.Threshold != 0.8 {
		t.Fatalf("v3 redundancy %+v", sys3.Redundancy)
	}
	r := sys3.Redundancy.Stages[0]
	if r.Stage != "context" || r.ExactPairs != 1 || r.NearPairs != 0 || r.Tokens != 20 || r.RepeatTokens != 5 || !close(r.RepeatShare, 0.25) ||
		r.RelevantItems != 2 || r.UniqueRelevant != 1 {
		t.Errorf("v3 redundancy %+v", r)
	}
	if len(r.DocShare) != 3 || r.DocShare[0] != (analysis.Share{Doc: "refund-policy", Share: 9.0 / 20}) ||
		r.DocShare[1] != (analysis.Share{Doc: "shipping", Share: 6.0 / 20}) || r.DocShare[2] != (analysis.Share{Doc: "refund-faq", Share: 5.0 / 20}) {
		t.Errorf("v3 document shares %+v", r.DocShare)
	}
	for _, r := range v1.Redundancy.Stages {
		if r.Lists != 4 || r.ExactPairs+r.NearPairs != 0 || r.UniqueRelevant != r.RelevantItems || r.NoText != 0 {
			t.Errorf("v1 redundancy %+v", r)
		}
	}

	// Position: v3's relevant passages start at words 4 and 15 of 20:
	// begin (0.2) and end (0.75), in an exactly right answer.
	p := sys3.Position.Buckets
	for i, want := range []PositionBucket{{Bucket: "begin", Passages: 1, MeanRank: 2, Queries: 1, Correct: 1},
		{Bucket: "middle"},
		{Bucket: "end", Passages: 1, MeanRank: 4, Queries: 1, Correct: 1}} {
		if g := p[i]; g.Bucket != want.Bucket || g.Passages != want.Passages || g.MeanRank != want.MeanRank || g.Queries != want.Queries || g.Correct != want.Correct {
			t.Errorf("v3 %s: %+v", want.Bucket, g)
		}
	}
	// v1 packs its evidence second in three contexts (middle) and first
	// in one (begin); none of its graded answers is an exact match. v2
	// answers refund-window and api-limits exactly, with evidence first.
	if b := v1.Position.Buckets; b[0].Passages != 1 || b[1].Passages != 3 || b[1].MeanRank != 2 || b[0].Correct != 0 || b[1].Correct != 0 {
		t.Errorf("v1 positions %+v", b)
	}
	if b := v2.Position.Buckets; b[0].Passages != 3 || b[0].Queries != 3 || !close(b[0].Correct, 2.0/3) || b[1].Passages != 1 {
		t.Errorf("v2 positions %+v", b)
	}

	// Stale items: v1 packed and cited the 2025 policy; v3 packed it.
	if !slices.Equal(v1.Stale, []analysis.Reach{{Item: "policy-2025#2", Contexts: 1, Answers: 1}}) ||
		len(v2.Stale) != 0 || !slices.Equal(sys3.Stale, []analysis.Reach{{Item: "policy-2025#2", Contexts: 1}}) {
		t.Errorf("stale reach %v / %v / %v", v1.Stale, v2.Stale, sys3.Stale)
	}
}

func close(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

// words counts whitespace-separated words: a tokenizer whose counts can be
// checked by eye.
type words struct{}

func (words) Name() string          { return "words" }
func (words) Count(text string) int { return len(strings.Fields(text)) }

func TestAnalysesCost(t *testing.T) {
	const tr = `{"query":"q","system":"s","stages":[{"name":"context","instructions":"Answer briefly.","request":"How long?","items":[{"id":"a","text":"Returns within thirty days."},{"id":"c","text":"Noise."}]}],"answer":{"text":"Thirty days.","citations":["a"],"abstained":false}}`
	in, traces := fixture(t, qrels, `{"id":"q","text":"How long?","answers":["Thirty days."]}`, corp, tr)
	opt := options()
	opt.Policy.Unjudged = "nonrelevant"
	opt.Tokenizer = words{}
	a := DefaultAnalysisOptions()
	a.Price = &analysis.Cost{Input: 2, Output: 10}
	opt.Analyses = &a
	res, err := Evaluate(in, traces, opt)
	if err != nil {
		t.Fatal(err)
	}
	// Instructions 2 words, request 2, context "a\nc" texts 4+1, answer 2:
	// (9·2 + 2·10) / 1e6.
	c := res.Systems[0].Analyses.Cost
	if c == nil || c.Queries != 1 || c.Parts[0].MeanTokens != 2 || c.Parts[1].MeanTokens != 2 || c.Parts[2].MeanTokens != 5 ||
		c.Parts[3].MeanTokens != 2 || !close(c.PerQuery, 38e-6) || !close(c.Total, 38e-6) || !close(c.Parts[3].PerQuery, 20e-6) {
		t.Errorf("cost %+v", c)
	}
	// The evidence opens the context and the answer is right.
	if p := res.Systems[0].Analyses.Position; p.Buckets[0].Queries != 1 || p.Buckets[0].Correct != 1 || p.NoEvidence.Queries != 0 {
		t.Errorf("position %+v", p)
	}
	// The cost alone is the same cost, with nothing else computed.
	a.CostOnly = true
	only, err := Evaluate(in, traces, opt)
	if err != nil {
		t.Fatal(err)
	}
	if o := only.Systems[0].Analyses; !reflect.DeepEqual(o.Cost, c) || len(o.Calibration) != 0 || o.Redundancy.Stages[0].Lists != 0 || o.Position.Buckets[0].Passages != 0 {
		t.Errorf("cost only: %+v", o)
	}
	opt.Tokenizer = cutShort{}
	if _, err := Evaluate(in, traces, opt); err == nil || !strings.Contains(err.Error(), "longer than its budget") {
		t.Errorf("a tokenizer whose counts were cut short: %v", err)
	}
	opt.Tokenizer = nil
	if _, err := Evaluate(in, traces, opt); err == nil || !strings.Contains(err.Error(), "tokenizer") {
		t.Errorf("a price without a tokenizer: %v", err)
	}
}

// cutShort is a tokenizer whose counts were cut short (tokenize.Err), as a
// Hugging Face tokenizer's are when a Split pattern runs past its budget.
type cutShort struct{ words }

func (cutShort) Err() error { return errors.New("regex took longer than its budget") }

// TestRedundancyPerStage checks each stage's repeats, in words and in a
// tokenizer's tokens. Candidates: a and d the same words (both relevant:
// one piece of evidence), x without text, b; reranked: a, b, c, no
// repeats; context: b packed as a's very words. Items of no known
// document (x, c) are pooled as NoDocument.
func TestRedundancyPerStage(t *testing.T) {
	const tr = `{"query":"q","system":"s","stages":[{"name":"candidates","items":[{"id":"a","text":"Returns within thirty days."},{"id":"x"},{"id":"d","text":"returns within thirty days"},{"id":"b"}]},{"name":"reranked","items":[{"id":"a"},{"id":"b"},{"id":"c"}]},{"name":"context","items":[{"id":"a","text":"Returns within thirty days"},{"id":"b","text":"Returns within thirty days"}]}],"answer":{"text":"Thirty days.","abstained":false}}`
	const docs = `{"id":"a","doc":"returns","text":"Returns within thirty days."}
{"id":"b","doc":"exceptions","text":"Exceptions apply to clearance items and gift cards."}
{"id":"c","text":"Noise."}
{"id":"d","doc":"gifts","text":"Gift cards."}`
	in, traces := fixture(t, qrels, topic, docs, tr)
	want := []StageRedundancy{
		{Stage: "candidates", Lists: 1, Items: 4, NoText: 1, ExactPairs: 1, WithRepeats: 1, Tokens: 16, RepeatTokens: 4, RepeatShare: 0.25,
			RelevantItems: 3, UniqueRelevant: 2, Docs: 4, DocShare: []analysis.Share{{Doc: "exceptions", Share: 0.5}, {Doc: "gifts", Share: 0.25}, {Doc: "returns", Share: 0.25}, {Doc: noDocument, Share: 0}}},
		{Stage: "reranked", Lists: 1, Items: 3, Tokens: 13, RelevantItems: 2, UniqueRelevant: 2, Docs: 3,
			DocShare: []analysis.Share{{Doc: "exceptions", Share: 8.0 / 13}, {Doc: "returns", Share: 4.0 / 13}, {Doc: noDocument, Share: 1.0 / 13}}},
		{Stage: "context", Lists: 1, Items: 2, ExactPairs: 1, WithRepeats: 1, Tokens: 8, RepeatTokens: 4, RepeatShare: 0.5,
			RelevantItems: 2, UniqueRelevant: 1, Docs: 2, DocShare: []analysis.Share{{Doc: "exceptions", Share: 0.5}, {Doc: "returns", Share: 0.5}}},
	}
	for _, c := range []struct {
		tok  Tokenizer
		unit string
	}{{nil, "words"}, {words{}, "tokens"}} {
		opt := options()
		opt.Policy.Unjudged = "nonrelevant"
		opt.Truncated = TruncatedInherit
		opt.Tokenizer = c.tok
		a := DefaultAnalysisOptions()
		opt.Analyses = &a
		res, err := Evaluate(in, traces, opt)
		if err != nil {
			t.Fatal(err)
		}
		r := res.Systems[0].Analyses.Redundancy
		if r.Unit != c.unit || !reflect.DeepEqual(r.Stages, want) {
			t.Errorf("%s: redundancy %+v, want %+v", c.unit, r, want)
		}
	}
}

func TestCorrect(t *testing.T) {
	facts := []topics.Fact{{ID: "f", Support: []topics.Support{{{Item: "a"}}}}}
	for _, c := range []struct {
		name            string
		topic           topics.Topic
		text            string
		cited           []string
		abstained       bool
		passF1          float64
		correct, graded bool
	}{
		{"exact", topics.Topic{Answers: []string{"Thirty days."}}, "thirty days", nil, false, 0, true, true},
		{"near, exact asked", topics.Topic{Answers: []string{"Thirty days."}}, "within thirty days", nil, false, 0, false, true},
		{"near, F1 0.8 >= 0.5", topics.Topic{Answers: []string{"Thirty days."}}, "within thirty days", nil, false, 0.5, true, true},
		{"F1 below the bar", topics.Topic{Answers: []string{"Thirty days."}}, "within thirty days", nil, false, 0.9, false, true},
		{"abstained", topics.Topic{Answers: []string{"Thirty days."}}, "thirty days", nil, true, 0, false, true},
		{"facts cited", topics.Topic{Facts: facts}, "anything", []string{"a"}, false, 0, true, true},
		{"fact not cited", topics.Topic{Facts: facts}, "anything", []string{"b"}, false, 0, false, true},
		{"right words, fact not cited", topics.Topic{Answers: []string{"Thirty days."}, Facts: facts}, "thirty days", nil, false, 0, false, true},
		{"nothing to grade", topics.Topic{}, "anything", nil, false, 0, false, false},
	} {
		ok, graded := topics.GradeAnswer(&c.topic, c.text, c.cited, c.abstained).Correct(c.passF1)
		if ok != c.correct || graded != c.graded {
			t.Errorf("%s: correct %v graded %v, want %v %v", c.name, ok, graded, c.correct, c.graded)
		}
	}
}

// TestPositionCorrectness grades the answers beside evidence position by
// the answer rule: a near answer counts at --pass-f1, and an exact answer
// that cites no support for a required fact does not.
func TestPositionCorrectness(t *testing.T) {
	const tr = `{"query":"q","system":"s","stages":[{"name":"context","items":[{"id":"a","text":"Returns within thirty days."},{"id":"c","text":"Noise."}]}],"answer":{"text":"Within thirty days.","citations":["a"],"abstained":false}}`
	for _, c := range []struct {
		name   string
		topic  string
		passF1 float64
		want   float64
	}{
		{"exact only", `{"id":"q","text":"How long?","answers":["Thirty days."]}`, 0, 0},
		{"F1 0.8 at 0.5", `{"id":"q","text":"How long?","answers":["Thirty days."]}`, 0.5, 1},
		{"facts cited", topic, 0, 0}, // f2 (b and d) is not cited
		{"facts only, none missing", `{"id":"q","text":"How long?","facts":[{"id":"f1","support":[{"item":"a","span":"thirty days"}]}]}`, 0, 1},
	} {
		in, traces := fixture(t, qrels, c.topic, corp, tr)
		opt := options()
		opt.Policy.Unjudged = "nonrelevant"
		a := DefaultAnalysisOptions()
		a.PassF1 = c.passF1
		opt.Analyses = &a
		res, err := Evaluate(in, traces, opt)
		if err != nil {
			t.Fatal(err)
		}
		p := res.Systems[0].Analyses.Position
		if b := p.Buckets[0]; b.Queries != 1 || b.Correct != c.want || !strings.Contains(p.Rule, "citing support for every required fact") {
			t.Errorf("%s: begin %+v, rule %q", c.name, b, p.Rule)
		}
	}
}
