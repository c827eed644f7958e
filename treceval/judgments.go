package treceval

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/hashindex"
	"github.com/ragstat/ragstat/internal/trecfile"
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

// Key is doc, for a hashindex.Index of the docnos.
func (j *judgments) Key(i int) string { return j.doc(i) }

// qrels is every query's judgments, in qid order.
type qrels struct {
	queries []*judgments
	index   map[string]int // position of each query in queries
}

// builder collects the lines of one query before indexing.
type builder struct {
	arena  []byte
	offs   []uint32
	grades []int32
}

// readQrels reads a qrels file with trec_eval's rules. When only is not
// empty, it is the one query that will be evaluated (-D).
func readQrels(r io.Reader, name, only string) (*qrels, error) {
	builders := map[string]*builder{}
	var b *builder
	last := ""
	err := trecfile.ReadQrelsGroups(r, trecfile.Options{Name: name, Lenient: true}, func(g *trecfile.QrelsGroup) error {
		if b == nil || g.Query != last {
			if b = builders[g.Query]; b == nil {
				b = &builder{}
				builders[g.Query] = b
			}
			last = g.Query
		}
		for i, grade := range g.Grades {
			if grade > maxGradeSize || grade < -maxGradeSize {
				return &diag.Error{File: name, Line: g.Lines[i], Query: g.Query, Item: strings.Clone(g.Doc(i)),
					Msg: fmt.Sprintf("grade %d is out of range; grades are small integers", grade)}
			}
		}
		base := uint32(len(b.arena))
		b.arena = append(b.arena, g.Docs...)
		n := len(g.Ends)
		b.offs, b.grades = slices.Grow(b.offs, n), slices.Grow(b.grades, n)
		for i, grade := range g.Grades {
			start := uint32(0)
			if i > 0 {
				start = g.Ends[i-1]
			}
			b.offs = append(b.offs, base+start)
			b.grades = append(b.grades, int32(grade))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// The queries in trec_eval's order, indexed in two halves on two
	// goroutines: a million judgments are work.
	ids := slices.Sorted(maps.Keys(builders))
	q := &qrels{index: make(map[string]int, len(ids)), queries: make([]*judgments, len(ids))}
	index := func(from, to int) {
		var set hashindex.Index
		for i := from; i < to; i++ {
			q.queries[i] = builders[ids[i]].index(ids[i], &set)
		}
	}
	half := len(ids) / 2
	var wg sync.WaitGroup
	wg.Go(func() { index(half, len(ids)) })
	index(0, half)
	wg.Wait()
	for i, j := range q.queries {
		q.index[j.qid] = i
	}
	evaluated := q.queries
	if i, ok := q.index[only]; ok {
		evaluated = q.queries[i : i+1]
	}
	simulateLevelBuffer(evaluated)
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

// index turns the collected lines into a query's judgments, noting a docno
// judged twice; set is scratch space.
func (b *builder) index(qid string, set *hashindex.Index) *judgments {
	n := len(b.grades)
	// The arena is not written again: the judgments share it.
	j := &judgments{qid: qid, arena: unsafe.String(unsafe.SliceData(b.arena), len(b.arena)), offs: append(b.offs, uint32(len(b.arena))),
		grades: b.grades, maxRel: math.MinInt}
	set.Reset(n)
	for i, g := range b.grades {
		doc := j.doc(i)
		h := hashindex.Hash(doc)
		if !set.TryAdd(h, i) && set.AddHashed(j, i, h) != i && (j.dup == "" || doc < j.dup) {
			j.dup = doc
		}
		j.maxRel = max(j.maxRel, int(g))
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
