package baseline

import (
	"cmp"
	"math"
	"runtime"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	porterstemmer "github.com/blevesearch/go-porterstemmer"
)

// The compact index ranks as Search does, for callers that need the rank
// of given passages for many queries over a large corpus (an audit of a
// test set): bleve takes minutes to index 200,000 passages and a
// millisecond a query, this index seconds and microseconds. It scores
// with the same BM25 (k1 = 1.2, b = 0.75, the square root of the term
// frequency, idf ln(1 + (N - df + 0.5) / (df + 0.5)), bleve's query norm
// and coordination factor (Score), the average length
// estimated as bleve does: the distinct terms of the corpus per passage,
// rounded up) over the same English analysis, words cut at anything but
// letters, digits and inner apostrophes (bleve cuts at Unicode word
// boundaries); TestCompactAgreesWithSearch measures how close the two
// rankings are.

const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Analysis says in words how text becomes terms, for a report to state.
const Analysis = "words of letters and digits, lower case, possessive 's stripped, the Snowball English stop words removed, Porter stemming"

// stopWords is bleve's English stop list (Snowball's), read at first use.
var stopWords = sync.OnceValue(func() analysis.TokenMap {
	m := analysis.NewTokenMap()
	if err := m.LoadBytes(en.EnglishStopWords); err != nil {
		panic(err) // the list is compiled in
	}
	return m
})

// An Analyzer turns text into terms (Analysis). It remembers the stems of
// the words it has seen; it is not safe for concurrent use.
type Analyzer struct {
	stems map[string]string // lower-case word -> stem; "" for a stop word
	stop  analysis.TokenMap
	buf   []byte
}

// NewAnalyzer returns an Analyzer.
func NewAnalyzer() *Analyzer {
	return &Analyzer{stems: map[string]string{}, stop: stopWords()}
}

// Terms appends the terms of text to dst, in text order, repeats kept.
func (a *Analyzer) Terms(dst []string, text string) []string {
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !wordRune(r) {
			i += n
			continue
		}
		a.buf = a.buf[:0]
		j := i
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if wordRune(r) {
				a.buf = utf8.AppendRune(a.buf, unicode.ToLower(r))
				j += n
				continue
			}
			if apostrophe(r) && j+n < len(text) {
				if next, _ := utf8.DecodeRuneInString(text[j+n:]); wordRune(next) {
					a.buf = utf8.AppendRune(a.buf, '\'')
					j += n
					continue
				}
			}
			break
		}
		i = j
		if t := a.term(a.buf); t != "" {
			dst = append(dst, t)
		}
	}
	return dst
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func apostrophe(r rune) bool { return r == '\'' || r == '’' || r == '＇' }

// term is the stem of one lower-case word ("" for a stop word), a
// possessive 's stripped first.
func (a *Analyzer) term(word []byte) string {
	if t, ok := a.stems[string(word)]; ok {
		return t
	}
	key := string(word)
	w := strings.TrimSuffix(key, "'s")
	t := ""
	if !a.stop[w] && w != "" {
		t = porterstemmer.StemString(w)
	}
	if len(a.stems) < 1<<20 {
		a.stems[key] = t
	}
	return t
}

// Index is a compact in-memory BM25 index of passages: postings of
// (passage, weight) by term, the weight the BM25 term-frequency factor.
// It is safe for concurrent use by several Scorers.
type Index struct {
	ids    []string
	pos    map[string]int32
	terms  map[string]int32
	idf    []float64
	start  []int32 // postings of term t: [start[t], start[t+1])
	docs   []int32
	weight []float32
}

