// Package tokenize owns exact token counting: it turns text into the token
// ids a generator's real tokenizer would produce, so context budgets are
// measured in the units the model is billed and truncated in.
//
// Two kinds of tokenizer are available through [New]:
//
//   - OpenAI's tiktoken encodings "cl100k_base", "o200k_base", "p50k_base"
//     and "r50k_base", with their ranks embedded in the binary (no network).
//     Ids equal those of OpenAI's tiktoken; text that looks like a special
//     token (such as "<|endoftext|>") is encoded as plain text.
//   - "hf:PATH", a Hugging Face tokenizer.json file: byte-level BPE (GPT-2,
//     Llama-3, Qwen), WordPiece (BERT) and Metaspace/SentencePiece-style BPE
//     with byte fallback (Llama-2, Mistral). Ids equal those of Hugging
//     Face's tokenizers library for encode(text, add_special_tokens=false):
//     added tokens found in the text are counted, but the post-processor's
//     special tokens (such as [CLS] and [SEP]) are not.
//
// Every Tokenizer is safe for concurrent use.
package tokenize

import (
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/tokenize/hf"
)

// Tokenizer turns text into token ids.
type Tokenizer interface {
	// Name is the name the tokenizer was created with.
	Name() string
	// Count returns the number of tokens in text, len(Encode(text)).
	Count(text string) int
	// Encode returns the token ids of text.
	Encode(text string) []int
}

// HFPrefix introduces a Hugging Face tokenizer.json path in a tokenizer name.
const HFPrefix = "hf:"

// New returns the tokenizer called name: one of [Encodings] or "hf:PATH".
func New(name string) (Tokenizer, error) {
	if path, ok := strings.CutPrefix(name, HFPrefix); ok {
		t, err := hf.Load(path)
		if err != nil {
			return nil, err
		}
		return named{name: name, Tokenizer: t}, nil
	}
	if _, ok := specs[name]; ok {
		return newTiktoken(name)
	}
	return nil, fmt.Errorf("tokenize: unknown tokenizer %q (want one of %s, or %sPATH to a tokenizer.json)",
		name, strings.Join(Encodings(), ", "), HFPrefix)
}

// named gives a Hugging Face tokenizer the name it was asked for.
type named struct {
	name string
	*hf.Tokenizer
}

func (n named) Name() string { return n.name }
