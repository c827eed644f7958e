package baseline

import (
	"cmp"
	"math"
	"runtime"
	"slices"
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
	docs   []int32 // ascending within a term's postings
	weight []float32
	// maxWeight is each term's largest weight.
	maxWeight []float32
	// fwd holds each passage's distinct terms: passage i's are
	// fwd[fwdStart[i]:fwdStart[i+1]].
	fwd, fwdStart []int32
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
	idx := &Index{ids: make([]string, len(docs)), pos: make(map[string]int32, len(docs)), terms: map[string]int32{},
		fwdStart: make([]int32, len(docs)+1)}
	var df, tfs []int32
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
			idx.fwd = append(idx.fwd, t)
			tfs = append(tfs, p.tf)
		}
		idx.fwdStart[i+1] = int32(len(idx.fwd))
		per[i] = nil
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
	idx.maxWeight = make([]float32, len(df))
	fill := append([]int32(nil), idx.start[:len(df)]...)
	for i := range docs {
		norm := bm25K1 * (1 - bm25B + bm25B*float64(lengths[i])/cmp.Or(avg, 1))
		for k := idx.fwdStart[i]; k < idx.fwdStart[i+1]; k++ {
			t := idx.fwd[k]
			tf := math.Sqrt(float64(tfs[k]))
			idx.docs[fill[t]] = int32(i)
			w := float32(tf * bm25K1 / (tf + norm))
			idx.weight[fill[t]] = w
			idx.maxWeight[t] = max(idx.maxWeight[t], w)
			fill[t]++
		}
	}
	return idx
}

// Len is the number of passages indexed.
func (idx *Index) Len() int { return len(idx.ids) }

// A Scorer ranks passages for queries against an Index, one query at a
// time; each goroutine needs its own.
type Scorer struct {
	idx     *Index
	an      *Analyzer
	acc     []float64 // the essential clauses' sum of idf² times the weight
	matched []int32   // the essential clauses matched
	touched []int32
	live    []int32
	text    string
	terms   []string
	clauses []clause
	// inItems[t] is stamp when term t is in the items Overlap was given.
	inItems  []uint32
	stamp    uint32
	distinct []string // the query's terms, sorted, each once
	sorted   []string // the query's terms, sorted
}

// clause is one distinct term of a query: how often the query holds it
// (bleve makes a clause of every occurrence) and the most it adds.
type clause struct {
	term  int32
	times float64
	bound float64 // times · idf² · the largest weight
}

// Scorer returns a Scorer of the index.
func (idx *Index) Scorer() *Scorer {
	return &Scorer{idx: idx, an: NewAnalyzer(), acc: make([]float64, len(idx.ids)), matched: make([]int32, len(idx.ids))}
}

