package fill

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/flagname"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/golden"
	"github.com/ragstat/ragstat/internal/llm"
	"github.com/ragstat/ragstat/internal/llm/llmtest"
	"github.com/ragstat/ragstat/judgments"
)

// answers is what the stand-in judge says of each passage.
var answers = map[string]string{
	"Our stores open at nine.":                               "##final score: 0",
	"A passage that mentions {query} literally.":             "##final score: 1",
	"Return shipping is free for defective items.":           "**##Final Score: 1**",
	"Gift cards never expire.":                               "The passage is unrelated to the query.",
	"The judge takes too long on this one.":                  "##final score: 2",
	"Clearance items are final sale and cannot be returned.": "3",
}

// judgeServer stands in for the LLM: it reads the passage from the prompt
// and answers from answers; q3's "Gift cards" pair gets a grade off the
// scale, and the slow passage stalls past the client's time limit the
// first time it is asked. It keeps every request body.
type judgeServer struct {
	mu      sync.Mutex
	bodies  [][]byte
	stalled bool
}

func (s *judgeServer) start(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, "wrong path or key", http.StatusBadRequest)
			return
		}
		var req llm.Request
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		stall := !s.stalled && strings.Contains(req.Messages[1].Content, "too long")
		if stall {
			s.stalled = true
		}
		s.mu.Unlock()
		if stall {
			<-r.Context().Done()
			return
		}
		fmt.Fprint(w, completion(judge(req)))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// judge answers a request as the stand-in does.
func judge(req llm.Request) string {
	prompt := req.Messages[1].Content
	_, rest, _ := strings.Cut(prompt, "\nPassage: ")
	passage, _, _ := strings.Cut(rest, "\n\nSplit this problem")
	query, _, _ := strings.Cut(prompt[strings.Index(prompt, "Query: ")+7:], "\n")
	if passage == "Gift cards never expire." && query == "shipping costs for returns" {
		return "##final score: 7"
	}
	return answers[passage]
}

func completion(text string) string {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": text}, "finish_reason": "stop"}},
		"usage": map[string]int{"prompt_tokens": 300, "completion_tokens": 6}})
	return string(b)
}

func clock() time.Time { return time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) }

// request is the fill the tests run, over testdata, writing under dir.
func request(dir string) Request {
	td := "testdata/"
	zero := 0.0
	return Request{Judgments: []string{td + "qrels.txt"}, Topics: td + "topics.jsonl", Corpus: td + "corpus.jsonl",
		Systems: []string{td + "bm25.run", td + "dense.run"}, Depth: 3, Prompt: UMBRELA, Model: "judge-1", Temperature: &zero,
		MaxTokens: 100, Workers: 4, KeyEnv: "KEY", Out: filepath.Join(dir, "filled.jsonl"), Force: true,
		Audit: 2, AuditSeed: 7, AuditQueue: filepath.Join(dir, "audit.jsonl")}
}

func world(stderr io.Writer) World {
	return World{Stdout: io.Discard, Stderr: stderr, Getenv: func(k string) string {
		if k == "KEY" {
			return "sk-test"
		}
		return ""
	}, Now: clock}
}

