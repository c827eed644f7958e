package hf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/ragstat/ragstat/internal/jsonin"
)

// fileJSON is the part of a tokenizer.json file that decides the ids.
type fileJSON struct {
	Version      string         `json:"version"`
	AddedTokens  []addedToken   `json:"added_tokens"`
	Normalizer   *componentJSON `json:"normalizer"`
	PreTokenizer *componentJSON `json:"pre_tokenizer"`
	PostProcess  *postJSON      `json:"post_processor"`
	Model        *modelJSON     `json:"model"`
}

// componentJSON holds the fields of every supported normalizer and
// pre-tokenizer; Type says which.
type componentJSON struct {
	Type string `json:"type"`

	Normalizers   []*componentJSON `json:"normalizers"`
	PreTokenizers []*componentJSON `json:"pretokenizers"`

	CleanText          *bool        `json:"clean_text"`
	HandleChineseChars *bool        `json:"handle_chinese_chars"`
	StripAccents       *bool        `json:"strip_accents"`
	Lowercase          *bool        `json:"lowercase"`
	StripLeft          bool         `json:"strip_left"`
	StripRight         bool         `json:"strip_right"`
	Pattern            *patternJSON `json:"pattern"`
	Content            string       `json:"content"`
	Prepend            string       `json:"prepend"`

	AddPrefixSpace   *bool   `json:"add_prefix_space"`
	UseRegex         *bool   `json:"use_regex"`
	Behavior         *string `json:"behavior"`
	Invert           bool    `json:"invert"`
	Replacement      string  `json:"replacement"`
	PrependScheme    *string `json:"prepend_scheme"`
	Split            *bool   `json:"split"`
	IndividualDigits bool    `json:"individual_digits"`
	Delimiter        string  `json:"delimiter"`
}

// patternJSON is a Split or Replace pattern.
type patternJSON struct {
	String *string `json:"String"`
	Regex  *string `json:"Regex"`
}

// modelJSON holds the fields of the BPE and WordPiece models.
type modelJSON struct {
	Type                    string          `json:"type"`
	Vocab                   map[string]int  `json:"vocab"`
	Merges                  json.RawMessage `json:"merges"`
	Dropout                 *float64        `json:"dropout"`
	UnkToken                *string         `json:"unk_token"`
	ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
	EndOfWordSuffix         *string         `json:"end_of_word_suffix"`
	FuseUnk                 *bool           `json:"fuse_unk"`
	ByteFallback            *bool           `json:"byte_fallback"`
	IgnoreMerges            *bool           `json:"ignore_merges"`
	MaxInputCharsPerWord    *int            `json:"max_input_chars_per_word"`
}

// Parse reads a tokenizer.json file's contents, less a byte-order mark
// at its start. A key given twice in one object (a token twice in the
// vocabulary, say) is an error naming the key and its line: JSON readers
// disagree on which one counts.
func Parse(data []byte) (*Tokenizer, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if err := jsonin.Unique("", 1, data); err != nil {
		return nil, fmt.Errorf("not a tokenizer.json file: %w", err)
	}
	var f fileJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a tokenizer.json file: %w", err)
	}
	if f.Version != "" && f.Version != "1.0" {
		return nil, fmt.Errorf("unsupported tokenizer.json version %q", f.Version)
	}
	if f.Model == nil {
		return nil, errors.New("no model")
	}
	m, err := buildModel(f.Model)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", f.Model.Type, err)
	}
	t := &Tokenizer{model: m, failed: new(failure)}
	if f.Normalizer != nil {
		if t.normalizer, err = buildNormalizer(f.Normalizer); err != nil {
			return nil, fmt.Errorf("normalizer: %w", err)
		}
	}
	if f.PreTokenizer != nil {
		if t.pre, err = buildPreTokenizer(f.PreTokenizer); err != nil {
			return nil, fmt.Errorf("pre_tokenizer: %w", err)
		}
	}
	if f.PostProcess != nil {
		if t.specials, err = buildPost(f.PostProcess); errors.Is(err, errNull) {
			return nil, fmt.Errorf("post_processor: %w", err) // a malformed file, refused as the normalizer's null is
		} else if err != nil {
			t.specialsErr = fmt.Errorf("post_processor: %w", err)
		}
	}
	t.added = newAddedVocab(f.AddedTokens, m, t.normalizer)
	return t, nil
}