// BestRank is the best rank of any of items when the query text ranks the
// passages as the baseline does: the score is bleve's match query's, one
// clause a query term, repeats kept, the sum over the clauses a passage
// matches of queryWeight · BM25, queryWeight = idf / sqrt(sum of every
// clause's idf²), times the share of clauses it matches, rounded to 6
// decimals, ties broken by item id descending as the baseline's run is
// read. 0 when the query matches none of items.
//
// Only the passages that can outscore the best of items are scored: the
// clauses whose largest possible sum stays below that score (MaxScore)
// bring no passage in, they only complete the score of passages the other
// clauses found.
func (s *Scorer) BestRank(text string, items []string) int {
	idx := s.idx
	s.analyze(text)
	if len(s.terms) == 0 {
		return 0
	}
	n := float64(len(idx.ids))
	squares := 0.0
	s.clauses = s.clauses[:0]
	s.sorted = append(s.sorted[:0], s.terms...)
	slices.Sort(s.sorted)
	for i := 0; i < len(s.sorted); {
		j := i + 1
		for j < len(s.sorted) && s.sorted[j] == s.sorted[i] {
			j++
		}
		times := float64(j - i)
		t, ok := idx.terms[s.sorted[i]]
		idf := math.Log(1 + (n+0.5)/0.5)
		if ok {
			idf = idx.idf[t]
			s.clauses = append(s.clauses, clause{term: t, times: times})
		}
		squares += times * idf * idf
		i = j
	}
	norm := 1 / math.Sqrt(squares) / float64(len(s.terms))
	best, bestID := 0.0, ""
	for _, it := range items {
		d, ok := idx.pos[it]
		if !ok {
			continue
		}
		if v, ok := s.score(d, s.clauses, norm); ok && (bestID == "" || v > best || v == best && it > bestID) {
			best, bestID = v, it
		}
	}
	if bestID == "" {
		return 0
	}
	for k := range s.clauses {
		c := &s.clauses[k]
		c.bound = c.times * idx.idf[c.term] * idx.idf[c.term] * float64(idx.maxWeight[c.term])
	}
	slices.SortFunc(s.clauses, func(a, b clause) int { return cmp.Compare(a.bound, b.bound) })
	// The first e clauses cannot lift a passage that matches no other
	// above best, even at their largest: leave them out of the search.
	e, times, sum := 0, 0.0, 0.0
	for e < len(s.clauses) {
		c := s.clauses[e]
		if norm*(times+c.times)*(sum+c.bound) >= best-2e-6 {
			break
		}
		times, sum = times+c.times, sum+c.bound
		e++
	}
	for _, d := range s.touched {
		s.acc[d], s.matched[d] = 0, 0
	}
	s.touched = s.touched[:0]
	for _, c := range s.clauses[e:] {
		f := c.times * idx.idf[c.term] * idx.idf[c.term]
		for p := idx.start[c.term]; p < idx.start[c.term+1]; p++ {
			d := idx.docs[p]
			if s.matched[d] == 0 {
				s.touched = append(s.touched, d)
			}
			s.acc[d] += f * float64(idx.weight[p])
			s.matched[d] += int32(c.times)
		}
	}
	// A candidate that cannot reach best even with every clause left out
	// at its largest is passed over. The others, in passage order, are
	// completed clause by clause, the largest first, by a galloping search
	// through the clause's postings; after each clause the candidates that
	// can no longer reach best are dropped.
	live := s.live[:0]
	for _, d := range s.touched {
		if norm*(float64(s.matched[d])+times)*(s.acc[d]+sum) >= best-2e-6 {
			live = append(live, d)
		}
	}
	slices.Sort(live)
	for k := e - 1; k >= 0 && len(live) > 0; k-- {
		c := s.clauses[k]
		times, sum = times-c.times, sum-c.bound
		f := c.times * idx.idf[c.term] * idx.idf[c.term]
		lo, hi := idx.start[c.term], idx.start[c.term+1]
		postings, at := idx.docs[lo:hi], 0
		kept := live[:0]
		for _, d := range live {
			at = gallop(postings, at, d)
			if at < len(postings) && postings[at] == d {
				s.acc[d] += f * float64(idx.weight[lo+int32(at)])
				s.matched[d] += int32(c.times)
			}
			if norm*(float64(s.matched[d])+times)*(s.acc[d]+sum) >= best-2e-6 {
				kept = append(kept, d)
			}
		}
		live = kept
	}
	s.live = live
	rank := 1
	for _, d := range live {
		if v := math.Round(s.acc[d]*norm*float64(s.matched[d])*1e6) / 1e6; v > best || v == best && idx.ids[d] > bestID {
			rank++
		}
	}
	return rank
}

// gallop returns the first position from at on whose passage is not
// below d, in ascending postings: steps doubling from at, then a binary
// search in the last step.
func gallop(postings []int32, at int, d int32) int {
	step, end := 1, at
	for end < len(postings) && postings[end] < d {
		at = end + 1
		end += step
		step *= 2
	}
	end = min(end, len(postings))
	i, _ := slices.BinarySearch(postings[at:end], d)
	return at + i
}

// analyze sets the terms of text, unless they are the last text's.
func (s *Scorer) analyze(text string) {
	if s.text != text || s.terms == nil {
		s.text, s.terms = text, s.an.Terms(s.terms[:0], text)
	}
}

// Overlap counts the distinct terms of the query text (Analysis), and how
// many of them occur in any of items that are indexed; indexed says
// whether any is.
func (s *Scorer) Overlap(text string, items []string) (terms, found int, indexed bool) {
	s.analyze(text)
	idx := s.idx
	if s.inItems == nil {
		s.inItems = make([]uint32, len(idx.idf))
	}
	if s.stamp++; s.stamp == 0 {
		clear(s.inItems)
		s.stamp = 1
	}
	for _, it := range items {
		d, ok := idx.pos[it]
		if !ok {
			continue
		}
		indexed = true
		for _, t := range idx.fwd[idx.fwdStart[d]:idx.fwdStart[d+1]] {
			s.inItems[t] = s.stamp
		}
	}
	s.distinct = append(s.distinct[:0], s.terms...)
	slices.Sort(s.distinct)
	s.distinct = slices.Compact(s.distinct)
	for _, w := range s.distinct {
		if t, ok := idx.terms[w]; ok && s.inItems[t] == s.stamp {
			found++
		}
	}
	return len(s.distinct), found, indexed
}

// score is passage d's rounded score from the clauses cs, found by binary
// search in their postings, and whether it matches any of them (a score
// may round to 0).
func (s *Scorer) score(d int32, cs []clause, norm float64) (v float64, matchedAny bool) {
	idx := s.idx
	sum, matched := 0.0, 0.0
	for _, c := range cs {
		lo, hi := idx.start[c.term], idx.start[c.term+1]
		if p, ok := slices.BinarySearch(idx.docs[lo:hi], d); ok {
			sum += c.times * idx.idf[c.term] * idx.idf[c.term] * float64(idx.weight[lo+int32(p)])
			matched += c.times
		}
	}
	return math.Round(sum*norm*matched*1e6) / 1e6, matched > 0
}
