package hf

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ragstat/ragstat/internal/sharedtest"
)

// tiny is a small tokenizer.json: a BPE vocabulary with merges written the
// old way ("a b"), a normalizer, a pre-tokenizer and added tokens.
const tiny = `{
 "version": "1.0",
 "added_tokens": [
  {"id": 7, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
  {"id": 8, "content": "CA", "single_word": true, "lstrip": false, "rstrip": false, "normalized": true, "special": false},
  {"id": 9, "content": "<m>", "single_word": false, "lstrip": true, "rstrip": true, "normalized": false, "special": true}
 ],
 "normalizer": {"type": "Lowercase"},
 "pre_tokenizer": {"type": "WhitespaceSplit"},
 "model": {"type": "BPE", "unk_token": "?", "fuse_unk": true,
  "vocab": {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4, "?": 5, "bc": 6},
  "merges": ["a b", "ab c", "b c"]}
}`

// with replaces the first occurrence of old in tiny.
func with(old, new string) string { return strings.Replace(tiny, old, new, 1) }

// TestEncode's ids are those Hugging Face's tokenizers gives for tiny.
func TestEncode(t *testing.T) {
	tok, err := Parse([]byte(tiny))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text string
		want []int
	}{
		{"", nil},
		{"ABC", []int{4}},
		{"abcab", []int{4, 3}},
		{"bc a", []int{6, 0}},
		{"xyz a", []int{5, 0}},        // unknown characters fused into one
		{"Ca cab", []int{8, 2, 3}},    // "ca" alone is the added token
		{"<s>abc", []int{7, 4}},       // raw added token inside a word
		{"a  <m>  c", []int{0, 9, 2}}, // lstrip and rstrip take the spaces
		{"a\xffb", []int{0, 5, 1}},    // an invalid byte reads as U+FFFD
	}
	for _, tt := range tests {
		if got := tok.Encode(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Encode(%q) = %v, want %v", tt.text, got, tt.want)
		}
		if got := tok.Count(tt.text); got != len(tt.want) {
			t.Errorf("Count(%q) = %d, want %d", tt.text, got, len(tt.want))
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"not json", `{"model": [`, "not a tokenizer.json"},
		{"version", with(`"1.0"`, `"2.0"`), `version "2.0"`},
		{"no model", `{"version": "1.0"}`, "no model"},
		{"model type", with(`"type": "BPE"`, `"type": "Unigram"`), `unsupported model "Unigram"`},
		{"no vocab", `{"model": {"type": "BPE", "merges": []}}`, "no vocab"},
		{"dropout", with(`"fuse_unk": true`, `"dropout": 0.1`), "dropout"},
		{"merge", with(`"ab c"`, `"ab d"`), `merge 2: "d" is not in the vocabulary`},
		{"merge form", with(`"ab c"`, `"abc"`), "merge 2"},
		{"unk", with(`"unk_token": "?"`, `"unk_token": "<unk>"`), `unk_token "<unk>"`},
		{"normalizer", with(`"Lowercase"`, `"Precompiled"`), `normalizer: unsupported normalizer "Precompiled"`},
		{"pre-tokenizer", with(`"WhitespaceSplit"`, `"UnicodeScripts"`), `pre_tokenizer: unsupported pre-tokenizer "UnicodeScripts"`},
		{"sequence", with(`{"type": "Lowercase"}`, `{"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Nmt"}]}`), `Sequence[1]: unsupported normalizer "Nmt"`},
		{"behavior", with(`{"type": "WhitespaceSplit"}`, `{"type": "Punctuation", "behavior": "Sideways"}`), `behavior "Sideways"`},
		{"regex", with(`{"type": "WhitespaceSplit"}`, `{"type": "Split", "pattern": {"Regex": "("}, "behavior": "Isolated"}`), `regex "("`},
		{"metaspace", with(`{"type": "WhitespaceSplit"}`, `{"type": "Metaspace", "replacement": "__"}`), "one character"},
		{"wordpiece unk", `{"model": {"type": "WordPiece", "vocab": {"a": 0}}}`, `unk_token "[UNK]"`},
		{"token twice", "{\"model\": {\"type\": \"WordLevel\",\n\"vocab\": {\"a\": 0,\n\"a\": 1}}}", `line 3: key "a" given twice in one object in "/model/vocab"`},
		{"model twice", `{"model": {}, "model": {}}`, `line 1: key "model" given twice`},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.json))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

// TestBOM: a tokenizer.json that starts with a byte-order mark reads as
// the same file without one, as every other input does.
func TestBOM(t *testing.T) {
	plain, err := Parse([]byte(tiny))
	if err != nil {
		t.Fatal(err)
	}
	marked, err := Parse(append([]byte("\ufeff"), tiny...))
	if err != nil {
		t.Fatalf("with a byte-order mark: %v", err)
	}
	if a, b := plain.Count("hello world"), marked.Count("hello world"); a != b {
		t.Errorf("counts %d and %d", a, b)
	}
}

func TestLoadErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	broken := sharedtest.WriteFile(t, dir, "broken.json", with(`"Lowercase"`, `"Precompiled"`))
	for _, path := range []string{filepath.Join(dir, "missing.json"), broken} {
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("Load(%s): error %v does not name the file", path, err)
		}
	}
}

func fixtures(t testing.TB) []string {
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "hf", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	return paths
}

