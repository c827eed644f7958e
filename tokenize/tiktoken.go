package tokenize

import (
	"fmt"
	"slices"
	"sync"
	"unicode/utf8"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/ragstat/ragstat/tokenize/internal/pieces"
)

// encodingSpec says where an encoding's ranks are and how it splits text.
type encodingSpec struct {
	file    string
	pattern string
}

// specs are the tiktoken encodings New accepts. The rank files are embedded
// in tiktoken-go-loader, which finds them by base name.
var specs = map[string]encodingSpec{
	"cl100k_base": {"cl100k_base.tiktoken", pieces.CL100K},
	"o200k_base":  {"o200k_base.tiktoken", pieces.O200K},
	"p50k_base":   {"p50k_base.tiktoken", pieces.GPT2},
	"r50k_base":   {"r50k_base.tiktoken", pieces.GPT2},
}

// Encodings returns the names of the built-in tiktoken encodings, sorted.
func Encodings() []string {
	names := make([]string, 0, len(specs))
	for name := range specs {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// loaded holds each encoding once loaded: loading o200k_base takes a few
// hundred milliseconds and about 30 MB, so every New shares one copy.
var loaded sync.Map // name -> func() (*tiktokenEncoding, error)

func newTiktoken(name string) (*tiktokenEncoding, error) {
	load, _ := loaded.LoadOrStore(name, sync.OnceValues(func() (*tiktokenEncoding, error) {
		return loadTiktoken(name)
	}))
	return load.(func() (*tiktokenEncoding, error))()
}

func loadTiktoken(name string) (*tiktokenEncoding, error) {
	spec := specs[name]
	ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(spec.file)
	if err != nil {
		return nil, fmt.Errorf("tokenize: loading %s: %w", name, err)
	}
	scan, ok := pieces.For(spec.pattern)
	if !ok {
		return nil, fmt.Errorf("tokenize: %s: no scanner for its split pattern", name)
	}
	return &tiktokenEncoding{name: name, ranks: newRankTable(ranks), scan: scan, memo: newCountMemo()}, nil
}

// tiktokenEncoding is an OpenAI encoding: text split by the encoding's
// pattern, each piece byte-pair encoded with the encoding's ranks, exactly
// as OpenAI's tiktoken does (encode_ordinary).
type tiktokenEncoding struct {
	name    string
	ranks   *rankTable
	scan    pieces.Scanner
	mergers sync.Pool // of *merger: their counts are this encoding's
	memo    *countMemo
}

func (e *tiktokenEncoding) Name() string { return e.name }

func (e *tiktokenEncoding) Encode(text string) []int {
	ids := make([]int, 0, len(text)/3+1)
	e.each(text, func(m *merger, piece string, rank int, ok bool) {
		if ok {
			ids = append(ids, rank)
			return
		}
		bounds := m.merge(piece, e.ranks)
		for i := 0; i+1 < len(bounds); i++ {
			r, _ := e.ranks.get(piece[bounds[i]:bounds[i+1]])
			ids = append(ids, r)
		}
	})
	return ids
}

func (e *tiktokenEncoding) Count(text string) int {
	return e.memo.count(text, e.count)
}

func (e *tiktokenEncoding) count(text string) int {
	n := 0
	e.each(text, func(m *merger, piece string, _ int, ok bool) {
		if ok {
			n++
		} else {
			n += m.count(piece, e.ranks)
		}
	})
	return n
}

// each calls f with every piece of text, its rank and true if it is a
// single token, and a merger to encode it with if it is not.
func (e *tiktokenEncoding) each(text string, f func(m *merger, piece string, rank int, ok bool)) {
	if !utf8.ValidString(text) {
		text = string([]rune(text))
	}
	m, _ := e.mergers.Get().(*merger)
	if m == nil {
		m = new(merger)
	}
	defer e.mergers.Put(m)
	e.scan.Each(text, func(piece string) bool {
		rank, ok := e.ranks.get(piece)
		f(m, piece, rank, ok)
		return true
	})
}
