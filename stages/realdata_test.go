package stages

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/internal/sharedtest"
	"github.com/ragstat/ragstat/trace"
)

// jsonl joins values as JSON Lines.
func jsonl(t *testing.T, rows []any) string {
	t.Helper()
	var b strings.Builder
	for _, r := range rows {
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

type feverClaim struct {
	ID       int       `json:"id"`
	Label    string    `json:"label"`
	Claim    string    `json:"claim"`
	Evidence [][][]any `json:"evidence"`
}

// sets returns the claim's alternative evidence sets as "page#sentence" ids.
func (c feverClaim) sets() [][]string {
	var out [][]string
	for _, set := range c.Evidence {
		var ids []string
		for _, ev := range set {
			if ev[2] != nil {
				ids = append(ids, fmt.Sprintf("%v#%v", ev[2], ev[3]))
			}
		}
		if len(ids) > 0 {
			out = append(out, ids)
		}
	}
	return out
}

func readFever(t *testing.T) []feverClaim {
	f, err := os.Open(filepath.Join(sharedtest.Dir(t, "data/fever-paper-dev"), "paper_dev.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var out []feverClaim
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c feverClaim
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// TestFEVER builds topics (one fact per claim, its alternative evidence
// sets as "all of" supports; NOT ENOUGH INFO claims unanswerable), judgments
// and traces from FEVER's paper_dev claims, and checks required-fact
// coverage against FEVER's own rule, computed here independently: a claim
// is covered when every sentence of some evidence set was retrieved.
func TestFEVER(t *testing.T) {
	claims := readFever(t)
	qrels, tops, traces, want, nei, abstained := feverFixture(claims)
	in, ts := fixture(t, jsonl(t, qrels), jsonl(t, tops), "", jsonl(t, traces))
	opt := options("R")
	opt.Policy.Unjudged = "nonrelevant"
	res, err := Evaluate(in, ts, opt)
	if err != nil {
		t.Fatal(err)
	}
	sys := res.Systems[0]
	covered := 0
	for _, qf := range sys.Facts {
		if (qf.Supported[0] == 1) != want[qf.Query] {
			t.Fatalf("claim %s: covered %v, FEVER's rule says %v", qf.Query, qf.Supported[0] == 1, want[qf.Query])
		}
		if want[qf.Query] {
			covered++
		}
	}
	if len(sys.Facts) != len(claims)-nei || nei != 3333 {
		t.Fatalf("%d claims with facts, %d NOT ENOUGH INFO", len(sys.Facts), nei)
	}
	if covered == len(sys.Facts) || covered < len(sys.Facts)/2 {
		t.Fatalf("covered %d of %d: the fixture should cover most claims but not all", covered, len(sys.Facts))
	}
	a := sys.Answers
	if a.Unanswerable != nei || a.Abstained != abstained || a.AbstentionRate == nil || math.Abs(*a.AbstentionRate-float64(abstained)/float64(nei)) > 1e-12 {
		t.Fatalf("abstention %+v, want %d of %d", a, abstained, nei)
	}
}

// feverFixture makes judgments, topics and traces of FEVER's claims, and
// says which claims the traced system covers, how many are NOT ENOUGH
// INFO and how many of those it abstained on.
func feverFixture(claims []feverClaim) (qrels, tops, traces []any, want map[string]bool, nei, abstained int) {
	want = map[string]bool{}
	for n, c := range claims {
		q := fmt.Sprint(c.ID)
		sets := c.sets()
		// The traced system retrieves the first evidence set, dropping its
		// last sentence for every other multi-sentence claim, plus noise.
		var got []string
		if len(sets) > 0 {
			got = slices.Clone(sets[0])
			if len(got) > 1 && n%2 == 0 {
				got = got[:len(got)-1]
			}
		}
		got = append(got, "noise#"+q)
		items := []map[string]any{}
		for _, id := range got {
			items = append(items, map[string]any{"id": id})
		}
		answer := map[string]any{"text": "", "abstained": false}
		if c.Label == "NOT ENOUGH INFO" {
			nei++
			if n%3 == 0 {
				answer["abstained"] = true
				abstained++
			}
			tops = append(tops, map[string]any{"id": q, "text": c.Claim, "answerable": false})
		} else {
			var support []any
			seen := map[string]bool{}
			for _, set := range sets {
				var all []any
				for _, id := range set {
					all = append(all, map[string]string{"item": id})
					if !seen[id] {
						seen[id] = true
						qrels = append(qrels, map[string]any{"query": q, "item": id, "grade": 1})
					}
				}
				support = append(support, map[string]any{"all": all})
				if isSubset(set, got) {
					want[q] = true
				}
			}
			tops = append(tops, map[string]any{"id": q, "text": c.Claim, "facts": []any{map[string]any{"id": "verdict", "support": support}}})
		}
		traces = append(traces, map[string]any{"query": q, "system": "first-set", "stages": []any{map[string]any{"name": "context", "items": items}}, "answer": answer})
	}
	return qrels, tops, traces, want, nei, abstained
}

// TestSummaryFEVER checks that a summary (Options.Summary) of FEVER's
// claims, read in reverse, holds the numbers of the full result and the
// first lost items and coverage lines, and that every trace's record
// reaches Options.PerQuery with its values.
func TestSummaryFEVER(t *testing.T) {
	qrels, tops, traces, _, _, _ := feverFixture(readFever(t))
	in, ts := fixture(t, jsonl(t, qrels), jsonl(t, tops), "", jsonl(t, traces))
	opt := options("R", "RR")
	opt.Policy.Unjudged = "nonrelevant"
	full, err := Evaluate(in, ts, opt)
	if err != nil {
		t.Fatal(err)
	}
	var all []*trace.Trace
	ts(func(tr *trace.Trace) error { all = append(all, tr); return nil })
	slices.Reverse(all)
	opt.Summary = true
	records := map[string]*QueryRecord{}
	opt.PerQuery = func(r *QueryRecord) error { records[r.Query] = r; return nil }
	sum, err := Evaluate(in, Slice(all), opt)
	if err != nil {
		t.Fatal(err)
	}
	f, s := full.Systems[0], sum.Systems[0]
	if len(records) != len(traces) {
		t.Fatalf("%d records of %d traces", len(records), len(traces))
	}
	for _, row := range f.Stages[0].Eval.Rows {
		got := records[row.Query].Stages[0].Values
		if *got[0].Value != row.Values[0] || *got[1].Value != row.Values[1] {
			t.Fatalf("query %s: record %+v, row %v", row.Query, got, row.Values)
		}
	}
	fs, ss := f.Stages[0], s.Stages[0]
	if !slices.Equal(fs.Eval.Mean, ss.Eval.Mean) || fs.FactCoverage != ss.FactCoverage || fs.MeanLength != ss.MeanLength ||
		len(ss.Eval.Rows) != 0 || !slices.Equal(fs.Eval.Excluded, ss.Eval.Excluded) {
		t.Fatalf("summary stage %+v %v, full %+v %v", ss, ss.Eval.Mean, fs, fs.Eval.Mean)
	}
	if !slices.Equal(f.Loss.Steps, s.Loss.Steps) || f.Loss.Total != s.Loss.Total || !slices.Equal(f.FactLoss.Steps, s.FactLoss.Steps) {
		t.Fatalf("waterfalls differ: %+v, %+v", s.Loss, f.Loss)
	}
	var lost []Lost
	for _, l := range f.Loss.Lost {
		if l.Status != StatusDelivered && len(lost) < listed {
			lost = append(lost, l)
		}
	}
	if !slices.Equal(lost, s.Loss.Lost) || len(s.Facts) != listed || s.FactLines != len(f.Facts) {
		t.Fatalf("summary listings: %d lost, %d fact lines of %d", len(s.Loss.Lost), len(s.Facts), s.FactLines)
	}
	for i, qf := range s.Facts {
		if qf.Query != f.Facts[i].Query || !slices.Equal(qf.Supported, f.Facts[i].Supported) {
			t.Fatalf("fact line %d: %+v, full %+v", i, qf, f.Facts[i])
		}
	}
	if !reflect.DeepEqual(f.Answers.AbstentionRate, s.Answers.AbstentionRate) || f.Answers.Answerable != s.Answers.Answerable {
		t.Fatalf("answers differ: %+v, %+v", s.Answers, f.Answers)
	}
}

func isSubset(set, got []string) bool {
	for _, id := range set {
		if !slices.Contains(got, id) {
			return false
		}
	}
	return true
}

// TestRAGChecker reproduces RAGChecker's retriever metrics on its worked
// example from its claim x chunk entailment matrix: claim recall is the
// required-fact coverage of the context (a claim is a fact supported by
// each chunk that entails it), context precision is the context's SetP
// (a chunk is relevant when it entails some claim).
func TestRAGChecker(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(sharedtest.Dir(t, "data/ragchecker-examples"), "checking_outputs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Results []struct {
			QueryID string `json:"query_id"`
			Context []struct {
				DocID string `json:"doc_id"`
			} `json:"retrieved_context"`
			Claims  []any      `json:"gt_answer_claims"`
			Matrix  [][]string `json:"retrieved2answer"`
			Metrics struct {
				ClaimRecall      float64 `json:"claim_recall"`
				ContextPrecision float64 `json:"context_precision"`
			} `json:"metrics"`
		} `json:"results"`
		Metrics struct {
			Retriever struct {
				ClaimRecall      float64 `json:"claim_recall"`
				ContextPrecision float64 `json:"context_precision"`
			} `json:"retriever"`
		} `json:"metrics"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var tops, qrels, traces []any
	for _, r := range doc.Results {
		q := r.QueryID
		entails := map[string]bool{}
		var facts, items []any
		for i, row := range r.Matrix {
			var support []any
			for j, label := range row {
				if label == "Entailment" {
					id := r.Context[j].DocID
					support = append(support, map[string]string{"item": id})
					entails[id] = true
				}
			}
			if support == nil { // entailed by no retrieved chunk: supported elsewhere
				support = []any{map[string]string{"item": fmt.Sprintf("unretrieved#%d", i)}}
			}
			facts = append(facts, map[string]any{"id": fmt.Sprint(i), "support": support})
		}
		for _, c := range r.Context {
			items = append(items, map[string]any{"id": c.DocID})
			grade := 0
			if entails[c.DocID] {
				grade = 1
			}
			qrels = append(qrels, map[string]any{"query": q, "item": c.DocID, "grade": grade})
		}
		tops = append(tops, map[string]any{"id": q, "facts": facts})
		traces = append(traces, map[string]any{"query": q, "system": "ragchecker", "stages": []any{map[string]any{"name": "context", "items": items}}})
	}
	in, ts := fixture(t, jsonl(t, qrels), jsonl(t, tops), "", jsonl(t, traces))
	res, err := Evaluate(in, ts, options("SetP"))
	if err != nil {
		t.Fatal(err)
	}
	sys := res.Systems[0]
	ctx := sys.Stages[0]
	for i, r := range doc.Results {
		qf := sys.Facts[i]
		if got := float64(qf.Supported[0]) / float64(qf.Facts); math.Abs(got-r.Metrics.ClaimRecall) > 1e-12 {
			t.Errorf("query %s: claim recall %v, RAGChecker %v", r.QueryID, got, r.Metrics.ClaimRecall)
		}
		if got := ctx.Eval.Rows[i].Values[0]; math.Abs(got-r.Metrics.ContextPrecision) > 1e-12 {
			t.Errorf("query %s: context precision %v, RAGChecker %v", r.QueryID, got, r.Metrics.ContextPrecision)
		}
	}
	if got := math.Round(ctx.FactCoverage*1000) / 10; got != doc.Metrics.Retriever.ClaimRecall {
		t.Errorf("mean claim recall %v, RAGChecker %v", got, doc.Metrics.Retriever.ClaimRecall)
	}
	if got := math.Round(ctx.Eval.Mean[0]*1000) / 10; got != doc.Metrics.Retriever.ContextPrecision {
		t.Errorf("mean context precision %v, RAGChecker %v", got, doc.Metrics.Retriever.ContextPrecision)
	}
}
