package treceval

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/internal/hashindex"
	"github.com/ragstat/ragstat/internal/trecfile"
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
	pool   []int32   // ranks of the documents in the qrels
	rel    []int32   // ranks of the relevant documents
	sc     *scratch
}

// rankedDocs is the documents of a query by rank: the keys of
// scratch.ranked.
type rankedDocs struct {
	docs  []trecfile.RunDoc
	order []int32
}

// Key returns the docno at rank r.
func (k *rankedDocs) Key(r int) string { return k.docs[k.order[r]].Doc }

// scratch is reusable per-goroutine working space.
type scratch struct {
	order    []int32
	ranked   hashindex.Index // the kept documents by rank
	keys     rankedDocs      // ranked's keys
	rel      []int
	relAt    []int32
	apAt     []float64
	pooled   []int32
	relevant []int32
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
func (s *settings) rank(docs []trecfile.RunDoc, j *judgments, sc *scratch) (resRels, error) {
	order := sc.sortOrder(docs)
	n := len(order)
	if int64(n) > s.maxDocs {
		n = int(s.maxDocs)
	}
	rr := resRels{levels: j.view, numRelLevels: j.numLevels}
	sc.ranked.Reset(n)
	sc.keys = rankedDocs{docs: docs, order: order}
	keys := hashindex.Keys(&sc.keys)
	for r, i := range order[:n] {
		doc := docs[i].Doc
		h := hashindex.Hash(doc)
		if sc.ranked.TryAdd(h, r) {
			continue
		}
		if e := sc.ranked.AddHashed(keys, r, h); e != r {
			return rr, &dupError{doc: doc, qid: j.qid, lines: [2]int{docs[order[e]].Line, docs[i].Line}}
		}
	}
	rr.rel = sc.relevance(n)
	for k, g := range j.grades {
		if r := sc.ranked.Find(keys, j.doc(k)); r >= 0 {
			rr.rel[r] = int(g)
			if g < 0 {
				rr.rel[r] = relUnjudged
			}
		}
	}
	s.count(&rr, j)
	return rr, nil
}

// relevance returns n relevance values, all relNonPool.
func (sc *scratch) relevance(n int) []int {
	if cap(sc.rel) < n {
		sc.rel = make([]int, n)
	}
	rel := sc.rel[:n]
	for i := range rel {
		rel[i] = relNonPool
	}
	return rel
}

// dupError is a docno retrieved twice for one query.
type dupError struct {
	doc, qid string
	lines    [2]int
}

func (e *dupError) Error() string {
	first, second := min(e.lines[0], e.lines[1]), max(e.lines[0], e.lines[1])
	return fmt.Sprintf("query %q retrieves document %q twice (lines %d and %d); each docno may appear once per query: remove one line",
		e.qid, e.doc, first, second)
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
		// before, without a call for the pairs whose scores decrease
		if i > 0 && !(docs[i].Score < docs[i-1].Score) && before(&docs[i], &docs[i-1]) {
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
