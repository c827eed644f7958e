package treceval

import (
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"slices"

	"github.com/ragstat/ragstat/trecfile"
)

// Relevance values of retrieved documents that are not plain grades.
const (
	relNonPool   = -1 // not in the qrels at all
	relUnjudged  = -2 // in the qrels with a negative grade: pooled but not judged
	bogusDocno   = "ceci_nest_pas_un_docno"
	maxGradeSize = 1 << 24 // grades above this would need absurd per-level tables
)

// judgments holds the qrels of one query.
type judgments struct {
	qid    string
	arena  string   // every docno of the query, concatenated
	offs   []uint32 // docno i is arena[offs[i]:offs[i+1]]
	grades []int32
	table  []uint32 // open addressing: judgment index + 1, 0 for empty
	seed   maphash.Seed
	dup    string // smallest docno judged twice, "" if none
	maxRel int    // largest grade (may be negative)
	levels []int  // levels[g]: number of judgments with grade g >= 0

	// trec_eval keeps the per-grade counts in one buffer reused from query
	// to query, and some measures read past the current query's grades (or,
	// for a query whose grades are all negative, read the previous query's).
	// view is that buffer as this query sees it, numLevels the grade count
	// trec_eval then uses, and broken why it cannot evaluate the query.
	view      []int
	numLevels int
	broken    string
}

func (j *judgments) doc(i int) string { return j.arena[j.offs[i]:j.offs[i+1]] }

// find returns the grade of doc and whether it is judged.
func (j *judgments) find(doc string, h uint64) (int32, bool) {
	mask := uint64(len(j.table) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		k := j.table[i]
		if k == 0 {
			return 0, false
		}
		if j.doc(int(k-1)) == doc {
			return j.grades[k-1], true
		}
	}
}

// qrels is every query's judgments, in qid order.
type qrels struct {
	queries []*judgments
	index   map[string]int // position of each query in queries
	seed    maphash.Seed
}

// builder collects the lines of one query before indexing.
type builder struct {
	arena  []byte
	offs   []uint32
	grades []int32
}

// readQrels reads a qrels file with trec_eval's rules.
func readQrels(r io.Reader, name string) (*qrels, error) {
	builders := map[string]*builder{}
	err := trecfile.ReadQrels(r, trecfile.Options{Name: name, Lenient: true}, func(l trecfile.QrelsLine) error {
		b := builders[l.Query]
		if b == nil {
			b = &builder{}
			builders[l.Query] = b
		}
		if l.Grade > maxGradeSize || l.Grade < -maxGradeSize {
			return &trecfile.Error{File: name, Line: l.Line, Query: l.Query, Item: l.Doc,
				Msg: fmt.Sprintf("grade %d is out of range; grades are small integers", l.Grade)}
		}
		b.offs = append(b.offs, uint32(len(b.arena)))
		b.arena = append(b.arena, l.Doc...)
		b.grades = append(b.grades, int32(l.Grade))
		return nil
	})
	if err != nil {
		return nil, err
	}
	q := &qrels{index: make(map[string]int, len(builders)), seed: maphash.MakeSeed()}
	for qid, b := range builders {
		q.queries = append(q.queries, b.index(qid, q.seed))
		delete(builders, qid)
	}
	slices.SortFunc(q.queries, func(a, b *judgments) int { return cmpString(a.qid, b.qid) })
	for i, j := range q.queries {
		q.index[j.qid] = i
	}
	simulateLevelBuffer(q.queries)
	return q, nil
}

// simulateLevelBuffer replays, in evaluation order, how trec_eval fills its
// shared per-grade count buffer, and gives each query its view of it.
func simulateLevelBuffer(queries []*judgments) {
	var buf []int
	numLevels := 0
	for _, j := range queries {
		need := j.maxRel + 1
		switch {
		case need > len(buf):
			buf = make([]int, len(buf)+need)
		case need <= 0 && len(buf) == 0:
			j.broken = "every judgment of the query has a negative grade, and it is the first query evaluated"
		case need < 0:
			j.broken = "every judgment of the query has a grade below -1"
		}
		if need > 0 {
			copy(buf, j.levels)
			numLevels = need
		}
		j.view = slices.Clone(buf)
		j.numLevels = numLevels
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// index turns the collected lines into a judgments table.
func (b *builder) index(qid string, seed maphash.Seed) *judgments {
	n := len(b.grades)
	j := &judgments{qid: qid, arena: string(b.arena), offs: append(b.offs, uint32(len(b.arena))),
		grades: b.grades, seed: seed, maxRel: math.MinInt}
	size := 4
	for size < 2*n {
		size *= 2
	}
	j.table = make([]uint32, size)
	for i := range n {
		j.insert(i)
		j.maxRel = max(j.maxRel, int(b.grades[i]))
	}
	if j.maxRel >= 0 {
		j.levels = make([]int, j.maxRel+1)
		for _, g := range b.grades {
			if g >= 0 {
				j.levels[g]++
			}
		}
	}
	return j
}

// insert adds judgment i, noting a docno judged twice.
func (j *judgments) insert(i int) {
	doc := j.doc(i)
	mask := uint64(len(j.table) - 1)
	for k := maphash.String(j.seed, doc) & mask; ; k = (k + 1) & mask {
		e := j.table[k]
		if e == 0 {
			j.table[k] = uint32(i + 1)
			return
		}
		if j.doc(int(e-1)) == doc {
			if j.dup == "" || doc < j.dup {
				j.dup = doc
			}
			return
		}
	}
}