// errNull is a component given as null where an object is expected (in a
// Sequence: a top-level null means "none" and is accepted).
var errNull = errors.New("null where a component object is expected")

// sequence builds each component of a Sequence, naming the one that fails.
func sequence[T any](subs []*componentJSON, build func(*componentJSON) (T, error)) ([]T, error) {
	var seq []T
	for i, sub := range subs {
		x, err := build(sub)
		if err != nil {
			return nil, fmt.Errorf("Sequence[%d]: %w", i, err)
		}
		seq = append(seq, x)
	}
	return seq, nil
}

func buildNormalizer(c *componentJSON) (normalizer, error) {
	if c == nil {
		return nil, errNull
	}
	switch c.Type {
	case "Sequence":
		seq, err := sequence(c.Normalizers, buildNormalizer)
		if err != nil {
			return nil, err
		}
		return normalizers(seq), nil
	case "NFC", "NFD", "NFKC", "NFKD":
		return unicodeForm{map[string]norm.Form{"NFC": norm.NFC, "NFD": norm.NFD, "NFKC": norm.NFKC, "NFKD": norm.NFKD}[c.Type]}, nil
	case "Lowercase":
		return lowercase{}, nil
	case "Strip":
		return strip{c.StripLeft, c.StripRight}, nil
	case "StripAccents":
		return stripAccents{}, nil
	case "Prepend":
		return prepend{c.Prepend}, nil
	case "Replace":
		f, err := newFinder(c.Pattern)
		if err != nil {
			return nil, fmt.Errorf("Replace: %w", err)
		}
		return replace{f, c.Content}, nil
	case "BertNormalizer":
		lower := orTrue(c.Lowercase)
		accents := lower
		if c.StripAccents != nil {
			accents = *c.StripAccents
		}
		return bertNormalizer{orTrue(c.CleanText), orTrue(c.HandleChineseChars), accents, lower}, nil
	}
	return nil, unsupported("normalizer", c.Type)
}

func buildPreTokenizer(c *componentJSON) (preTokenizer, error) {
	if c == nil {
		return nil, errNull
	}
	switch c.Type {
	case "Sequence":
		seq, err := sequence(c.PreTokenizers, buildPreTokenizer)
		if err != nil {
			return nil, err
		}
		return preTokenizers(seq), nil
	case "ByteLevel":
		return byteLevel{orTrue(c.AddPrefixSpace), orTrue(c.UseRegex)}, nil
	case "Split":
		return buildSplit(c)
	case "Metaspace":
		return buildMetaspace(c)
	case "Whitespace":
		return whitespace{}, nil
	case "WhitespaceSplit":
		return charSplit{isSpace, removed}, nil
	case "BertPreTokenizer":
		return bertPre{}, nil
	case "Punctuation":
		b, err := parseBehavior(c.Behavior, isolated)
		return charSplit{isPunct, b}, err
	case "Digits":
		if c.IndividualDigits {
			return charSplit{isNumeric, isolated}, nil
		}
		return charSplit{isNumeric, contiguous}, nil
	case "CharDelimiterSplit":
		d, err := oneChar("delimiter", c.Delimiter)
		return charSplit{func(r rune) bool { return r == d }, removed}, err
	}
	return nil, unsupported("pre-tokenizer", c.Type)
}

func buildSplit(c *componentJSON) (preTokenizer, error) {
	f, err := newFinder(c.Pattern)
	if err != nil {
		return nil, fmt.Errorf("Split: %w", err)
	}
	if c.Behavior == nil {
		return nil, errors.New("Split: no behavior")
	}
	b, err := parseBehavior(c.Behavior, 0)
	return patternSplit{f, b, c.Invert}, err
}

