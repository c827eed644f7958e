// Package hf encodes text with a Hugging Face tokenizer.json file, giving
// the ids Hugging Face's tokenizers library gives for
// encode(text, add_special_tokens=false): added tokens found in the text
// are kept, but the post-processor's special tokens (such as [CLS] and
// [SEP]) are not added. [Tokenizer.WithSpecialTokens] adds them, as
// add_special_tokens=true does for one sequence.
//
// Supported: the BPE model (byte-level as in GPT-2, Llama-3 and Qwen, or
// SentencePiece-style with byte fallback as in Llama-2 and Mistral) and the
// WordPiece model (BERT); the normalizers NFC, NFD, NFKC, NFKD, Lowercase,
// Strip, StripAccents, Replace, Prepend, BertNormalizer and Sequence; the
// pre-tokenizers ByteLevel, Split, Metaspace, Whitespace, WhitespaceSplit,
// Punctuation, Digits, BertPreTokenizer, CharDelimiterSplit and Sequence;
// added tokens with their single_word, lstrip, rstrip and normalized
// options; the post-processors TemplateProcessing, BertProcessing,
// RobertaProcessing, ByteLevel and Sequence. Anything else in a file is an
// error naming it (an unsupported post-processor only when special tokens
// are asked for). Decoders do not change ids and are ignored, and so are
// truncation and padding: counts are of the whole text. BPE dropout must be
// absent, null or 0, as it makes encoding random.
//
// Text that is not valid UTF-8 is read with each invalid byte as U+FFFD.
//
// Split and Replace regular expressions are matched with Go's regexp, in
// time linear in the text, when the pattern means the same there (no
// lookaround, no \d \w \s or \b, no anchor, no case folding, no repetition
// of what may be empty); the others with a backtracking matcher under a
// budget, past which the text is not encoded and [Tokenizer.Err] says so.
//
// Characters are classified with Go's Unicode 15.0 tables. Hugging Face's
// library takes some properties from newer tables (the characters added in
// Unicode 16.0) and some from older ones (normalization forms, accent
// stripping, and BERT's punctuation and control characters, for a few
// hundred characters assigned in recent versions); text with such rare
// characters may be counted differently. Comparing the normalizers and
// pre-tokenizers on every code point found no other difference.
package hf

import (
	"fmt"
	"io"
	"os"
	"sync"
	"unicode/utf8"
)

// Tokenizer encodes text as a tokenizer.json file describes. It is safe for
// concurrent use.
type Tokenizer struct {
	name       string
	added      *addedVocab
	normalizer normalizer   // nil: none
	pre        preTokenizer // nil: none
	model      model

	specials    specials // the post-processor's tokens
	specialsErr error    // why the post-processor is not supported
	addSpecials bool     // put specials around the ids
	failed      *failure // shared by the copies WithSpecialTokens makes
}

// failure is the first error a Tokenizer met encoding a text.
type failure struct {
	mu  sync.Mutex
	err error
}

// Err returns the first error met encoding a text, or nil: a Split or
// Replace regular expression that took longer than its budget to match,
// as a backtracking pattern can on a hostile text (0.5 s plus 10 µs a
// character, rounded up to a power of two of milliseconds, so at most
// twice that). The ids and count of that text are incomplete, and from
// then on Encode and Count give nothing, so that a hostile pattern costs
// one budget, not one a text: a program that counts untrusted text checks
// Err before using the counts.
func (t *Tokenizer) Err() error {
	if t.failed == nil {
		return nil
	}
	t.failed.mu.Lock()
	defer t.failed.mu.Unlock()
	return t.failed.err
}

// MaxFileSize is the largest tokenizer.json Load reads (the largest
// published ones are tens of megabytes).
const MaxFileSize = 1 << 30

// Load reads the tokenizer.json file at path. It must be a regular file of
// at most MaxFileSize bytes: a device or a pipe is refused.
func Load(path string) (*Tokenizer, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("hf: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("hf: %s: %w", path, err)
	}
	t.name = path
	return t, nil
}

// WithSpecialTokens returns a copy of t that also gives the special tokens
// the post-processor puts around a text, as Hugging Face's
// encode(text, add_special_tokens=true) does: [CLS] and [SEP] for BERT,
// <|begin_of_text|> for Llama-3. It fails if the post-processor is not
// supported.
func (t *Tokenizer) WithSpecialTokens() (*Tokenizer, error) {
	if t.specialsErr != nil {
		return nil, fmt.Errorf("hf: %s: %w", t.name, t.specialsErr)
	}
	c := *t
	c.addSpecials = true
	return &c, nil
}

// Name is the path the tokenizer was loaded from ("" after Parse).
func (t *Tokenizer) Name() string { return t.name }

// Encode returns the ids of text.
func (t *Tokenizer) Encode(text string) []int {
	var ids []int
	t.each(text, func(id int) { ids = append(ids, id) })
	return ids
}

// Count returns the number of tokens in text.
func (t *Tokenizer) Count(text string) int {
	n := 0
	t.each(text, func(int) { n++ })
	return n
}

// each calls emit with every id of text, in order; a pattern past its
// budget stops it and becomes t's Err. Once t has an Err it encodes
// nothing more: the counts are incomplete already, and a pattern that
// backtracks on one text would spend its budget again on every other.
func (t *Tokenizer) each(text string, emit func(int)) {
	if t.Err() != nil {
		return
	}
	defer func() {
		if r := recover(); r != nil {
			mf, ok := r.(matchFailure)
			if !ok {
				panic(r)
			}
			t.failed.mu.Lock()
			if t.failed.err == nil {
				t.failed.err = fmt.Errorf("hf: %w", mf.err)
				if t.name != "" {
					t.failed.err = fmt.Errorf("hf: %s: %w", t.name, mf.err)
				}
			}
			t.failed.mu.Unlock()
		}
	}()
	if !utf8.ValidString(text) {
		text = string([]rune(text))
	}
	if t.addSpecials {
		for _, id := range t.specials.prefix {
			emit(id)
		}
		defer func() {
			for _, id := range t.specials.suffix {
				emit(id)
			}
		}()
	}
	for _, seg := range t.added.extract(text, t.normalizer) {
		if seg.id >= 0 {
			emit(seg.id)
			continue
		}
		words := []piece{seg.piece}
		if t.pre != nil {
			words = t.pre.preTokenize(words)
		}
		for _, w := range words {
			if w.text != "" {
				t.model.tokenize(w.text, emit)
			}
		}
	}
}

// piece is a part of the text on its way through the pipeline. atStart
// says whether it begins at the start of the original text, which is what
// Metaspace's prepend_scheme "first" looks at.
type piece struct {
	text    string
	atStart bool
}

// normalizer rewrites a piece of text.
type normalizer interface {
	normalize(p piece) piece
}

// preTokenizer splits pieces into smaller ones.
type preTokenizer interface {
	preTokenize(ps []piece) []piece
}

// model turns one pre-tokenized word into ids.
type model interface {
	tokenize(word string, emit func(int))
	// id returns the id of a token of the vocabulary.
	id(token string) (int, bool)
	// size is the number of tokens in the vocabulary.
	size() int
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: give the path of a tokenizer.json", path)
	}
	if info.Size() > MaxFileSize {
		return nil, fmt.Errorf("%s has %d bytes, more than a tokenizer.json has (at most %d)", path, info.Size(), MaxFileSize)
	}
	return io.ReadAll(io.LimitReader(f, MaxFileSize+1))
}
