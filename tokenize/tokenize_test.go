package tokenize

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

func TestNewErrors(t *testing.T) {
	tests := []struct{ name, want string }{
		{"gpt5_base", `unknown tokenizer "gpt5_base"`},
		{"", `unknown tokenizer ""`},
		{"hf:testdata/hf/missing.json", "testdata/hf/missing.json"},
		{"hf:testdata/golden/passages.jsonl", "testdata/golden/passages.jsonl: not a tokenizer.json"},
	}
	for _, tt := range tests {
		if _, err := New(tt.name); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%q): error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestNewWithSpecialTokens(t *testing.T) {
	tests := []struct {
		name string
		want []int
	}{
		{"hf:" + filepath.Join("testdata", "hf", "wordpiece-bert.json"), []int{2, 3}}, // [CLS] [SEP]
		{"hf:" + filepath.Join("testdata", "hf", "metaspace-llama2.json"), []int{1}},  // <s>
		{"o200k_base", nil},
	}
	for _, tt := range tests {
		tok, err := NewWithSpecialTokens(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := tok.Encode(""); !slices.Equal(got, tt.want) {
			t.Errorf("%s: Encode(\"\") = %v, want %v", tt.name, got, tt.want)
		}
		if tok.Name() != tt.name {
			t.Errorf("Name() = %q, want %q", tok.Name(), tt.name)
		}
	}
	if _, err := NewWithSpecialTokens("nope"); err == nil {
		t.Error("NewWithSpecialTokens accepted an unknown name")
	}
}

func TestNames(t *testing.T) {
	if got := encodings(); !slices.Equal(got, []string{"cl100k_base", "o200k_base", "p50k_base", "r50k_base"}) {
		t.Errorf("Encodings() = %v", got)
	}
	for _, name := range []string{"o200k_base", "hf:" + filepath.Join("testdata", "hf", "wordpiece-bert.json")} {
		tok, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		if tok.Name() != name {
			t.Errorf("Name() = %q, want %q", tok.Name(), name)
		}
	}
}

// TestConcurrent encodes from several goroutines at once; run with -race.
func TestConcurrent(t *testing.T) {
	passages := readPassages(t, filepath.Join("testdata", "golden", "passages.jsonl"))[:32]
	for _, name := range []string{"cl100k_base", "hf:" + filepath.Join("testdata", "hf", "metaspace-llama2.json")} {
		tok, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]int, len(passages))
		for i, p := range passages {
			want[i] = tok.Count(p)
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Go(func() {
				for i := range passages {
					j := (i + g*7) % len(passages)
					if got := tok.Count(passages[j]); got != want[j] {
						t.Errorf("%s: passage %d counted %d, alone %d", name, j, got, want[j])
					}
				}
			})
		}
		wg.Wait()
	}
}

// reference is tiktoken-go's own encoder, a second oracle for the fuzz
// test: the ranks are the same, the splitting is a regular expression.
var reference = sync.OnceValue(func() map[string]*tiktoken.Tiktoken {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	refs := map[string]*tiktoken.Tiktoken{}
	for _, name := range encodings() {
		enc, err := tiktoken.GetEncoding(name)
		if err != nil {
			panic(err)
		}
		refs[name] = enc
	}
	return refs
})

func FuzzTiktoken(f *testing.F) {
	for _, s := range []string{"", "Hello, World!", "\n   \n", "it's 'S 12345 ١٢٣", "e\u0301 İ 中文 😀👍🏽", "a/b/\r\n//x", "<|endoftext|> x", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, ref := range reference() {
			tok, err := New(name)
			if err != nil {
				t.Fatal(err)
			}
			got, want := tok.Encode(s), ref.Encode(s, nil, nil)
			if !slices.Equal(got, want) || tok.Count(s) != len(want) {
				t.Fatalf("%s %q:\n got %v\nwant %v", name, s, got, want)
			}
		}
	})
}

func ExampleNew() {
	tok, err := New("o200k_base")
	if err != nil {
		panic(err)
	}
	fmt.Println(tok.Count("Clearance items are final sale."))
	// Output: 7
}
