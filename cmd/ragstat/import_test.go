package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const otlpFixture = "../../traceimport/testdata/openinference.otlp.jsonl"

// TestImportCommand: import writes traces and summarises what it could not
// map; stages reads the raw spans exactly as it reads the imported traces.
func TestImportCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "traces.jsonl")
	man := filepath.Join(dir, "manifest.json")
	mapping := []string{"--item-id", "metadata.id", "--abstain-pattern", "cannot find"}
	_, errs, code := ragstat(t, "", append([]string{"import", "otlp", otlpFixture, "--out", out, "--manifest", man}, mapping...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"imported 3 traces from 13 otlp spans", "not mapped: 1 span kind not mapped: GET /search"} {
		if !strings.Contains(errs, want) {
			t.Errorf("summary lacks %q:\n%s", want, errs)
		}
	}
	if data, _ := os.ReadFile(man); !strings.Contains(string(data), `"citation_pattern": "\\[([^\\]\\s]+)\\]"`) {
		t.Errorf("manifest lacks the citation pattern:\n%s", data)
	}
	_, errs, code = ragstat(t, "", "import", "otlp", otlpFixture, "--out", out)
	if code != exitInput || !strings.Contains(errs, "the file exists (pass --force") {
		t.Errorf("overwrite without --force: exit %d, %s", code, errs)
	}
	_, errs, code = ragstat(t, "", "import", "otlp", otlpFixture, "--strict", "--item-id", "metadata.id")
	if code != exitInput || !strings.Contains(errs, "openinference.otlp.jsonl:5: citation of an id that is no item of the trace") {
		t.Errorf("--strict: exit %d, %s", code, errs)
	}

	stages := []string{"stages", "-j", "testdata/import/judgments.jsonl", "--topics", "testdata/import/topics.jsonl", "--queries", "run", "--per-query"}
	fromImport, errs, code := ragstat(t, "", append(stages, out)...)
	if code != 0 {
		t.Fatalf("stages on imported traces: exit %d: %s", code, errs)
	}
	fromRaw, errs, code := ragstat(t, "", append(append(stages, mapping...), otlpFixture)...)
	if code != 0 {
		t.Fatalf("stages on raw spans: exit %d: %s", code, errs)
	}
	if fromRaw != fromImport {
		t.Errorf("stages differ between raw spans and imported traces:\n%s\nvs\n%s", fromRaw, fromImport)
	}
	if !strings.Contains(errs, "imported 3 traces") {
		t.Errorf("stages on raw spans does not summarise the mapping:\n%s", errs)
	}
	// By hand, refund's first stage: policy#2 (grade 2), old#1 (0),
	// exceptions#4 (3), faq#7 (1, but out of scope: no positive, so it
	// leaves the denominator and the ideal too). R = 2/2; RR = 1;
	// DCG = 3/log2(2) + 7/log2(4) = 6.5, ideal 7 + 3/log2(3) = 8.8928,
	// nDCG = 0.7309.
	if !strings.Contains(fromRaw, "VectorStoreRetriever           all refund    1.0000 1.0000 0.7309") {
		t.Errorf("refund's first stage is not as computed by hand:\n%s", fromRaw)
	}
	golden(t, "import.stages.golden", fromRaw)
	// The JSON result records how the raw file was mapped.
	js, errs, code := ragstat(t, "", append(append(stages, mapping...), "-f", "json", otlpFixture)...)
	if code != 0 || !strings.Contains(js, `"mapping": {`) || !strings.Contains(js, `"abstain_pattern": "cannot find"`) ||
		!strings.Contains(js, `"item_id": "document id, else metadata.id, else a content hash"`) {
		t.Errorf("stages -f json lacks the mapping: exit %d, %s\n%s", code, errs, js)
	}
	// With a tokenizer, the prompt sizes the spans reported stand beside
	// ragstat's counts of the same text.
	counted, errs, code := ragstat(t, "", append(append(stages, mapping...), "--tokenizer", "o200k_base", otlpFixture)...)
	if code != 0 || !strings.Contains(counted, "prompt tokens reported by the generator: 0 of 1 agree") ||
		!strings.Contains(counted, "reported differs: query limits (counted 26, reported 42, +16)") {
		t.Errorf("reported tokens: exit %d, %s\n%s", code, errs, counted)
	}
}

