package demo_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/demo"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/llm"
	"github.com/ragstat/ragstat/intervene"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/tokenize"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

const fixtures = "fixtures/pipeline"

func open(t *testing.T, name string) *input.File {
	t.Helper()
	f, err := input.Open(filepath.Join(fixtures, name), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// options reads the demo's pipeline files.
func options(t *testing.T, gen intervene.Generator) (intervene.Options, []*trace.Trace) {
	t.Helper()
	js, err := judgments.Read(open(t, "judgments.jsonl"), judgments.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := topics.Read(open(t, "topics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := corpus.Read(open(t, "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var traces []*trace.Trace
	for _, name := range []string{"traces-v1.jsonl", "traces-v2.jsonl"} {
		tr, err := trace.Read(open(t, name))
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, tr...)
	}
	tok, err := tokenize.New("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	temp, seed := 0.0, int64(7)
	return intervene.Options{Judgments: js, Topics: ts, Corpus: c, Tokenizer: tok, MinGrade: 1,
		Settings: intervene.Settings{Model: "reader-1", Temperature: &temp, Seed: &seed},
		Citation: regexp.MustCompile(`\[([^\]\s]+)\]`), Abstain: regexp.MustCompile(regexp.QuoteMeta(demo.Abstention)),
		Generator: gen}, traces
}

// server is an OpenAI-compatible endpoint answering with the demo's
// reader, recording every request body; fail makes the first n requests
// fail with 429.
type server struct {
	mu     sync.Mutex
	bodies [][]byte
	fail   int
}

func (s *server) start(t *testing.T) *httptest.Server {
	reader := demo.ReaderHandler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, body)
		fail := s.fail > 0
		s.fail--
		s.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		if fail {
			w.Header().Set("Retry-After", "2")
			http.Error(w, "slow down", http.StatusTooManyRequests)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		reader.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func verdicts(res *intervene.Result) map[string]intervene.Verdict {
	out := map[string]intervene.Verdict{}
	for _, c := range res.Cases {
		out[c.System+"/"+c.Query] = c.Verdict
	}
	return out
}

func TestRunAgainstAnEndpoint(t *testing.T) {
	var s server
	s.fail = 1
	srv := s.start(t)
	var slept []time.Duration
	client := &llm.Client{Endpoint: srv.URL + "/v1", APIKey: "k", Retries: 2, Backoff: time.Second,
		Sleep: func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }}
	opt, traces := options(t, client)
	res, err := intervene.Run(context.Background(), traces, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]intervene.Verdict{
		// v1's reranker cut the exception; v2's packer truncated it: the
		// verified context, holding it whole, fixes both.
		"v1/refund-clearance": intervene.ContextContributed,
		"v2/refund-clearance": intervene.ContextContributed,
		// v1 packed the superseded 14-day policy and tenant B's limits
		// first; the reader trusts them.
		"v1/refund-window": intervene.ContextContributed,
		"v1/api-limits":    intervene.ContextContributed,
	}
	got := verdicts(res)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: verdict %q, want %q", k, got[k], v)
		}
	}
	if len(got) != len(want) {
		t.Errorf("cases %v, want %v", got, want)
	}
	if len(slept) != 1 || slept[0] != 2*time.Second {
		t.Errorf("retry waits %v, want one of 2s (Retry-After)", slept)
	}
	// Every request carries the same settings, and the two arms of a
	// query differ only in the context before the request.
	if len(s.bodies) != 2*len(want)+1 {
		t.Fatalf("%d requests, want %d", len(s.bodies), 2*len(want)+1)
	}
	reqs := s.bodies[1:]
	for i := 0; i < len(reqs); i += 2 {
		var a, b intervene.Request
		if err := json.Unmarshal(reqs[i], &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(reqs[i+1], &b); err != nil {
			t.Fatal(err)
		}
		if a.Model != "reader-1" || *a.Temperature != 0 || *a.Seed != 7 || a.MaxTokens != nil {
			t.Errorf("settings sent: %s", reqs[i])
		}
		if a.Messages[0] != b.Messages[0] || a.Messages[0].Role != "system" {
			t.Errorf("system messages differ:\n%s\n%s", reqs[i], reqs[i+1])
		}
		ra, rb := a.Messages[1].Content, b.Messages[1].Content
		qa, qb := ra[strings.LastIndex(ra, "\n\n"):], rb[strings.LastIndex(rb, "\n\n"):]
		if qa != qb {
			t.Errorf("requests differ: %q, %q", qa, qb)
		}
		head := `{"model":"reader-1","messages":[{"role":"system","content":`
		if !bytes.HasPrefix(reqs[i], []byte(head)) || !bytes.HasSuffix(reqs[i], []byte(`],"temperature":0,"seed":7}`)) {
			t.Errorf("request body framing: %s", reqs[i])
		}
	}
	// v1/refund-clearance: the verified context is written in the trace's
	// own layout ("[id] text", a blank line apart).
	for _, c := range res.Cases {
		if c.System == "v1" && c.Query == "refund-clearance" {
			if !strings.HasPrefix(c.Fixed.Context, "[policy#2] Refund policy.") || !strings.Contains(c.Fixed.Context, "\n\n[exceptions#4] Exceptions") {
				t.Errorf("verified context:\n%s", c.Fixed.Context)
			}
			if c.Layout != "trace" || c.Verified.From != "facts" {
				t.Errorf("layout %q, from %q", c.Layout, c.Verified.From)
			}
		}
	}

	// With a cache, a request seen before is not sent again: the verified
	// arms of v1's and v2's refund-clearance are the same request, and a
	// rerun sends nothing.
	cachePath := filepath.Join(t.TempDir(), "cache.jsonl")
	for run, wantSent := range []int{2*len(want) - 1, 0} {
		cache, err := llm.OpenCache(cachePath, client.Endpoint, client)
		if err != nil {
			t.Fatal(err)
		}
		opt.Generator = cache
		n := len(s.bodies)
		again, err := intervene.Run(context.Background(), traces, opt)
		if err != nil {
			t.Fatal(err)
		}
		if sent := len(s.bodies) - n; sent != wantSent || cache.Hits != 2*len(want)-wantSent {
			t.Errorf("run %d with the cache sent %d requests (want %d), %d hits", run, sent, wantSent, cache.Hits)
		}
		cached := 0
		for i := range again.Cases {
			for _, a := range []*intervene.Arm{&again.Cases[i].Original, &again.Cases[i].Fixed} {
				if a.Cached {
					cached++
				}
				a.Cached = false
			}
		}
		if cached != cache.Hits {
			t.Errorf("run %d: %d answers marked cached, %d taken from the cache", run, cached, cache.Hits)
		}
		if a, b := mustJSON(t, res), mustJSON(t, again); a != b {
			t.Errorf("run %d with the cache differs, but for the answers marked cached:\n%s\n%s", run, a, b)
		}
	}
	// The same file for another endpoint answers none of the first
	// endpoint's requests: all are sent there (but the one the run repeats).
	other := s.start(t)
	to := &llm.Client{Endpoint: other.URL + "/v1", APIKey: "k"}
	cache, err := llm.OpenCache(cachePath, to.Endpoint, to)
	if err != nil {
		t.Fatal(err)
	}
	opt.Generator = cache
	n := len(s.bodies)
	if _, err := intervene.Run(context.Background(), traces, opt); err != nil {
		t.Fatal(err)
	}
	if sent := len(s.bodies) - n; sent != 2*len(want)-1 || cache.Hits != 1 {
		t.Errorf("another endpoint: %d requests sent (want %d), %d answers from the cache (want 1)", sent, 2*len(want)-1, cache.Hits)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFailingAndQueries: asking for the failing queries and naming some is
// refused, naming both options.
func TestFailingAndQueries(t *testing.T) {
	opt, traces := options(t, answer{text: "x"})
	opt.Failing, opt.Queries = true, []string{"q1"}
	if _, err := intervene.Run(context.Background(), traces, opt); err == nil || err.Error() != "failing and queries: give one" {
		t.Errorf("err %v", err)
	}
}