// NewIndex indexes the passages, on every core.
func NewIndex(docs []Doc) *Index {
	type posting struct {
		term string
		tf   int32
	}
	per := make([][]posting, len(docs))
	lengths := make([]int32, len(docs))
	workers := max(1, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			a := NewAnalyzer()
			var terms []string
			counts := map[string]int32{}
			for i := w; i < len(docs); i += workers {
				terms = a.Terms(terms[:0], docs[i].Text)
				lengths[i] = int32(len(terms))
				clear(counts)
				ps := make([]posting, 0, len(terms))
				for _, t := range terms {
					if counts[t] == 0 {
						ps = append(ps, posting{term: t})
					}
					counts[t]++
				}
				for k := range ps {
					ps[k].tf = counts[ps[k].term]
				}
				per[i] = ps
			}
		})
	}
	wg.Wait()
	idx := &Index{ids: make([]string, len(docs)), pos: make(map[string]int32, len(docs)), terms: map[string]int32{}}
	var df []int32
	for i, d := range docs {
		idx.ids[i] = d.ID
		idx.pos[d.ID] = int32(i)
		for _, p := range per[i] {
			t, ok := idx.terms[p.term]
			if !ok {
				t = int32(len(df))
				idx.terms[p.term] = t
				df = append(df, 0)
			}
			df[t]++
		}
	}
	avg := math.Ceil(float64(len(df)) / float64(max(1, len(docs))))
	n := float64(len(docs))
	idx.idf = make([]float64, len(df))
	idx.start = make([]int32, len(df)+1)
	for t, f := range df {
		idx.idf[t] = math.Log(1 + (n-float64(f)+0.5)/(float64(f)+0.5))
		idx.start[t+1] = idx.start[t] + f
	}
	idx.docs = make([]int32, idx.start[len(df)])
	idx.weight = make([]float32, len(idx.docs))
	fill := append([]int32(nil), idx.start[:len(df)]...)
	for i := range docs {
		norm := bm25K1 * (1 - bm25B + bm25B*float64(lengths[i])/cmp.Or(avg, 1))
		for _, p := range per[i] {
			t := idx.terms[p.term]
			tf := math.Sqrt(float64(p.tf))
			idx.docs[fill[t]] = int32(i)
			idx.weight[fill[t]] = float32(tf * bm25K1 / (tf + norm))
			fill[t]++
		}
		per[i] = nil
	}
	return idx
}

// Len is the number of passages indexed.
func (idx *Index) Len() int { return len(idx.ids) }

// Has reports whether item is indexed.
func (idx *Index) Has(item string) bool { _, ok := idx.pos[item]; return ok }

// A Scorer scores queries against an Index, one at a time; each goroutine
// needs its own.
type Scorer struct {
	idx     *Index
	an      *Analyzer
	acc     []float64 // sum over the query's matched clauses of idf² times the weight
	matched []int32   // clauses matched
	touched []int32
	terms   []string
	norm    float64 // bleve's query norm over the clauses' count
}

// Scorer returns a Scorer of the index.
func (idx *Index) Scorer() *Scorer {
	return &Scorer{idx: idx, an: NewAnalyzer(), acc: make([]float64, len(idx.ids)), matched: make([]int32, len(idx.ids))}
}

// Score scores every passage for the query text as bleve's match query
// does: one clause a query term, repeats kept; a passage's score is the
// sum over the clauses it matches of queryWeight · BM25, queryWeight =
// idf / sqrt(sum of every clause's idf²), times the share of clauses it
// matches; rounded to 6 decimals as the baseline's run is. Rank and Top
// read the scores until the next call.
func (s *Scorer) Score(text string) {
	for _, d := range s.touched {
		s.acc[d], s.matched[d] = 0, 0
	}
	s.touched = s.touched[:0]
	s.terms = s.an.Terms(s.terms[:0], text)
	idx := s.idx
	n := float64(len(idx.ids))
	squares := 0.0
	for _, w := range s.terms {
		t, ok := idx.terms[w]
		if !ok {
			idf := math.Log(1 + (n+0.5)/0.5)
			squares += idf * idf
			continue
		}
		idf := float64(idx.idf[t])
		squares += idf * idf
		for p := idx.start[t]; p < idx.start[t+1]; p++ {
			d := idx.docs[p]
			if s.matched[d] == 0 {
				s.touched = append(s.touched, d)
			}
			s.acc[d] += idf * idf * float64(idx.weight[p])
			s.matched[d]++
		}
	}
	if len(s.terms) > 0 {
		s.norm = 1 / math.Sqrt(squares) / float64(len(s.terms))
	}
	for _, d := range s.touched {
		s.acc[d] = math.Round(s.acc[d]*s.norm*float64(s.matched[d])*1e6) / 1e6
	}
}

// Rank is item's rank under the last query scored, ties broken by item id
// descending as the baseline's run is read; 0 when the query matched
// nothing of it or it is not indexed.
func (s *Scorer) Rank(item string) int {
	d, ok := s.idx.pos[item]
	if !ok || s.matched[d] == 0 {
		return 0
	}
	v, id, rank := s.acc[d], s.idx.ids[d], 1
	for _, o := range s.touched {
		if w := s.acc[o]; w > v || w == v && s.idx.ids[o] > id {
			rank++
		}
	}
	return rank
}

// Top is the passage ranked first under the last query scored; "" when
// it matched nothing.
func (s *Scorer) Top() string {
	best := int32(-1)
	for _, o := range s.touched {
		if best < 0 || s.acc[o] > s.acc[best] || s.acc[o] == s.acc[best] && s.idx.ids[o] > s.idx.ids[best] {
			best = o
		}
	}
	if best < 0 {
		return ""
	}
	return s.idx.ids[best]
}
