package evalemit_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/evalemit"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/golden"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/stages"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
	"github.com/ragstat/ragstat/traceimport"
)

// The captures of real clients, as the import tests read them: LlamaIndex.TS
// traced by OpenLLMetry (its packing step left out: it runs before or after
// the reranker from one query to the next) and LangChain.js traced by the
// Langfuse SDK.
var captures = []struct {
	file    string
	mapping traceimport.Mapping
}{
	{"llamaindex-openllmetry.otlp.jsonl", traceimport.Mapping{Abstain: "cannot answer", CloseAfter: traceimport.EndOfInput,
		Stages: map[string]string{"pack.task": "-"}}},
	{"langchain-langfuse.otlp.jsonl", traceimport.Mapping{Abstain: "cannot answer", CloseAfter: traceimport.EndOfInput}},
}

var when = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// emit imports a capture, evaluates its stages against testdata's topics
// and judgments and writes the evaluations in format.
func emit(t *testing.T, file string, m traceimport.Mapping, format evalemit.Format) (string, evalemit.Counts) {
	t.Helper()
	return emitWith(t, file, m, evalemit.Options{Format: format, Version: "test", Time: when})
}

// emitWith is emit with the emitter's options.
func emitWith(t *testing.T, file string, m traceimport.Mapping, opt evalemit.Options) (string, evalemit.Counts) {
	t.Helper()
	capture := readFile(t, filepath.Join("..", "..", "..", "..", "traceimport", "testdata", file))
	var traces []*trace.Trace
	if _, err := traceimport.Import(traceimport.OTLP, []*input.File{input.FromBytes(file, capture)}, m,
		func(tr *trace.Trace) error { traces = append(traces, tr); return nil }); err != nil {
		t.Fatalf("%s: import: %v", file, err)
	}
	qrels, err := judgments.Read(input.FromBytes("judgments.jsonl", readFile(t, "testdata/judgments.jsonl")), judgments.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tops, err := topics.Read(input.FromBytes("topics.jsonl", readFile(t, "testdata/topics.jsonl")))
	if err != nil {
		t.Fatal(err)
	}
	ms, err := metric.ParseAll([]string{"R", "nDCG@10"})
	if err != nil {
		t.Fatal(err)
	}
	em, err := evalemit.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	defer em.Close()
	if _, err := stages.Evaluate(stages.Input{Judgments: qrels, Topics: tops}, stages.Slice(traces),
		stages.Options{Policy: eval.DefaultPolicy(), Metrics: ms, Truncated: stages.TruncatedInherit, AllowNoMetadata: true, PerQuery: em.Add}); err != nil {
		t.Fatalf("%s: stages: %v", file, err)
	}
	var out bytes.Buffer
	c, err := em.Finish(&out, "digest")
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), c
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// spansOf lists the (trace id, span id) pairs of a capture.
func spansOf(t *testing.T, file string) map[[2]string]bool {
	t.Helper()
	out := map[[2]string]bool{}
	for i, l := range lines(string(readFile(t, filepath.Join("..", "..", "..", "..", "traceimport", "testdata", file)))) {
		req := ptraceotlp.NewExportRequest()
		if err := req.UnmarshalJSON([]byte(l)); err != nil {
			t.Fatalf("%s:%d: %v", file, i+1, err)
		}
		rss := req.Traces().ResourceSpans()
		for r := range rss.Len() {
			sss := rss.At(r).ScopeSpans()
			for s := range sss.Len() {
				sps := sss.At(s).Spans()
				for k := range sps.Len() {
					out[[2]string{sps.At(k).TraceID().String(), sps.At(k).SpanID().String()}] = true
				}
			}
		}
	}
	return out
}

func lines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		if sc.Text() != "" {
			out = append(out, sc.Text())
		}
	}
	return out
}

func str(m pcommon.Map, key string) string {
	v, ok := m.Get(key)
	if !ok {
		return ""
	}
	return v.AsString()
}

