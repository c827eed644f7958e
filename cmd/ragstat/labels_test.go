package main

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/pool"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/llm"
)

// pair is a (query, item).
type pair = [2]string

// standIn is a stand-in for the LLM judge: it reads the query's and the
// passage's text from UMBRELA's prompt, maps them back to their ids, and
// answers the true grade, or with probability 1 − agree another grade on
// the scale (each pair's coin is a hash of the pair and the seed: the same
// pair always gets the same answer). It counts the requests it answers.
type standIn struct {
	queries, items map[string]string // text -> id
	truth          func(pair) int
	agree          float64
	seed           uint64
	grades         int
	hits           atomic.Int64
}

func (s *standIn) grade(p pair) int {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d", p[0], p[1], s.seed)
	rng := rand.New(rand.NewPCG(h.Sum64(), 27))
	g := s.truth(p)
	if rng.Float64() < s.agree {
		return g
	}
	return (g + 1 + rng.IntN(s.grades-1)) % s.grades // another grade, uniformly
}

func (s *standIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req llm.Request
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) != 2 {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	prompt := req.Messages[1].Content
	_, rest, _ := strings.Cut(prompt, "\nQuery: ")
	query, rest, _ := strings.Cut(rest, "\nPassage: ")
	passage, _, _ := strings.Cut(rest, "\n\nSplit this problem")
	q, okq := s.queries[query]
	it, oki := s.items[passage]
	if !okq || !oki {
		http.Error(w, "unknown query or passage", http.StatusBadRequest)
		return
	}
	s.hits.Add(1)
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]string{"role": "assistant",
		"content": fmt.Sprintf("##final score: %d", s.grade(pair{q, it}))}, "finish_reason": "stop"}},
		"usage": map[string]int{"prompt_tokens": 310, "completion_tokens": 5}})
	w.Write(b)
}

// labelsData is a synthetic collection: 16 queries, 24 passages, a true
// grade for every pair, three runs of unequal quality, traces of them, and
// judgments of half the pairs in the runs' top 5.
type labelsData struct {
	dir   string
	truth map[pair]int
}

func (d labelsData) path(name string) string { return filepath.Join(d.dir, name) }