// TestRawTracesInCompareAndPool: compare and pool take the raw spans too;
// compared with its own import, a system differs by nothing.
func TestRawTracesInCompareAndPool(t *testing.T) {
	base := filepath.Join(t.TempDir(), "base.jsonl")
	mapping := []string{"--item-id", "metadata.id", "--stage", "retrieve=candidates", "--stage", "rerank=reranked",
		"--stage", "VectorStoreRetriever=candidates", "--stage", "ContextualCompressionRetriever=reranked"}
	if _, errs, code := ragstat(t, "", append([]string{"import", "otlp", otlpFixture, "--system", "base", "-o", base}, mapping...)...); code != 0 {
		t.Fatalf("import: exit %d: %s", code, errs)
	}
	out, errs, code := ragstat(t, "", append([]string{"compare", "-j", "testdata/import/judgments.jsonl", "--topics", "testdata/import/topics.jsonl",
		"--unanswerable", "exclude", "-f", "csv", base, otlpFixture, "--system", "cand"}, mapping...)...)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errs)
	}
	compared := 0
	for _, row := range strings.Split(out, "\n") {
		cols := strings.Split(row, ",")
		if len(cols) < 8 || cols[0] != "all" {
			continue
		}
		compared++
		if cols[3] != "cand" || cols[5] != cols[6] || cols[7] != "0" { // base_mean, cand_mean, mean_diff
			t.Errorf("a raw-spans system differs from its own import: %s", row)
		}
	}
	if compared != 9 {
		t.Errorf("%d whole-set comparisons, want 9 (3 stages x 3 metrics):\n%s", compared, out)
	}
	// The JSON result's manifest records how the raw file was mapped.
	js, errs, code := ragstat(t, "", append([]string{"compare", "-j", "testdata/import/judgments.jsonl", "--topics", "testdata/import/topics.jsonl",
		"--unanswerable", "exclude", "-f", "json", base, otlpFixture, "--system", "cand"}, mapping...)...)
	var res struct {
		Manifest struct {
			Inputs []struct {
				Path    string         `json:"path"`
				Mapping map[string]any `json:"mapping"`
			} `json:"inputs"`
		} `json:"manifest"`
	}
	if err := json.Unmarshal([]byte(js), &res); code != 0 || err != nil {
		t.Fatalf("compare -f json: exit %d, %v: %s", code, err, errs)
	}
	for _, in := range res.Manifest.Inputs {
		if got := in.Mapping != nil; got != (in.Path == otlpFixture) {
			t.Errorf("input %s: mapping recorded %v", in.Path, got)
		}
	}
	queue, errs, code := ragstat(t, "", "pool", "--depth", "2", "--item-id", "metadata.id", otlpFixture, "-o", "-")
	if code != 0 || !strings.Contains(queue, `{"query":"limits","item":"policy#2","systems":["rag-v2"]`) {
		t.Errorf("pool of raw spans: exit %d: %s\n%s", code, errs, queue)
	}
}

// TestImportNothingMapped: an import that maps no retrieval list exits 2
// naming the attribute keys the unmapped spans carry and the flags that
// would map them; the documents flag named maps them.
func TestImportNothingMapped(t *testing.T) {
	const homegrown = "testdata/import/homegrown.otlp.jsonl"
	var got strings.Builder
	for _, args := range [][]string{
		{"import", "otlp", homegrown},
		{"import", "otlp", otlpFixture, "--convention", "genai"},
	} {
		_, errs, code := ragstat(t, "", args...)
		if code != exitInput {
			t.Errorf("%v: exit %d, want %d", args, code, exitInput)
		}
		got.WriteString("$ ragstat " + strings.Join(args, " ") + "\n" + errs + "\n")
	}
	golden(t, "import.nothing-mapped.golden", got.String())
	out, errs, code := ragstat(t, "", "import", "otlp", homegrown, "--documents", "search=search.hits:$", "--query-id", "app.query_id")
	if code != 0 || !strings.Contains(out, `"name":"search","items":[{"id":"policy#2","score":1.5},{"id":"faq#7","score":0.5}]`) ||
		!strings.Contains(out, `"query":"refund"`) || !strings.Contains(errs, "conventions: none (2 spans), documents mapping (1 span)") {
		t.Errorf("--documents: exit %d\n%s\n%s", code, out, errs)
	}
}