// TestFill: the holes of two runs' top 3 are asked of a loopback stand-in;
// the requests are checked byte for byte, unparseable answers and a
// request that times out are reported and left holes, the judgments and
// the audit queue match their golden files, and a rerun with the cache
// sends only the request that failed, then nothing.
func TestFill(t *testing.T) {
	var s judgeServer
	srv := s.start(t)
	dir := t.TempDir()
	r := request(dir)
	r.Endpoint = llm.Endpoint{URL: srv.URL + "/v1", Timeout: 500 * time.Millisecond, Retries: 1, Cache: filepath.Join(dir, "cache.jsonl")}
	var stderr bytes.Buffer
	err := r.Run(world(&stderr))
	if f, ok := err.(*Failed); !ok || f.N != 1 || f.Of != 8 {
		t.Fatalf("error %v, want 1 of 8 requests failed:\n%s", err, stderr.String())
	}
	report := strings.NewReplacer(srv.URL, "ENDPOINT", dir, "DIR").Replace(stderr.String())
	golden.Check(t, "testdata/report.golden", report)
	bodies := sortedBodies(s.bodies)
	golden.Check(t, "testdata/requests.golden", bodies)
	got, err := os.ReadFile(r.Out)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/filled.golden", strings.ReplaceAll(string(got), srv.URL, "ENDPOINT"))
	queue, err := os.ReadFile(r.AuditQueue)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/audit-queue.golden", string(queue))
	// The written judgments read back: people's grades untouched, the
	// labels with their provenance.
	set, err := judgments.Read(input.FromBytes("filled", got), judgments.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if set.Len() != 4 || set.LLMLen() != 5 || len(set.Audit().Drawn) != 2 {
		t.Errorf("%d grades, %d labels, audit %+v", set.Len(), set.LLMLen(), set.Audit())
	}

	// A rerun: only the request that failed is sent; then nothing.
	for run, want := range []int{1, 0} {
		before := len(s.bodies)
		stderr.Reset()
		if err := r.Run(world(&stderr)); err != nil {
			t.Fatalf("rerun %d: %v\n%s", run, err, stderr.String())
		}
		if sent := len(s.bodies) - before; sent != want || !strings.Contains(stderr.String(), fmt.Sprintf("%d answered by the endpoint, %d from the cache", want, 8-want)) {
			t.Errorf("rerun %d sent %d requests, want %d:\n%s", run, sent, want, stderr.String())
		}
	}
}

// TestFillKeepsJudgments: the judgments given are written unchanged, the
// spans, facts and meta of a JSON Lines judgment included, beside the
// labels.
func TestFillKeepsJudgments(t *testing.T) {
	var s judgeServer
	srv := s.start(t)
	dir := t.TempDir()
	exported := `{"query":"q9","item":"z","grade":1,"spans":["30 days"],"facts":["days"],"meta":{"assessors":{"ann":1},"seconds":[4.5]}}`
	extra := filepath.Join(dir, "export.jsonl")
	if err := os.WriteFile(extra, []byte(exported+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := request(dir)
	r.Judgments = append(r.Judgments, extra)
	r.Audit, r.AuditQueue = 0, ""
	r.Endpoint = llm.Endpoint{URL: srv.URL + "/v1", Timeout: 500 * time.Millisecond, Retries: 1}
	var stderr bytes.Buffer
	if err := r.Run(world(&stderr)); err != nil {
		if _, ok := err.(*Failed); !ok {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
	}
	got, err := os.ReadFile(r.Out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(got), "\n")
	for _, want := range []string{exported, `{"query":"q1","item":"a","grade":3}`} {
		if !slices.Contains(lines, want) {
			t.Errorf("the output lacks the judgment given as\n%s\ngot:\n%s", want, got)
		}
	}
}

func sortedBodies(bodies [][]byte) string {
	lines := make([]string, len(bodies))
	for i, b := range bodies {
		lines[i] = string(b)
	}
	slices.Sort(lines)
	lines = slices.Compact(lines)
	return strings.Join(lines, "\n") + "\n"
}

// TestBatchRoundTrip: the requests written as a Batch API input file are
// the bodies a live run sends, byte for byte; the provider's output read
// back gives the labels the live run gives.
func TestBatchRoundTrip(t *testing.T) {
	dir := t.TempDir()
	r := request(dir)
	r.Out, r.Audit, r.AuditQueue = "", 0, ""
	r.WriteBatch = filepath.Join(dir, "batch.jsonl")
	var stderr bytes.Buffer
	if err := r.Run(world(&stderr)); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "8 requests written to") {
		t.Errorf("report:\n%s", stderr.String())
	}
	data, err := os.ReadFile(r.WriteBatch)
	if err != nil {
		t.Fatal(err)
	}
	output, bodies := llmtest.AnswerBatch(t, data, func(id string, req llm.Request) string {
		if !strings.HasPrefix(id, "label-") {
			t.Errorf("custom id %q", id)
		}
		return completion(judge(req))
	})
	golden.Check(t, "testdata/requests.golden", sortedBodies(bodies))

	out := filepath.Join(dir, "output.jsonl")
	if err := os.WriteFile(out, output, 0o644); err != nil {
		t.Fatal(err)
	}
	r = request(dir)
	r.ReadBatch = out
	stderr.Reset()
	if err := r.Run(world(&stderr)); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	got, _ := os.ReadFile(r.Out)
	want, _ := os.ReadFile("testdata/filled.golden")
	// The live run labelled the slow pair only on its rerun, and recorded
	// its endpoint.
	wantLines := strings.ReplaceAll(string(want), `,"endpoint":"ENDPOINT/v1"`, "")
	gotLines := strings.Split(strings.TrimSpace(string(got)), "\n")
	for _, l := range gotLines {
		if !strings.Contains(wantLines, l) && !strings.Contains(l, `"item":"g"`) {
			t.Errorf("batch label not in the live run's: %s", l)
		}
	}
	if len(gotLines) != strings.Count(wantLines, "\n")+1 {
		t.Errorf("%d lines from the batch, live %d:\n%s", len(gotLines), strings.Count(wantLines, "\n"), got)
	}
}

// TestFillRefusals: settings that do not go together, and inputs the
// judge cannot read, are refused before anything is asked.
func TestFillRefusals(t *testing.T) {
	var s judgeServer
	srv := s.start(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		edit func(*Request)
		want string
	}{
		{"no model", func(r *Request) { r.Model = "" }, "give --model"},
		{"audit without queue", func(r *Request) { r.AuditQueue = "" }, "--audit N and --audit-queue FILE go together"},
		{"audit too large", func(r *Request) { r.Audit, r.Endpoint = 9, llm.Endpoint{URL: srv.URL + "/v1", Timeout: time.Second} }, "--audit 9: must lie between 1 and 3"},
		{"umbrela on another scale", func(r *Request) { r.Grades = "0..4" }, "differs from UMBRELA's 0..3"},
		{"both batch files", func(r *Request) { r.WriteBatch, r.ReadBatch = "a", "b" }, "--write-batch and --read-batch: give one"},
		{"no endpoint", func(r *Request) {}, "give --endpoint URL"},
		{"template without passage", func(r *Request) { r.Prompt = "testdata/topics.jsonl" }, "needs {query} and {passage}"},
		{"an item the corpus lacks", func(r *Request) { r.Corpus = filepath.Join(dir, "small.jsonl") }, `item "d": not in the corpus`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.WriteFile(filepath.Join(dir, "small.jsonl"), []byte(`{"id":"a","text":"x"}`+"\n"), 0o644)
			r := request(dir)
			tc.edit(&r)
			err := r.Run(world(io.Discard))
			if err == nil || !strings.Contains(flagname.Flagged(err), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}
