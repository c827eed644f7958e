package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/ragstat/ragstat/internal/sharedtest"
	"github.com/ragstat/ragstat/stages"
)

// TestStagesShardsMergeToOneRun makes traces of two real pipelines from
// DL-HARD (BM25 candidates reranked by monoT5, BM25+RM3 reranked by BERT,
// the top 3 packed as context), with its topics and judgments, splits
// them into 4 and 7 shards and checks that the merged parts print exactly
// what one run prints, in every format of stages.
func TestStagesShardsMergeToOneRun(t *testing.T) {
	tmp := t.TempDir()
	qrels, topics, traces := dlHardPipelines(t, tmp)
	args := append([]string{"stages", "-j", qrels, "--topics", topics, "--unjudged", "nonrelevant", "--tokenizer", "o200k_base",
		"--k", "candidates=100", "--k", "reranked=10"}, traces...)
	outputs := [][]string{{"-f", "table"}, {"-f", "table", "--per-query"}, {"-f", "json"}}
	single := map[int]string{}
	for i, o := range outputs {
		out, errs, code := ragstat(t, "", append(args, o...)...)
		if code != 0 {
			t.Fatalf("single run %v: exit %d: %s", o, code, errs)
		}
		single[i] = out
	}
	if !strings.Contains(single[0], "OVER BUDGET") || !strings.Contains(single[0], "Latency") {
		t.Fatalf("the fixture should put some queries over budget and record latencies:\n%s", single[0])
	}
	checkStagesParquet(t, args, tmp)
	for _, n := range []int{4, 7} {
		parts := writeShards(t, tmp, "part", args, n)
		for i, o := range outputs {
			out, errs, code := ragstat(t, "", append(append([]string{"merge"}, o...), parts...)...)
			if code != 0 {
				t.Fatalf("merge of %d, %v: exit %d: %s", n, o, code, errs)
			}
			if out != single[i] {
				t.Errorf("merge of %d shards, %v, differs from one run:\n%s", n, o, firstDiff(out, single[i]))
			}
		}
		if n == 4 {
			_, errs, code := ragstat(t, "", append([]string{"merge"}, parts[:3]...)...)
			if code != exitInput || !strings.Contains(errs, "3/4 missing (gap)") {
				t.Errorf("a gap: exit %d, %s", code, errs)
			}
			other, _, _ := ragstat(t, "", append(args, "-f", "json", "--shard", "3/4", "--tokenizer", "cl100k_base")...)
			os.WriteFile(filepath.Join(tmp, "other.json"), []byte(other), 0o644)
			_, errs, code = ragstat(t, "", append(append([]string{"merge"}, parts[:3]...), filepath.Join(tmp, "other.json"))...)
			if code != exitInput || !strings.Contains(errs, "other.json disagree on the tokenizer") {
				t.Errorf("another tokenizer: exit %d, %s", code, errs)
			}
			doc := readDoc(t, parts[3])
			if !editFirstValue(doc) {
				t.Fatal("no per-query value in a part")
			}
			writeDoc(t, filepath.Join(tmp, "edited.json"), doc)
			_, errs, code = ragstat(t, "", append(append([]string{"merge"}, parts[:3]...), filepath.Join(tmp, "edited.json"))...)
			if code != exitInput || !strings.Contains(errs, "edited.json: its per-query values or queries do not match the digest") {
				t.Errorf("an edited part: exit %d, %s", code, errs)
			}
		}
	}
}

// dlHardPipelines writes, in tmp, the topics of DL-HARD's judged queries
// and the traces of two pipelines over them (BM25 candidates reranked by
// monoT5, BM25+RM3 reranked by BERT), and returns the judgments, the
// topics and the two trace files.
func dlHardPipelines(t *testing.T, tmp string) (qrels, topics string, traces []string) {
	dir := sharedtest.Dir(t, "data/dl-hard-passage")
	qrels = filepath.Join(dir, "dl_hard-passage.qrels")
	judged, relevant := readQrels(t, qrels)
	topics = filepath.Join(tmp, "topics.jsonl")
	writeTopics(t, filepath.Join(dir, "topics.tsv"), topics, judged, relevant)
	for _, p := range [][3]string{{"bm25-t5", "bm25.run.gz", "bm25_t5_zs.run.gz"}, {"rm3-bert", "bm25_rm3.run.gz", "bm25_rm3_bert_zs.run.gz"}} {
		path := filepath.Join(tmp, p[0]+".jsonl")
		writeTraces(t, path, p[0], filepath.Join(dir, "runs", p[1]), filepath.Join(dir, "runs", p[2]), judged, relevant)
		traces = append(traces, path)
	}
	return qrels, topics, traces
}

// readQrels returns the judged queries in order and each one's first
// relevant item.
func readQrels(t *testing.T, path string) ([]string, map[string]string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var judged []string
	relevant := map[string]string{}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if !seen[f[0]] {
			seen[f[0]] = true
			judged = append(judged, f[0])
		}
		if g, _ := strconv.Atoi(f[3]); g >= 1 && relevant[f[0]] == "" {
			relevant[f[0]] = f[2]
		}
	}
	return judged, relevant
}

