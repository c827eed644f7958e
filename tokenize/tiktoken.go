package tokenize

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"github.com/ragstat/ragstat/tokenize/internal/pieces"
)

// encodingSpec says where an encoding's ranks are and how it splits text.
type encodingSpec struct {
	file    string
	pattern string
	packs   bool // CountPacked may skip a part's inside (see there)
}

// specs are the tiktoken encodings New accepts. The rank files are embedded
// in tiktoken-go-loader, which finds them by base name.
var specs = map[string]encodingSpec{
	"cl100k_base": {"cl100k_base.tiktoken", pieces.CL100K, true},
	"o200k_base":  {"o200k_base.tiktoken", pieces.O200K, true},
	"p50k_base":   {"p50k_base.tiktoken", pieces.GPT2, false},
	"r50k_base":   {"r50k_base.tiktoken", pieces.GPT2, false},
}

// encodings returns the names of the built-in tiktoken encodings, sorted.
func encodings() []string {
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
	return &tiktokenEncoding{name: name, ranks: newRankTable(ranks), scan: scan, memo: newCountMemo(), packs: spec.packs}, nil
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
	packs   bool
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

// CountPacked sets counts[i] to Count(parts[i]) and returns Count(text),
// for any text and parts. It is faster when text is a packed context that
// holds the parts in order, each perhaps with a header or separator around
// it. Then each part's inside is split and counted once: where the text's
// pieces reach the end of a part's first piece, the part's pieces up to a
// boundary near its end are the text's pieces too, and their count is
// added at once.
//
// Why that holds: the split patterns look at no byte before a piece, so
// from a common boundary the text and the part split alike for as long as
// every byte the pattern reads lies inside the part. Letter, digit and
// symbol runs end at a space, whitespace runs end before the part's last
// byte when that is not whitespace, and a contraction reads at most three
// bytes past a letter run; so the skip ends at a boundary before the
// part's last space that is 4 or more bytes from its end.
func (e *tiktokenEncoding) CountPacked(text string, parts []string, counts []int) int {
	if !e.packs || !utf8.ValidString(text) {
		for i, p := range parts {
			counts[i] = e.Count(p)
		}
		return e.Count(text)
	}
	m, _ := e.mergers.Get().(*merger)
	if m == nil {
		m = new(merger)
	}
	defer e.mergers.Put(m)
	n, at := 0, 0
	step := func() { // counts the text's piece at at
		end := e.scan(text, at)
		if _, ok := m.rank(text[at:end], e.ranks); ok {
			n++
		} else {
			n += m.count(text[at:end], e.ranks)
		}
		at = end
	}
	for i, p := range parts {
		sc := partScan{first: -1}
		counts[i] = e.memo.count(p, func(p string) int { sc = e.scanPart(p, m); return sc.n })
		if sc.first < 0 {
			continue
		}
		q := strings.Index(text[at:], p)
		if q < 0 {
			continue
		}
		q += at
		for at < q+sc.first {
			step()
		}
		if at == q+sc.first {
			n += sc.inside
			at = q + sc.last
		}
	}
	for at < len(text) {
		step()
	}
	return n
}

// partScan is a part's count, and the span of its pieces that a packed
// text holding it splits alike (see CountPacked): from the end of its first
// piece to the boundary last, with inside tokens.
type partScan struct {
	n, first, last, inside int
}

// scanPart counts a part and finds its span; first is -1 if it has none.
func (e *tiktokenEncoding) scanPart(p string, m *merger) partScan {
	sc := partScan{first: -1}
	space := strings.LastIndexByte(p[:max(len(p)-packMargin, 0)], ' ')
	if end := len(p) - 1; space < 0 || !utf8.ValidString(p) || p[end] <= ' ' || p[end] >= utf8.RuneSelf {
		sc.n = e.count(p)
		return sc
	}
	firstN := 0
	for at := 0; at < len(p); {
		end := e.scan(p, at)
		if _, ok := m.rank(p[at:end], e.ranks); ok {
			sc.n++
		} else {
			sc.n += m.count(p[at:end], e.ranks)
		}
		if at == 0 {
			sc.first, firstN = end, sc.n
		}
		if end <= space {
			sc.last, sc.inside = end, sc.n-firstN
		}
		at = end
	}
	if sc.last <= sc.first {
		sc.first = -1
	}
	return sc
}

// packMargin is how many bytes after a part's last usable space lie inside
// it: the space, and the three bytes a contraction reads past a letter run.
const packMargin = 4

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
		rank, ok := m.rank(piece, e.ranks)
		f(m, piece, rank, ok)
		return true
	})
}
