package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/demo"
)

func TestInterveneCommand(t *testing.T) {
	srv := httptest.NewServer(demo.ReaderHandler())
	defer srv.Close()
	tmp := t.TempDir()
	t.Chdir(filepath.Join(exampleDir(t), "pipeline"))
	args := []string{"intervene", "-j", "judgments.jsonl", "--topics", "topics.jsonl", "--corpus", "corpus.jsonl",
		"--model", "reader-1", "--temperature", "0", "--abstain-pattern", "cannot answer", "traces-v1.jsonl", "traces-v2.jsonl"}
	t.Setenv("OPENAI_API_KEY", "")
	for _, format := range []string{"table", "markdown", "json"} {
		live := append(args, "--endpoint", srv.URL+"/v1", "--cache", filepath.Join(tmp, format+".jsonl"))
		out, errs, code := ragstat(t, "", append(live, "--format", format)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, errs)
		}
		out = strings.NewReplacer(Version, "VERSION", tmp, "TMP", srv.URL, "ENDPOINT").Replace(out)
		golden(t, "intervene."+format+".golden", out)
	}

	// Offline: the batch written, then read back as the provider's output.
	batch := filepath.Join(tmp, "batch.jsonl")
	_, errs, code := ragstat(t, "", append(args, "--write-batch", batch)...)
	if code != 0 || !strings.Contains(errs, "8 requests written") {
		t.Fatalf("--write-batch: exit %d: %s", code, errs)
	}
	_, errs, code = ragstat(t, "", append(args, "--write-batch", batch)...)
	if code != exitInput || !strings.Contains(errs, "the file exists (pass --force") {
		t.Errorf("--write-batch over a file: exit %d: %s", code, errs)
	}
	if _, errs, code = ragstat(t, "", append(args, "--write-batch", "topics.jsonl", "--force")...); code != exitInput || !strings.Contains(errs, "is the same file as the input --topics") {
		t.Errorf("--write-batch over an input: exit %d: %s", code, errs)
	}
	if data, err := os.ReadFile(batch); err != nil || strings.Count(string(data), `"url":"/v1/chat/completions"`) != 8 {
		t.Errorf("batch file: %v\n%s", err, data)
	}
	_, errs, code = ragstat(t, "", args...)
	if code != exitInput || !strings.Contains(errs, "--endpoint") {
		t.Errorf("no generator: exit %d: %s", code, errs)
	}
}

// TestInterveneFailures: every request failing is an exit 1 with the
// count; credentials in the URL and the key never reach an output; no
// cache is kept unless one is named.
func TestInterveneFailures(t *testing.T) {
	const key = "sk-test-secret-42"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad key "+r.Header.Get("Authorization"), http.StatusUnauthorized)
	}))
	defer srv.Close()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	t.Setenv("OPENAI_API_KEY", key)
	t.Chdir(filepath.Join(exampleDir(t), "pipeline"))
	endpoint := strings.Replace(srv.URL, "http://", "http://user:"+key+"@", 1) + "/v1"
	out, errs, code := ragstat(t, "", "intervene", "-j", "judgments.jsonl", "--topics", "topics.jsonl", "--corpus", "corpus.jsonl",
		"--model", "reader-1", "--endpoint", endpoint, "--retries", "0", "--rate-limit", "0", "traces-v1.jsonl")
	if code != exitInternal || !strings.Contains(errs, "6 of the 6 requests to the generator failed") {
		t.Errorf("exit %d, want 1 and the count: %s", code, errs)
	}
	if strings.Contains(out+errs, key) || !strings.Contains(out, "generator: http://REDACTED@") || !strings.Contains(out, "bad key Bearer REDACTED") {
		t.Errorf("the key printed, or not redacted where expected:\n%s\n%s", out, errs)
	}
	if entries, err := os.ReadDir(home); err != nil || len(entries) != 0 {
		t.Errorf("the home folder holds %v (%v): no cache was asked for", entries, err)
	}
}

func TestDemoGeneratorLoopbackOnly(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:8089", "8089", "example.com:80"} {
		if _, errs, code := ragstat(t, "", "demo", "--generator", addr); code != exitInput || !strings.Contains(errs, "--generator") {
			t.Errorf("--generator %s: exit %d: %s", addr, code, errs)
		}
	}
}
