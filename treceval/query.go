package treceval

import (
	"fmt"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/trecfile"
)

// settings are the command-line options that change how a query is scored.
type settings struct {
	relLevel   int   // -l: smallest grade that counts as relevant
	maxDocs    int64 // -M: documents per query kept after ranking
	judgedOnly bool  // -J: drop unjudged documents before scoring
	numDocs    int64 // -N: documents in the collection (utility)
}

// resRels is trec_eval's view of one ranked query: the relevance of each
// retrieved document in rank order and the counts the measures share.
type resRels struct {
	rel          []int // relevance per rank: a grade, relNonPool or relUnjudged
	numRet       int
	numRel       int // judgments with grade >= relLevel
	numRelRet    int
	numNonPool   int
	numUnjPool   int
	levels       []int // the per-grade count buffer as trec_eval sees it
	numRelLevels int
}

// queryEval is the evaluation of one query: its ranking and the values of
// every requested measure.
type queryEval struct {
	s      *settings
	j      *judgments
	rr     resRels
	vals   []float64
	relstr string
	relAt  []int32   // relAt[i]: relevant documents in the first i ranks
	apAt   []float64 // apAt[i]: precision summed at the relevant documents in the first i ranks
	sc     *scratch
}

// scratch is reusable per-goroutine working space.
type scratch struct {
	order []int32
	seen  []uint64 // hashes of kept docs, for the duplicate check
	slot  []int32
	rel   []int
	relAt []int32
	apAt  []float64
}

// prefixes returns room for n prefix counts and sums.
func (sc *scratch) prefixes(n int) ([]int32, []float64) {
	if cap(sc.relAt) < n {
		sc.relAt, sc.apAt = make([]int32, n), make([]float64, n)
	}
	return sc.relAt[:n], sc.apAt[:n]
}

// rank sorts the query's documents as trec_eval does (score descending,
// then docno descending in byte order), keeps the first -M, and works out
// each one's relevance. It fails on a docno retrieved twice.
func (s *settings) rank(docs []trecfile.RunDoc, j *judgments, seed maphash.Seed, sc *scratch) (resRels, error) {
	order := sc.sortOrder(docs)
	n := len(order)
	if int64(n) > s.maxDocs {
		n = int(max(s.maxDocs, 0))
	}
	sc.rel = sc.rel[:0]
	sc.resetSeen(n)
	rr := resRels{levels: j.view, numRelLevels: j.numLevels}
	for _, i := range order[:n] {
		doc := docs[i].Doc
		h := maphash.String(seed, doc)
		if sc.seenBefore(h, docs, order, i, doc) {
			return rr, fmt.Errorf("document %q is retrieved twice for query %q; each docno may appear once per query", doc, j.qid)
		}
		rel := relNonPool
		if g, ok := j.find(doc, h); ok {
			rel = int(g)
			if g < 0 {
				rel = relUnjudged
			}
		}
		sc.rel = append(sc.rel, rel)
	}
	rr.rel = sc.rel
	s.count(&rr, j)
	return rr, nil
}

// count fills the shared counts, dropping unjudged documents for -J.
func (s *settings) count(rr *resRels, j *judgments) {
	if s.judgedOnly {
		kept := rr.rel[:0]
		for _, r := range rr.rel {
			if r >= 0 {
				kept = append(kept, r)
			}
		}
		rr.rel = kept
	}
	for _, r := range rr.rel {
		switch {
		case r == relNonPool:
			rr.numNonPool++
		case r == relUnjudged:
			rr.numUnjPool++
		case r >= s.relLevel:
			rr.numRelRet++
		}
	}
	rr.numRet = len(rr.rel)
	for g := max(s.relLevel, 0); g < len(j.levels); g++ {
		rr.numRel += j.levels[g]
	}
}

// sortOrder returns the indexes of docs in trec_eval's ranking order.
func (sc *scratch) sortOrder(docs []trecfile.RunDoc) []int32 {
	order := sc.order[:0]
	sorted := true
	for i := range docs {
		order = append(order, int32(i))
		if i > 0 && before(&docs[i], &docs[i-1]) {
			sorted = false
		}
	}
	if !sorted {
		slices.SortFunc(order, func(a, b int32) int {
			if before(&docs[a], &docs[b]) {
				return -1
			}
			if before(&docs[b], &docs[a]) {
				return 1
			}
			return 0
		})
	}
	sc.order = order
	return order
}

// before reports whether a ranks above b: higher score, or equal score and
// larger docno.
func before(a, b *trecfile.RunDoc) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return strings.Compare(a.Doc, b.Doc) > 0
}

// resetSeen prepares the duplicate check for n documents.
func (sc *scratch) resetSeen(n int) {
	size := 16
	for size < 2*n {
		size *= 2
	}
	if cap(sc.slot) < size {
		sc.slot = make([]int32, size)
		sc.seen = make([]uint64, size)
	}
	sc.slot = sc.slot[:size]
	sc.seen = sc.seen[:size]
	clear(sc.slot)
}

// seenBefore records doc i and reports whether the same docno was kept
// already.
func (sc *scratch) seenBefore(h uint64, docs []trecfile.RunDoc, order []int32, i int32, doc string) bool {
	mask := uint64(len(sc.slot) - 1)
	for k := h & mask; ; k = (k + 1) & mask {
		e := sc.slot[k]
		if e == 0 {
			sc.slot[k], sc.seen[k] = i+1, h
			return false
		}
		if sc.seen[k] == h && docs[e-1].Doc == doc {
			return true
		}
	}
}