// TestOTLPRoundTrip: every gen_ai.evaluation.result record parsed back
// with pdata names a span of the capture it evaluates, and each kind of
// evaluation is there: the metrics, the verdicts of items and facts, the
// validity findings, the fact coverage and the answer checks.
func TestOTLPRoundTrip(t *testing.T) {
	for _, c := range captures {
		t.Run(c.file, func(t *testing.T) {
			out, counts := emit(t, c.file, c.mapping, evalemit.OTLP)
			spans := spansOf(t, c.file)
			names := map[string]int{}
			labels := map[string]bool{}
			ids := map[string]bool{}
			records := 0
			for i, l := range lines(out) {
				req := plogotlp.NewExportRequest()
				if err := req.UnmarshalJSON([]byte(l)); err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				rls := req.Logs().ResourceLogs()
				for r := range rls.Len() {
					sls := rls.At(r).ScopeLogs()
					for s := range sls.Len() {
						if v := sls.At(s).Scope().Version(); v != "test" {
							t.Errorf("line %d: scope version %q", i+1, v)
						}
						lrs := sls.At(s).LogRecords()
						for k := range lrs.Len() {
							lr := lrs.At(k)
							records++
							at := [2]string{lr.TraceID().String(), lr.SpanID().String()}
							if !spans[at] {
								t.Errorf("line %d: record %d names span %v, not in the capture", i+1, k, at)
							}
							if lr.EventName() != evalemit.EventName {
								t.Errorf("line %d: event %q", i+1, lr.EventName())
							}
							a := lr.Attributes()
							names[str(a, "gen_ai.evaluation.name")]++
							labels[str(a, "gen_ai.evaluation.score.label")] = true
							if _, ok := a.Get("gen_ai.evaluation.score.value"); !ok {
								t.Errorf("line %d: record %d has no score", i+1, k)
							}
							if str(a, "gen_ai.evaluation.explanation") == "" || str(a, evalemit.AttrManifest) != "digest" || str(a, evalemit.AttrVersion) != "test" {
								t.Errorf("line %d: record %d lacks its explanation, manifest or version: %v", i+1, k, a.AsRaw())
							}
							id := str(a, evalemit.AttrID)
							if ids[id] {
								t.Errorf("line %d: id %s repeated", i+1, id)
							}
							ids[id] = true
						}
					}
				}
			}
			if records == 0 || records != counts.Written || counts.Unlinked != 0 {
				t.Fatalf("%d records read back, counts %+v", records, counts)
			}
			for _, want := range []string{"ragstat.R", "ragstat.nDCG@10", evalemit.NameEvidence, evalemit.NameFact, evalemit.NameValidity,
				evalemit.NameFactCoverage, evalemit.NameF1, evalemit.NameCitationSupport, evalemit.NameAbstention} {
				if names[want] == 0 {
					t.Errorf("no %s record; got %v", want, names)
				}
			}
			for _, want := range []string{stages.StatusDelivered, stages.StatusNotRetrieved, stages.StatusOutOfScope, stages.StatusStale, evalemit.LabelConflict, "abstained"} {
				if !labels[want] {
					t.Errorf("no record labelled %q; got %v", want, labels)
				}
			}
		})
	}
}

// TestOpenInferenceRoundTrip: every carrier span links to one span of the
// capture, in the same trace, and holds annotations written by code.
func TestOpenInferenceRoundTrip(t *testing.T) {
	for _, c := range captures {
		t.Run(c.file, func(t *testing.T) {
			out, counts := emit(t, c.file, c.mapping, evalemit.OpenInference)
			spans := spansOf(t, c.file)
			annotations := 0
			for i, l := range lines(out) {
				req := ptraceotlp.NewExportRequest()
				if err := req.UnmarshalJSON([]byte(l)); err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				sps := req.Traces().ResourceSpans().At(0).ScopeSpans().At(0).Spans()
				for k := range sps.Len() {
					sp := sps.At(k)
					if sp.Links().Len() != 1 {
						t.Fatalf("line %d: carrier %d has %d links", i+1, k, sp.Links().Len())
					}
					link := sp.Links().At(0)
					at := [2]string{link.TraceID().String(), link.SpanID().String()}
					if !spans[at] || link.TraceID() != sp.TraceID() || spans[[2]string{sp.TraceID().String(), sp.SpanID().String()}] {
						t.Errorf("line %d: carrier %s links to %v: not a span of the capture in its trace, or the carrier reuses a span id", i+1, sp.SpanID(), at)
					}
					a := sp.Attributes()
					for j := 0; ; j++ {
						p := "annotations." + strconv.Itoa(j)
						if _, ok := a.Get(p + ".annotation.name"); !ok {
							break
						}
						annotations++
						if str(a, p+".annotation.annotator_kind") != "CODE" || str(a, p+".annotation.explanation") == "" ||
							len(str(a, p+".annotation.identifier")) != 64 || !json.Valid([]byte(str(a, p+".annotation.metadata"))) {
							t.Errorf("line %d: %s: %v", i+1, p, a.AsRaw())
						}
					}
				}
			}
			if annotations == 0 || annotations != counts.Written {
				t.Errorf("%d annotations read back, counts %+v", annotations, counts)
			}
		})
	}
}