func newLabelsData(t *testing.T) labelsData {
	t.Helper()
	d := labelsData{dir: t.TempDir(), truth: map[pair]int{}}
	rng := rand.New(rand.NewPCG(27, 1))
	var topics, corpus, qrels strings.Builder
	for i := 1; i <= 24; i++ {
		fmt.Fprintf(&corpus, `{"id":"p%02d","text":"passage p%02d"}`+"\n", i, i)
	}
	runs := map[string]*strings.Builder{"A": {}, "B": {}, "C": {}}
	noise := map[string]float64{"A": 0.4, "B": 0.9, "C": 1.6}
	traces := &strings.Builder{}
	for q := 1; q <= 16; q++ {
		qid := fmt.Sprintf("q%02d", q)
		fmt.Fprintf(&topics, `{"id":"%s","text":"question %s"}`+"\n", qid, qid)
		for i := 1; i <= 24; i++ {
			g := 0
			switch u := rng.Float64(); {
			case u < 0.08:
				g = 3
			case u < 0.2:
				g = 2
			case u < 0.35:
				g = 1
			}
			if i == q { // every query has a relevant passage
				g = 3
			}
			d.truth[pair{qid, fmt.Sprintf("p%02d", i)}] = g
		}
		for _, sys := range []string{"A", "B", "C"} {
			type scored struct {
				id    string
				score float64
			}
			var list []scored
			for i := 1; i <= 24; i++ {
				id := fmt.Sprintf("p%02d", i)
				list = append(list, scored{id, float64(d.truth[pair{qid, id}]) + noise[sys]*rng.NormFloat64()})
			}
			slices.SortFunc(list, func(a, b scored) int {
				switch {
				case a.score > b.score:
					return -1
				case a.score < b.score:
					return 1
				}
				return strings.Compare(a.id, b.id)
			})
			var ids []string
			for r, s := range list[:10] {
				fmt.Fprintf(runs[sys], "%s Q0 %s %d %.4f %s\n", qid, s.id, r+1, s.score, sys)
				ids = append(ids, fmt.Sprintf(`{"id":%q}`, s.id))
			}
			config := `{"retriever":"bm25"}`
			if sys == "C" {
				config = `{"retriever":"dense","reranker_model":"judge-1-2025-01-01"}`
			}
			fmt.Fprintf(traces, `{"query":%q,"system":%q,"stages":[{"name":"candidates","items":[%s]},{"name":"context","items":[%s]}],"config":%s}`+"\n",
				qid, sys, strings.Join(ids, ","), strings.Join(ids[:3], ","), config)
		}
	}
	// People judged half the pairs of the runs' top 5, chosen by a coin.
	judged := map[pair]bool{}
	for _, sys := range []string{"A", "B", "C"} {
		for l := range strings.Lines(runs[sys].String()) {
			f := strings.Fields(l)
			if rank := f[3]; len(rank) == 1 && rank <= "5" {
				judged[pair{f[0], f[2]}] = true
			}
		}
	}
	for _, p := range slices.SortedFunc(func(yield func(pair) bool) {
		for p := range judged {
			if !yield(p) {
				return
			}
		}
	}, func(a, b pair) int { return strings.Compare(a[0]+"\x00"+a[1], b[0]+"\x00"+b[1]) }) {
		if rng.IntN(2) == 0 {
			fmt.Fprintf(&qrels, "%s 0 %s %d\n", p[0], p[1], d.truth[p])
		}
	}
	for name, text := range map[string]string{"topics.jsonl": topics.String(), "corpus.jsonl": corpus.String(), "qrels.txt": qrels.String(),
		"A.run": runs["A"].String(), "B.run": runs["B"].String(), "C.run": runs["C"].String(), "traces.jsonl": traces.String()} {
		if err := os.WriteFile(d.path(name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// judge starts the stand-in over d's texts.
func (d labelsData) judge(t *testing.T, agree float64) (*standIn, string) {
	s := &standIn{queries: map[string]string{}, items: map[string]string{}, truth: func(p pair) int { return d.truth[p] },
		agree: agree, seed: 1, grades: 4}
	for p := range d.truth {
		s.queries["question "+p[0]] = p[0]
		s.items["passage "+p[1]] = p[1]
	}
	return s, newServer(t, s)
}

// newServer serves h on loopback and returns its API's base URL.
func newServer(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// export is what judge export writes once people graded the audit queue:
// the true grade of every pair queued.
func (d labelsData) export(t *testing.T, queue, out string) {
	writeExport(t, queue, out, func(p pair) int { return d.truth[p] })
}

// writeExport writes to out the judgments people give the pairs of the
// queue file: grade's.
func writeExport(t *testing.T, queue, out string, grade func(pair) int) {
	t.Helper()
	f, err := input.Open(queue, nil)
	if err != nil {
		t.Fatal(err)
	}
	q, err := pool.ReadQueue(f)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range q {
		g := grade(pair{e.Query, e.Item})
		fmt.Fprintf(&b, `{"query":%q,"item":%q,"grade":%d,"meta":{"assessors":{"ann":%d}}}`+"\n", e.Query, e.Item, g, g)
	}
	if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLabelsLoop walks the loop through the command line: fill the holes
// of three runs with the stand-in judge, draw an audit, refuse to evaluate
// without a label choice, grade the audit queue, then eval, compare and
// stages under each choice; a rerun of the fill sends nothing.
func TestLabelsLoop(t *testing.T) {
	d := newLabelsData(t)
	judge, endpoint := d.judge(t, 0.8)
	t.Setenv("OPENAI_API_KEY", "sk-test")
	filled, queue, cache := d.path("filled.jsonl"), d.path("audit-queue.jsonl"), d.path("cache.jsonl")
	fill := []string{"judge", "fill", "-j", d.path("qrels.txt"), "--topics", d.path("topics.jsonl"), "--corpus", d.path("corpus.jsonl"),
		"--endpoint", endpoint, "--model", "judge-1", "--depth", "5", "--cache", cache, "--rate-limit", "0",
		"--out", filled, "--audit", "6", "--seed", "3", "--audit-queue", queue, "A=" + d.path("A.run"), "B=" + d.path("B.run"), "C=" + d.path("C.run")}
	_, stderr, code := ragstat(t, "", fill...)
	if code != 0 {
		t.Fatalf("judge fill: exit %d: %s", code, stderr)
	}
	clean := strings.NewReplacer(d.dir, "DIR", endpoint, "ENDPOINT")
	golden(t, "labels.fill.golden", clean.Replace(stderr))
	asked := judge.hits.Load()
	// A rerun sends nothing: every answer is in the cache.
	if _, stderr, code := ragstat(t, "", append(fill, "--force")...); code != 0 || judge.hits.Load() != asked || !strings.Contains(stderr, "0 answered by the endpoint") {
		t.Errorf("rerun: exit %d, %d requests sent: %s", code, judge.hits.Load()-asked, stderr)
	}

	runs := []string{"A=" + d.path("A.run"), "B=" + d.path("B.run"), "C=" + d.path("C.run")}
	base := []string{"-j", filled, "-k", "5", "--unjudged", "nonrelevant", "--unanswerable", "zero"}
	_, stderr, code = ragstat(t, "", append(append([]string{"eval"}, base...), runs...)...)
	if code != exitInput || !strings.Contains(stderr, "--labels is not set") || !strings.Contains(stderr, "choose human") ||
		!strings.Contains(stderr, "llm (") || !strings.Contains(stderr, "ppi (") {
		t.Errorf("eval without --labels: exit %d: %s", code, stderr)
	}
	export := d.path("export.jsonl")
	d.export(t, queue, export)
	audited := append(slices.Clone(base), "-j", export)
	for _, labels := range []string{"human", "llm", "ppi"} {
		out, stderr, code := ragstat(t, "", append(append([]string{"eval", "--labels", labels, "--summary"}, audited...), runs...)...)
		if code != 0 {
			t.Fatalf("eval --labels %s: exit %d: %s", labels, code, stderr)
		}
		golden(t, "labels.eval-"+labels+".golden", clean.Replace(out))
	}
	out, stderr, code := ragstat(t, "", append(append([]string{"eval", "--labels", "ppi", "--summary", "-f", "json"}, audited...), runs...)...)
	if code != 0 || !strings.Contains(out, `"ppi": [`) || !strings.Contains(out, `"weighted_kappa":`) || !strings.Contains(out, `"labels": "ppi"`) {
		t.Errorf("eval -f json: exit %d: %s\n%s", code, stderr, out)
	}
	// The saved result reads back, the estimates with it, into the HTML report.
	saved := d.path("ppi.json")
	os.WriteFile(saved, []byte(out), 0o644)
	if page, stderr, code := ragstat(t, "", "report", saved); code != 0 || !strings.Contains(page, "<h2>LLM labels</h2><pre>PPI&#43;&#43; means (labels ppi)") || !strings.Contains(page, "weighted kappa") {
		t.Errorf("report of the saved result: exit %d: %s", code, stderr)
	}

	// compare: the gate reads the PPI++ interval of the difference.
	out, stderr, code = ragstat(t, "", append(append([]string{"compare", "--labels", "ppi", "--fail-on", "nDCG@5 < -0.02"}, audited...), runs...)...)
	if code != exitGate || !strings.Contains(stderr, "PPI++ mean difference") {
		t.Errorf("compare --labels ppi: exit %d: %s", code, stderr)
	}
	golden(t, "labels.compare.golden", clean.Replace(out+stderr))

	// stages over traces of the same runs, C reranked by the judge model.
	out, stderr, code = ragstat(t, "", append(append([]string{"stages", "--labels", "ppi", "--topics", d.path("topics.jsonl")},
		"-j", filled, "-j", export, "--unjudged", "nonrelevant", "--unanswerable", "zero", "-k", "candidates=5"), d.path("traces.jsonl"))...)
	if code != 0 {
		t.Fatalf("stages --labels ppi: exit %d: %s", code, stderr)
	}
	golden(t, "labels.stages.golden", clean.Replace(out))
	if !strings.Contains(out, `warning: C: its traces' config "reranker_model" is "judge-1-2025-01-01", the judge model`) {
		t.Error("no warning that C is reranked by the judge")
	}
	_, stderr, code = ragstat(t, "", "stages", "--topics", d.path("topics.jsonl"), "-j", filled, d.path("traces.jsonl"))
	if code != exitInput || !strings.Contains(stderr, "--labels is not set") {
		t.Errorf("stages without --labels: exit %d: %s", code, stderr)
	}
}

// TestLabelsElsewhere: of two LLM labels of one pair in two files the later
// stands, with a warning; pool counts people's grades alone as judged; the
// commands that carry people's grades refuse a file with LLM labels.
func TestLabelsElsewhere(t *testing.T) {
	d := newLabelsData(t)
	_, endpoint := d.judge(t, 0.8)
	t.Setenv("OPENAI_API_KEY", "")
	filled := d.path("filled.jsonl")
	if _, stderr, code := ragstat(t, "", "judge", "fill", "-j", d.path("qrels.txt"), "--topics", d.path("topics.jsonl"), "--corpus", d.path("corpus.jsonl"),
		"--endpoint", endpoint, "--model", "judge-1", "--depth", "5", "--rate-limit", "0", "--out", filled, "A="+d.path("A.run")); code != 0 {
		t.Fatalf("judge fill: exit %d: %s", code, stderr)
	}
	// A second file labels one of the pairs again, with another grade.
	data, _ := os.ReadFile(filled)
	var relabel []byte
	for l := range strings.Lines(string(data)) {
		var label map[string]any
		if json.Unmarshal([]byte(l), &label) != nil || label["source"] != "llm" {
			continue
		}
		label["model"], label["grade"] = "judge-2", (int(label["grade"].(float64))+1)%4
		relabel, _ = json.Marshal(label)
		break
	}
	second := d.path("second.jsonl")
	os.WriteFile(second, append(relabel, '\n'), 0o644)
	_, stderr, code := ragstat(t, "", "eval", "-j", filled, "-j", second, "--labels", "llm", "-k", "5", "--unjudged", "nonrelevant", "A="+d.path("A.run"))
	if code != 0 || !strings.Contains(stderr, "1 pairs carry an LLM label in two judgment files: the later file's label is kept") {
		t.Errorf("two labels of a pair: exit %d: %s", code, stderr)
	}
	out, stderr, code := ragstat(t, "", "pool", "--depth", "5", "-j", filled, "--out", "-", "A="+d.path("A.run"))
	if code != 0 || !strings.Contains(stderr, "LLM labels: only people's grades count as judged") || !strings.Contains(out, `"order":1`) {
		t.Errorf("pool: exit %d: %s", code, stderr)
	}
	_, stderr, code = ragstat(t, "", "split", "--topics", d.path("topics.jsonl"), "--held-out", "0.5", "--judgments", filled, "--out-dir", d.path("split"))
	if code != exitInput || !strings.Contains(stderr, "LLM labels; split divides people's grades alone") {
		t.Errorf("split: exit %d: %s", code, stderr)
	}
}
