package main

import (
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
	if code != exitInput || !strings.Contains(errs, "exists: give --force") {
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
	// exceptions#4 (3), faq#7 (1, but out of scope: 0). R = 2/3; RR = 1;
	// DCG = 3/log2(2) + 7/log2(4) = 6.5, ideal 7 + 3/log2(3) + 1/log2(4) =
	// 9.3928, nDCG = 0.6920.
	if !strings.Contains(fromRaw, "VectorStoreRetriever           all refund    0.6667 1.0000 0.6920") {
		t.Errorf("refund's first stage is not as computed by hand:\n%s", fromRaw)
	}
	golden(t, "import.stages.golden", fromRaw)
}