// TestLangfuseShape: the score objects hold the fields of Langfuse's score
// ingestion, the ids being the capture's trace and span ids (what
// Langfuse's OTLP endpoint names its traces and observations by); the
// whole output is compared with a golden file.
func TestLangfuseShape(t *testing.T) {
	c := captures[1]
	out, counts := emit(t, c.file, c.mapping, evalemit.Langfuse)
	spans := spansOf(t, c.file)
	ls := lines(out)
	if len(ls) == 0 || len(ls) != counts.Written {
		t.Fatalf("%d lines, counts %+v", len(ls), counts)
	}
	for i, l := range ls {
		var score map[string]any
		if err := json.Unmarshal([]byte(l), &score); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		keys := make([]string, 0, len(score))
		for k := range score {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if want := []string{"comment", "dataType", "id", "metadata", "name", "observationId", "traceId", "value"}; !slices.Equal(keys, want) {
			t.Errorf("line %d: fields %v, want %v", i+1, keys, want)
		}
		if _, ok := score["value"].(float64); !ok || score["dataType"] != "NUMERIC" {
			t.Errorf("line %d: value %v (%v): a numeric score", i+1, score["value"], score["dataType"])
		}
		tid, _ := score["traceId"].(string)
		sid, _ := score["observationId"].(string)
		if !spans[[2]string{tid, sid}] {
			t.Errorf("line %d: %s/%s is no span of the capture", i+1, tid, sid)
		}
	}
	golden.Check(t, filepath.Join("testdata", "langchain-langfuse.scores.jsonl.golden"), out)
}

// TestStableIDs: the same evaluation emitted again is the same, byte for
// byte, ids included.
func TestStableIDs(t *testing.T) {
	for _, f := range []evalemit.Format{evalemit.OTLP, evalemit.OpenInference, evalemit.Langfuse} {
		c := captures[0]
		a, _ := emit(t, c.file, c.mapping, f)
		b, _ := emit(t, c.file, c.mapping, f)
		if a != b {
			t.Errorf("%s: two emissions differ", f)
		}
	}
}

// TestUnlinked: a trace that records no span ids (not imported) gives no
// annotation, and says how many were left out; ids that are not OTLP ids
// are left out of the OTLP forms only.
func TestUnlinked(t *testing.T) {
	one := 1.0
	recs := []*stages.QueryRecord{
		{System: "s", Query: "q", Stages: []stages.QueryStage{{Name: "candidates", Values: []stages.MetricValue{{Metric: "R", Value: &one}}}}},
		{System: "s", Query: "q", TraceID: "run-7", Stages: []stages.QueryStage{{Name: "candidates", SpanID: "obs-1", Values: []stages.MetricValue{{Metric: "R", Value: &one}}}}},
	}
	for _, tc := range []struct {
		format            evalemit.Format
		written, unlinked int
	}{
		{evalemit.OTLP, 0, 2},
		{evalemit.OpenInference, 0, 2},
		{evalemit.Langfuse, 1, 1},
	} {
		em, err := evalemit.New(evalemit.Options{Format: tc.format})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			if err := em.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		var out bytes.Buffer
		c, err := em.Finish(&out, "d")
		em.Close()
		if err != nil || c.Written != tc.written || c.Unlinked != tc.unlinked || len(lines(out.String())) != tc.written {
			t.Errorf("%s: %+v, %v, %q; want %d written, %d unlinked", tc.format, c, err, out.String(), tc.written, tc.unlinked)
		}
	}
}

func TestParseFormat(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want evalemit.Format
		err  string
	}{
		{"otlp", evalemit.OTLP, ""},
		{"OpenInference", evalemit.OpenInference, ""},
		{"langfuse", evalemit.Langfuse, ""},
		{"phoenix", "", `unknown evaluation format "phoenix"`},
		{"", "", "unknown evaluation format"},
	} {
		got, err := evalemit.ParseFormat(tc.in)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseFormat(%q) = %q, %v", tc.in, got, err)
		}
	}
	if _, err := evalemit.New(evalemit.Options{Format: "csv"}); err == nil || !strings.Contains(err.Error(), "Options.Format") {
		t.Errorf("New with format csv: %v", err)
	}
}

