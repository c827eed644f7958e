package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCollectRefuses(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "spans.otlp.jsonl")
	os.WriteFile(existing, []byte("{}\n"), 0o644)
	for _, c := range []struct {
		name string
		args []string
		msg  string
	}{
		{"existing file", []string{"--out", existing}, "exists: --append adds to it, --force replaces it"},
		{"append and force", []string{"--out", existing, "--append", "--force"}, "--append and --force can't be used together"},
		{"stdout append", []string{"--out", "-", "--append"}, "apply to a file, not to standard output"},
		{"body limit", []string{"--out", "-", "--max-body-mib", "0"}, "--max-body-mib 0"},
		{"bad address", []string{"--out", filepath.Join(dir, "new.jsonl"), "--addr", "127.0.0.1:99999"}, "listening on 127.0.0.1:99999"},
		{"no output", []string{}, "missing flags: --out=FILE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errs, code := ragstat(t, "", append([]string{"collect"}, c.args...)...)
			if code != exitInput || !strings.Contains(errs, c.msg) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errs, c.msg)
			}
			if b, _ := os.ReadFile(existing); string(b) != "{}\n" {
				t.Errorf("the existing file changed: %q", b)
			}
			if _, err := os.Stat(filepath.Join(dir, "new.jsonl")); err == nil {
				t.Error("an output was created without a receiver")
			}
		})
	}
}
