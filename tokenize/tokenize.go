// Package tokenize owns exact token counting: it turns text into the token
// ids a generator's real tokenizer would produce, so context budgets are
// measured in the units the model is billed and truncated in.
//
// Two kinds of tokenizer are available through [New]:
//
//   - OpenAI's tiktoken encodings "cl100k_base", "o200k_base", "p50k_base"
//     and "r50k_base", with their ranks embedded in the binary (no network).
//     Ids equal those of OpenAI's tiktoken (encode_ordinary): text that
//     looks like a special token (such as "<|endoftext|>") is encoded as
//     plain text. Loading an encoding takes a fraction of a second; it is
//     done once per process and shared.
//   - "hf:PATH", a Hugging Face tokenizer.json file: byte-level BPE (GPT-2,
//     Llama-3, Qwen), WordPiece (BERT) and Metaspace/SentencePiece-style BPE
//     with byte fallback (Llama-2, Mistral). Ids equal those of Hugging
//     Face's tokenizers library for encode(text, add_special_tokens=false):
//     added tokens found in the text are counted, but the post-processor's
//     special tokens (such as [CLS] and [SEP]) are not; [NewWithSpecialTokens]
//     counts them too. Package [hf] lists what is supported. The file is
//     read at every call: keep the Tokenizer.
//
// Every Tokenizer is safe for concurrent use. Text that is not valid UTF-8
// is read with each invalid byte as U+FFFD.
package tokenize

import (
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/tokenize/internal/hf"
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

// hfPrefix introduces a Hugging Face tokenizer.json path in a tokenizer name.
const hfPrefix = "hf:"

// New returns the tokenizer called name: one of [encodings] or "hf:PATH".
func New(name string) (Tokenizer, error) {
	if path, ok := strings.CutPrefix(name, hfPrefix); ok {
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
		name, strings.Join(encodings(), ", "), hfPrefix)
}

// NewWithSpecialTokens is New, except that a Hugging Face tokenizer also
// gives the special tokens its post-processor puts around a text, as
// encode(text, add_special_tokens=true) does ([CLS] and [SEP] for BERT,
// <|begin_of_text|> for Llama-3). The tiktoken encodings add none.
func NewWithSpecialTokens(name string) (Tokenizer, error) {
	tok, err := New(name)
	if err != nil {
		return nil, err
	}
	if n, ok := tok.(named); ok {
		if n.Tokenizer, err = n.WithSpecialTokens(); err != nil {
			return nil, err
		}
		return n, nil
	}
	return tok, nil
}

// Err returns the first error tok met encoding a text, or nil: a Hugging
// Face tokenizer's Split or Replace pattern past its matching budget on a
// hostile text (see hf.Tokenizer.Err), whose count is then incomplete. The
// tiktoken encodings meet none. A program counting untrusted text checks
// Err before it uses the counts.
func Err(tok Tokenizer) error {
	if f, ok := tok.(interface{ Err() error }); ok {
		return f.Err()
	}
	return nil
}

// named gives a Hugging Face tokenizer the name it was asked for.
type named struct {
	name string
	*hf.Tokenizer
}

func (n named) Name() string { return n.name }