// TestSend: each line is one OTLP/HTTP JSON request to a loopback
// collector; a refusal or a partial success that rejected records stops
// the sending, naming the request.
func TestSend(t *testing.T) {
	var got []string
	reply := map[int]string{}
	status := map[int]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, r.Header.Get("Content-Type")+" "+r.Header.Get("Authorization")+" "+string(b))
		if s := status[len(got)]; s != 0 {
			w.WriteHeader(s)
		}
		io.WriteString(w, reply[len(got)])
	}))
	defer srv.Close()
	to := evalemit.Endpoint{URL: srv.URL + "/v1/logs", Headers: map[string]string{"Authorization": "Bearer k"}}
	n, err := evalemit.Send(t.Context(), to, evalemit.OTLP, strings.NewReader("{\"a\":1}\n\n{\"b\":2}\n"))
	if err != nil || n != 2 || !slices.Equal(got, []string{`application/json Bearer k {"a":1}`, `application/json Bearer k {"b":2}`}) {
		t.Fatalf("sent %d, %v: %q", n, err, got)
	}
	for _, tc := range []struct {
		status int
		reply  string
		want   string
	}{
		{http.StatusBadRequest, "bad trace id", "request 2: 400 Bad Request: bad trace id"},
		{0, `{"partialSuccess":{"rejectedLogRecords":"3","errorMessage":"too old"}}`, "request 2: 3 rejected: too old"},
	} {
		got, reply, status = nil, map[int]string{2: tc.reply}, map[int]int{2: tc.status}
		n, err := evalemit.Send(t.Context(), to, evalemit.OTLP, strings.NewReader("{}\n{}\n{}\n"))
		if n != 1 || err == nil || !strings.Contains(err.Error(), tc.want) || len(got) != 2 {
			t.Errorf("%d %q: sent %d, %v after %d requests", tc.status, tc.reply, n, err, len(got))
		}
	}
	if _, err := evalemit.Send(t.Context(), to, evalemit.Langfuse, strings.NewReader("{}\n")); err == nil || !strings.Contains(err.Error(), "not OTLP") {
		t.Errorf("langfuse to an OTLP endpoint: %v", err)
	}
}

// TestBudget: a context over its token budget is marked on the generator's
// span, one that fits too; without a budget there is nothing to say.
func TestBudget(t *testing.T) {
	for _, tc := range []struct {
		total, limit int
		want         string
	}{
		{900, 1000, "fits 1"},
		{1100, 1000, "over budget 0"},
		{1100, 0, ""},
	} {
		r := &stages.QueryRecord{System: "s", Query: "q", TraceID: "4f8f4c1083e83c45a0809ed94ad4f4d3",
			Stages: []stages.QueryStage{{Name: "candidates", SpanID: "4c34cce44a477d1c"}, {Name: trace.ContextStage, SpanID: "20c4dcfce4f93162"}},
			Budget: &stages.Budget{Query: "q", Total: tc.total, Limit: tc.limit}}
		anns, unlinked := evalemit.Annotations(r)
		got := ""
		for _, a := range anns {
			if a.Name == evalemit.NameBudget && a.SpanID == "20c4dcfce4f93162" {
				got = a.Label + " " + strconv.FormatFloat(a.Score, 'g', -1, 64)
			}
		}
		if got != tc.want || unlinked != 0 {
			t.Errorf("%d of %d: %q (%d unlinked), want %q", tc.total, tc.limit, got, unlinked, tc.want)
		}
	}
}

// TestResource: the resource attributes given are on every request of the
// OTLP forms, beside service.name (Phoenix files the carrier spans in the
// project openinference.project.name names); Langfuse scores have no
// resource, and a blank name is refused.
func TestResource(t *testing.T) {
	res := map[string]string{"openinference.project.name": "rag-app", "deployment.environment": "ci"}
	c := captures[0]
	for _, f := range []evalemit.Format{evalemit.OTLP, evalemit.OpenInference} {
		out, counts := emitWith(t, c.file, c.mapping, evalemit.Options{Format: f, Version: "test", Time: when, Resource: res})
		if counts.Written == 0 {
			t.Fatalf("%s: nothing written", f)
		}
		for i, l := range lines(out) {
			var attrs pcommon.Map
			if f == evalemit.OTLP {
				req := plogotlp.NewExportRequest()
				if err := req.UnmarshalJSON([]byte(l)); err != nil {
					t.Fatal(err)
				}
				attrs = req.Logs().ResourceLogs().At(0).Resource().Attributes()
			} else {
				req := ptraceotlp.NewExportRequest()
				if err := req.UnmarshalJSON([]byte(l)); err != nil {
					t.Fatal(err)
				}
				attrs = req.Traces().ResourceSpans().At(0).Resource().Attributes()
			}
			want := map[string]any{"service.name": "ragstat", "openinference.project.name": "rag-app", "deployment.environment": "ci"}
			if got := attrs.AsRaw(); !reflect.DeepEqual(got, want) {
				t.Errorf("%s line %d: resource %v, want %v", f, i+1, got, want)
			}
		}
	}
	for _, bad := range []evalemit.Options{
		{Format: evalemit.Langfuse, Resource: res},
		{Format: evalemit.OTLP, Resource: map[string]string{" ": "x"}},
	} {
		if em, err := evalemit.New(bad); err == nil {
			em.Close()
			t.Errorf("%+v accepted", bad)
		}
	}
}