func buildMetaspace(c *componentJSON) (preTokenizer, error) {
	if _, err := oneChar("replacement", c.Replacement); err != nil {
		return nil, fmt.Errorf("Metaspace: %w", err)
	}
	scheme := "always"
	if c.PrependScheme != nil {
		scheme = *c.PrependScheme
	}
	if scheme != "always" && scheme != "first" && scheme != "never" {
		return nil, fmt.Errorf("Metaspace: unknown prepend_scheme %q", scheme)
	}
	if c.AddPrefixSpace != nil && !*c.AddPrefixSpace {
		if scheme != "never" && c.PrependScheme != nil {
			return nil, errors.New("Metaspace: add_prefix_space does not match declared prepend_scheme")
		}
		scheme = "never"
	}
	return metaspace{c.Replacement, scheme, orTrue(c.Split)}, nil
}

func buildModel(m *modelJSON) (model, error) {
	if m.Vocab == nil {
		return nil, errors.New("no vocab")
	}
	switch m.Type {
	case "BPE":
		return buildBPE(m)
	case "WordPiece":
		return buildWordPiece(m)
	}
	return nil, unsupported("model", m.Type)
}

func buildBPE(m *modelJSON) (model, error) {
	if m.Dropout != nil && *m.Dropout != 0 {
		return nil, fmt.Errorf("dropout %g makes encoding random; only null or 0 is supported", *m.Dropout)
	}
	merges, err := parseMerges(m.Merges)
	if err != nil {
		return nil, err
	}
	b, err := newBPE(m.Vocab, merges, orEmpty(m.ContinuingSubwordPrefix))
	if err != nil {
		return nil, err
	}
	b.unk, b.suffix = orEmpty(m.UnkToken), orEmpty(m.EndOfWordSuffix)
	b.fuseUnk, b.byteFallback, b.ignoreMerges = orFalse(m.FuseUnk), orFalse(m.ByteFallback), orFalse(m.IgnoreMerges)
	if _, ok := b.vocab[b.unk]; b.unk != "" && !ok {
		return nil, fmt.Errorf("unk_token %q is not in the vocabulary", b.unk)
	}
	return b, nil
}

// parseMerges reads merges written as ["a", "b"] pairs or as "a b" strings.
func parseMerges(raw json.RawMessage) ([][2]string, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, errors.New("no merges")
	}
	var pairs [][2]string
	if err := json.Unmarshal(raw, &pairs); err == nil {
		return pairs, nil
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		return nil, errors.New(`merges must be ["a", "b"] pairs or "a b" strings`)
	}
	pairs = make([][2]string, 0, len(lines))
	for i, l := range lines {
		a, b, ok := strings.Cut(l, " ")
		if !ok || strings.Contains(b, " ") {
			return nil, fmt.Errorf("merge %d: %q is not two tokens separated by a space", i+1, l)
		}
		pairs = append(pairs, [2]string{a, b})
	}
	return pairs, nil
}

func buildWordPiece(m *modelJSON) (model, error) {
	unk := "[UNK]"
	if m.UnkToken != nil {
		unk = *m.UnkToken
	}
	unkID, ok := m.Vocab[unk]
	if !ok {
		return nil, fmt.Errorf("unk_token %q is not in the vocabulary", unk)
	}
	prefix := "##"
	if m.ContinuingSubwordPrefix != nil {
		prefix = *m.ContinuingSubwordPrefix
	}
	maxChars := 100
	if m.MaxInputCharsPerWord != nil {
		maxChars = *m.MaxInputCharsPerWord
	}
	return &wordPiece{vocab: m.Vocab, unkID: unkID, prefix: prefix, maxChars: maxChars}, nil
}

func parseBehavior(s *string, dflt behavior) (behavior, error) {
	if s == nil {
		return dflt, nil
	}
	if b, ok := behaviors[*s]; ok {
		return b, nil
	}
	return 0, fmt.Errorf("unknown split behavior %q", *s)
}

func oneChar(field, s string) (rune, error) {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || n != len(s) {
		return 0, fmt.Errorf("%s %q must be one character", field, s)
	}
	return r, nil
}

func unsupported(kind, typ string) error {
	if typ == "" {
		return fmt.Errorf("%s without a type", kind)
	}
	return fmt.Errorf("unsupported %s %q", kind, typ)
}

func orTrue(b *bool) bool { return b == nil || *b }

func orFalse(b *bool) bool { return b != nil && *b }

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