// writeTopics writes a topic a judged query, with its text and, when it
// has a relevant passage, a required fact that passage supports; every
// ninth is unanswerable.
func writeTopics(t *testing.T, tsv, path string, judged []string, relevant map[string]string) {
	data, err := os.ReadFile(tsv)
	if err != nil {
		t.Fatal(err)
	}
	text := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		id, q, _ := strings.Cut(line, "\t")
		text[id] = q
	}
	var b strings.Builder
	for i, q := range judged {
		topic := map[string]any{"id": q, "text": text[q]}
		if i%9 == 4 {
			topic["answerable"] = false
		} else if r := relevant[q]; r != "" {
			topic["facts"] = []any{map[string]any{"id": "answer", "support": []any{map[string]string{"item": r}}}}
		}
		writeJSONLine(t, &b, topic)
	}
	os.WriteFile(path, []byte(b.String()), 0o644)
}

// writeTraces writes a trace a judged query: the first run's top 100 as
// candidates, the second's top 10 as reranked, its top 3 packed, with
// budgets, answers and latencies that depend on the query alone.
func writeTraces(t *testing.T, path, system, first, second string, judged []string, relevant map[string]string) {
	cands, reranked := readRun(t, first), readRun(t, second)
	var b strings.Builder
	for i, q := range judged {
		items := func(ids []string, n int) []map[string]any {
			var out []map[string]any
			for k, id := range ids[:min(n, len(ids))] {
				out = append(out, map[string]any{"id": id, "score": float64(n - k)})
			}
			return out
		}
		ctx := items(reranked[q], 3)
		cited := []string{}
		if len(ctx) > 0 {
			cited = append(cited, ctx[0]["id"].(string))
		}
		abstained := i%7 == 3
		answer := map[string]any{"text": "see " + strings.Join(cited, " "), "citations": cited, "abstained": abstained}
		if i%11 == 5 {
			delete(answer, "abstained")
		}
		tr := map[string]any{"query": q, "system": system, "stages": []any{
			map[string]any{"name": "candidates", "items": items(cands[q], 100)},
			map[string]any{"name": "reranked", "items": items(reranked[q], 10)},
			map[string]any{"name": "context", "items": ctx, "budget_tokens": 12 + i%9, "answer_reserve_tokens": 5,
				"instructions": "Answer from the context.", "request": "question " + q},
		}, "answer": answer, "latency_ms": map[string]float64{"candidates": float64(10 + i%13), "generation": 700 + float64(i*37%101)/4}}
		writeJSONLine(t, &b, tr)
	}
	os.WriteFile(path, []byte(b.String()), 0o644)
}

func writeJSONLine(t *testing.T, b *strings.Builder, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	b.Write(data)
	b.WriteByte('\n')
}

// readRun reads a gzipped TREC run (trecRows): each query's items in
// rank order.
func readRun(t *testing.T, path string) map[string][]string {
	out := map[string][]string{}
	for _, r := range trecRows(t, path) {
		if n := len(out[r.Query]); int(r.Rank) != n+1 && int(r.Rank) != n {
			t.Fatalf("%s: query %s not in rank order at rank %d", path, r.Query, r.Rank)
		}
		out[r.Query] = append(out[r.Query], r.Item)
	}
	return out
}

// checkStagesParquet writes the per-trace records as JSON Lines and as
// Parquet and checks that every stage's values agree.
func checkStagesParquet(t *testing.T, args []string, tmp string) {
	jsonOut, pqOut := filepath.Join(tmp, "records.jsonl"), filepath.Join(tmp, "records.parquet")
	for _, path := range []string{jsonOut, pqOut} {
		if _, errs, code := ragstat(t, "", append(args, "--per-query-out", path)...); code != 0 {
			t.Fatalf("--per-query-out %s: exit %d: %s", path, code, errs)
		}
	}
	type pqRow struct {
		System   string  `parquet:"system"`
		Query    string  `parquet:"query"`
		Stage    string  `parquet:"stage"`
		Length   int64   `parquet:"length"`
		Facts    int64   `parquet:"facts"`
		Support  int64   `parquet:"facts_supported"`
		Evidence int64   `parquet:"evidence"`
		NDCG     float64 `parquet:"nDCG"`
	}
	rows, err := parquet.ReadFile[pqRow](pqOut)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]pqRow{}
	data, _ := os.ReadFile(jsonOut)
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r stages.QueryRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		for i, st := range r.Stages {
			w := pqRow{System: r.System, Query: r.Query, Stage: st.Name, Length: int64(st.Length), Evidence: int64(len(r.Evidence))}
			if r.Facts != nil {
				w.Facts, w.Support = int64(r.Facts.Facts), int64(r.Facts.Supported[i])
			}
			w.NDCG = -1 // not scored: NaN in Parquet
			if len(st.Values) > 0 {
				w.NDCG = *st.Values[2].Value
			}
			want[r.System+"/"+r.Query+"/"+st.Name] = w
		}
	}
	if len(rows) != len(want) || len(rows) == 0 {
		t.Fatalf("%d Parquet rows, %d in the JSON Lines", len(rows), len(want))
	}
	for _, r := range rows {
		if math.IsNaN(r.NDCG) {
			r.NDCG = -1
		}
		if w := want[r.System+"/"+r.Query+"/"+r.Stage]; r != w {
			t.Fatalf("Parquet row %+v, JSON Lines %+v", r, w)
		}
	}
}
