package tokenize

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/ragstat/ragstat/internal/longtest"
	"github.com/ragstat/ragstat/tokenize/internal/hf"
)

// goldenRow is one line of a golden file: a text and its ids per tokenizer.
type goldenRow struct {
	Text string           `json:"text"`
	IDs  map[string][]int `json:"ids"`
}

func readGolden(t testing.TB, path string) []goldenRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []goldenRow
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r goldenRow
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s:%d: %v", path, len(rows)+1, err)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// checkGolden encodes every golden text with tok and compares with the
// oracle's ids under key.
func checkGolden(t *testing.T, tok Tokenizer, key string, rows []goldenRow) {
	t.Helper()
	mismatches := 0
	for i, r := range rows {
		want, ok := r.IDs[key]
		if !ok {
			t.Fatalf("row %d has no ids for %s", i+1, key)
		}
		got := tok.Encode(r.Text)
		if !slices.Equal(got, want) || tok.Count(r.Text) != len(want) {
			if mismatches++; mismatches <= 5 {
				t.Errorf("%s row %d %q:\n got %v\nwant %v", key, i+1, r.Text, got, want)
			}
		}
	}
	if mismatches > 0 {
		t.Errorf("%s: %d of %d texts differ from the oracle", key, mismatches, len(rows))
	}
}

func TestTiktokenGolden(t *testing.T) {
	rows := readGolden(t, filepath.Join("testdata", "golden", "tiktoken.jsonl"))
	for _, name := range encodings() {
		t.Run(name, func(t *testing.T) {
			tok, err := New(name)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tok, name, rows)
		})
	}
}

func readPassages(t testing.TB, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for line := range bytes.Lines(data) {
		var s string
		if err := json.Unmarshal(line, &s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func TestHFGolden(t *testing.T) {
	rows := readGolden(t, filepath.Join("testdata", "golden", "hf.jsonl"))
	special := readGolden(t, filepath.Join("testdata", "golden", "hf-special.jsonl"))
	fixtures, err := filepath.Glob(filepath.Join("testdata", "hf", "*.json"))
	if err != nil || len(fixtures) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range fixtures {
		key := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(key, func(t *testing.T) {
			tok, err := hf.Load(path)
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, tok, key, rows)
			withSpecials, err := tok.WithSpecialTokens()
			if err != nil {
				t.Fatal(err)
			}
			checkGolden(t, withSpecials, key, special)
		})
	}
}

// TestRunsGolden: long runs of one character or a short unit (one piece of
// the split pattern, the input that made byte-pair encoding quadratic)
// count as the oracles count them, in every encoding and every fixture.
func TestRunsGolden(t *testing.T) {
	path := filepath.Join("testdata", "golden", "runs.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	toks := map[string]Tokenizer{}
	for _, name := range encodings() {
		if toks[name], err = New(name); err != nil {
			t.Fatal(err)
		}
	}
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "hf", "*.json"))
	for _, f := range fixtures {
		if toks[strings.TrimSuffix(filepath.Base(f), ".json")], err = New(hfPrefix + f); err != nil {
			t.Fatal(err)
		}
	}
	rows := 0
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var r struct {
			Unit   string         `json:"unit"`
			N      int            `json:"n"`
			Counts map[string]int `json:"counts"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		if len(r.Counts) != len(toks) {
			t.Fatalf("%s:%d: counts for %d tokenizers, want %d", path, i+1, len(r.Counts), len(toks))
		}
		text := strings.Repeat(r.Unit, r.N)
		for name, want := range r.Counts {
			tok, ok := toks[name]
			if !ok {
				t.Fatalf("%s:%d: unknown tokenizer %q", path, i+1, name)
			}
			if got := tok.Count(text); got != want {
				t.Errorf("%s:%d: %s: %q × %d: %d tokens, want %d", path, i+1, name, r.Unit, r.N, got, want)
			}
		}
		rows++
	}
	if rows == 0 {
		t.Fatalf("%s: no rows", path)
	}
}

// codePointText is the text whose count is checked for code point c.
func codePointText(c rune) string { return "a" + string(c) + "1 " + string(c) + "b" }

// readCodePoints reads testdata/golden/name, a JSON object of what
// tiktoken counts for the code points (the counts, or their hash) by
// tokenizer name, into want.
func readCodePoints(t *testing.T, name string, want any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "golden", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, want); err != nil {
		t.Fatal(err)
	}
}

// TestCodePointSample counts codePointText(c) for a sample of code points
// (every one below U+0800, every 101st above; the rule of
// testdata/oracle/gen.mjs) and compares each count with OpenAI's tiktoken.
// TestEveryCodePoint, in the long suite, checks them all.
func TestCodePointSample(t *testing.T) {
	var want map[string][]int
	readCodePoints(t, "codepoints-sample.json", &want)
	for name, counts := range want {
		tok, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		i, mismatches := 0, 0
		for c := rune(0); c <= unicode.MaxRune; c++ {
			if c >= 0xD800 && c <= 0xDFFF || c >= 0x800 && c%101 != 0 {
				continue
			}
			if i >= len(counts) {
				t.Fatalf("%s: the sample has %d counts, fewer than the rule gives", name, len(counts))
			}
			if got := tok.Count(codePointText(c)); got != counts[i] {
				if mismatches++; mismatches <= 5 {
					t.Errorf("%s: U+%04X counted %d, tiktoken %d", name, c, got, counts[i])
				}
			}
			i++
		}
		if i != len(counts) {
			t.Errorf("%s: the sample has %d counts, the rule gives %d code points", name, len(counts), i)
		}
	}
}

// TestEveryCodePoint counts codePointText(c) for every code point c and
// compares a hash of the counts with the one OpenAI's tiktoken gives.
func TestEveryCodePoint(t *testing.T) {
	longtest.Skip(t)
	var want map[string]string
	readCodePoints(t, "codepoints.json", &want)
	for name, hash := range want {
		tok, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		var counts []byte
		for c := rune(0); c <= unicode.MaxRune; c++ {
			if c >= 0xD800 && c <= 0xDFFF {
				continue
			}
			if len(counts) > 0 {
				counts = append(counts, ',')
			}
			counts = strconv.AppendInt(counts, int64(tok.Count(codePointText(c))), 10)
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(counts)); got != hash {
			t.Errorf("%s: the counts differ from tiktoken's for some code points", name)
		}
	}
}