// synthetic are small configs that take the fuzzer into the Sequence,
// Split and post-processor paths, nulls included.
var synthetic = []string{
	with(`{"type": "Lowercase"}`, `{"type": "Sequence", "normalizers": [{"type": "NFKC"}, null, {"type": "Strip", "strip_left": true}]}`),
	with(`{"type": "WhitespaceSplit"}`, `{"type": "Sequence", "pretokenizers": [null, {"type": "Split", "pattern": {"Regex": "\\s+"}, "behavior": "Removed"}]}`),
	with(`{"type": "WhitespaceSplit"}`, `{"type": "Split", "pattern": {"Regex": "(a+)+$"}, "behavior": "Isolated"}`),
	with(`{"type": "WhitespaceSplit"}`, `{"type": "Split", "pattern": {"String": " "}, "behavior": "MergedWithNext", "invert": true}`),
	with(`"model":`, `"post_processor": {"type": "Sequence", "processors": [null]}, "model":`),
	with(`"model":`, `"post_processor": {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>"}}, {"Sequence": {"id": "A"}}], "special_tokens": {"<s>": {"ids": [7]}}}, "model":`),
	with(`"normalizer": {"type": "Lowercase"}`, `"normalizer": null`),
}

// TestConfigNulls: a null inside a Sequence is an error naming where it is,
// when the file is read (the post-processor's too, not only once its
// special tokens are asked for), not a crash; a null at the top level
// means none.
func TestConfigNulls(t *testing.T) {
	for _, c := range []struct{ json, want string }{
		{synthetic[0], "normalizer: Sequence[1]: null where a component object is expected"},
		{synthetic[1], "pre_tokenizer: Sequence[0]: null where a component object is expected"},
		{synthetic[4], "post_processor: Sequence[0]: null where a component object is expected"},
	} {
		_, err := Parse([]byte(c.json))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	if _, err := Parse([]byte(synthetic[6])); err != nil {
		t.Errorf("normalizer null: %v", err)
	}
}

// TestSplitBacktracking: a Split regex that can backtrack exponentially is
// refused when the file is read; ordinary patterns are kept.
func TestSplitBacktracking(t *testing.T) {
	split := func(re string) string {
		return with(`{"type": "WhitespaceSplit"}`, `{"type": "Split", "pattern": {"Regex": `+strconv.Quote(re)+`}, "behavior": "Isolated"}`)
	}
	for _, re := range []string{`(a+)+$`, `(a*)*b`, `(?:x|xx)+y`, `(\s?\w+)*!`, `(a+){2,}`} {
		start := time.Now()
		_, err := Parse([]byte(split(re)))
		if err == nil || !strings.Contains(err.Error(), "exponential time") {
			t.Errorf("%s: got %v", re, err)
		}
		if d := time.Since(start); d > time.Second {
			t.Errorf("%s: refusing took %v", re, d)
		}
	}
	for _, re := range []string{`\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s+(?!\S)|\s+`, `(?:ab){3}`, `(ab|cd)`, `[a-z]+(?:-[a-z]+)?`, `(?:\d{3})+`} {
		tok, err := Parse([]byte(split(re)))
		if err != nil {
			t.Errorf("%s: %v", re, err)
			continue
		}
		tok.Count("abc def 123 ab-cd")
	}
}

// TestConfigFromDevice: a device or a folder is refused before a byte is
// read (/dev/zero would never end).
func TestConfigFromDevice(t *testing.T) {
	for _, path := range []string{"/dev/zero", t.TempDir()} {
		if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Load(%s): %v", path, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(tiny))
	for _, s := range synthetic {
		f.Add([]byte(s))
	}
	for _, re := range append(catastrophic, nestedPatterns(1, 24)...) {
		f.Add([]byte(splitWith(re)))
		f.Add([]byte(splitWith(lookahead(re))))
	}
	for _, p := range fixtures(f) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tok, err := Parse(data)
		if err != nil {
			return
		}
		for _, s := range []string{"", "Hello, World!", " a  b\n", "日本 😀 <s>", "aaaaaaaaaaaa!"} {
			if n := tok.Count(s); n != len(tok.Encode(s)) && tok.Err() == nil {
				t.Fatalf("Count(%q) = %d, Encode has %d ids", s, n, len(tok.Encode(s)))
			}
		}
	})
}

func FuzzEncode(f *testing.F) {
	var toks []*Tokenizer
	for _, p := range fixtures(f) {
		tok, err := Load(p)
		if err != nil {
			f.Fatal(err)
		}
		toks = append(toks, tok)
	}
	for _, s := range []string{"", "Hello <s> world [CLS]", "\n   \n\t", "é e\u0301 İ", "中文 😀👍🏽", "\x00\xff", strings.Repeat("ab", 200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, tok := range toks {
			ids := tok.Encode(s)
			if n := tok.Count(s); n != len(ids) {
				t.Fatalf("%s: Count(%q) = %d, Encode has %d ids", tok.Name(), s, n, len(ids))
			}
		}
	})
}

func TestWithSpecialTokens(t *testing.T) {
	bert, err := Parse([]byte(with(`"model":`, `"post_processor": {"type": "BertProcessing", "sep": ["?", 5], "cls": ["c", 2]}, "model":`)))
	if err != nil {
		t.Fatal(err)
	}
	withSpecials, err := bert.WithSpecialTokens()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := withSpecials.Encode("ab"), []int{2, 3, 5}; !slices.Equal(got, want) {
		t.Errorf("Encode = %v, want %v", got, want)
	}
	if got := bert.Count("ab"); got != 1 {
		t.Errorf("the original tokenizer changed: Count = %d, want 1", got)
	}
	odd, err := Parse([]byte(with(`"model":`, `"post_processor": {"type": "Mystery"}, "model":`)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := odd.WithSpecialTokens(); err == nil || !strings.Contains(err.Error(), `unsupported post-processor "Mystery"`) {
		t.Errorf("WithSpecialTokens: error %v", err)
	}
}
