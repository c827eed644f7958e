package treceval

import (
	"fmt"
	"math"

	"github.com/ragstat/ragstat/internal/trecmath"
)

// Measures over the ranked relevance list: precision, recall and their
// relatives at cutoffs, average precision, reciprocal rank, set measures.

const (
	defaultCutoffs = "5,10,15,20,30,100,200,500,1000"
	recallPoints   = "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0"
	minGeoMean     = 0.00001 // values below this are raised to it before a geometric mean
)

func init() {
	register(
		&measure{name: "map", calc: calcMAP,
			doc: "Mean average precision: precision after each relevant document retrieved, summed and divided by the number of relevant documents."},
		&measure{name: "gm_map", value: geoMeanValue, calc: calcGMMAP,
			doc: "Average precision averaged with a geometric mean (values floored at 0.00001); summary only."},
		&measure{name: "Rprec", calc: calcRprec,
			doc: "Precision after R documents, R the number of relevant documents."},
		&measure{name: "recip_rank", calc: calcRecipRank,
			doc: "Reciprocal of the rank of the first relevant document (0 if none). Parameters are ignored; use -M k for RR@k."},
		&measure{name: "iprec_at_recall", params: doubleCutoffs, defaults: recallPoints, calc: calcIprec,
			doc: "Interpolated precision at recall levels: the highest precision at any recall at or above the level."},
		&measure{name: "P", params: longCutoffs, defaults: defaultCutoffs, calc: calcAtCutoffs(relevantIn, precisionAt),
			doc: "Precision at cutoffs: relevant documents in the top k, divided by k."},
		&measure{name: "relstring", params: doubleParams, defaults: "10", value: stringValue, calc: calcRelstring,
			doc: "Relevance of the top documents as a string: a grade 0-9, '>' above 9, '-' not judged, '.' pooled but unjudged; per query only."},
		&measure{name: "recall", params: longCutoffs, defaults: defaultCutoffs, calc: calcAtCutoffs(relevantIn, recallAt),
			doc: "Recall at cutoffs: relevant documents in the top k, divided by the number of relevant documents."},
		&measure{name: "Rprec_mult", params: doubleCutoffs, defaults: "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0", calc: calcRprecMult,
			doc: "Precision after x*R documents, for multipliers x."},
		&measure{name: "utility", params: doubleParams, defaults: "1,-1,0,0", calc: calcUtility,
			doc: "Set utility a*relret + b*nonrelret + c*relnotret + d*nonrelnotret, parameters a,b,c,d."},
		&measure{name: "11pt_avg", params: doubleParams, defaults: recallPoints, calc: calc11pt,
			doc: "Mean interpolated precision at the recall levels given (default the 11 points 0.0 to 1.0)."},
		&measure{name: "binG", calc: calcBinG,
			doc: "Binary G: mean over relevant documents of 1/log2(2 + non-relevant documents above it)."},
		&measure{name: "map_cut", params: longCutoffs, defaults: defaultCutoffs, calc: calcAtCutoffs(relevantIn, mapAt),
			doc: "Average precision over the top k documents only."},
		&measure{name: "relative_P", params: longCutoffs, defaults: defaultCutoffs, calc: calcAtCutoffs(relevantIn, relativePAt),
			doc: "Relevant documents in the top k, divided by the smaller of k and R."},
		&measure{name: "success", params: longCutoffs, defaults: "1,5,10", calc: calcAtCutoffs(relevantIn, successAt),
			doc: "1 if a relevant document is in the top k, else 0."},
		&measure{name: "set_P", calc: calcSet(setP), doc: "Precision of the whole retrieved set."},
		&measure{name: "set_relative_P", calc: calcSet(setRelativeP), doc: "Relevant retrieved divided by the smaller of retrieved and R."},
		&measure{name: "set_recall", calc: calcSet(setRecall), doc: "Recall of the whole retrieved set."},
		&measure{name: "set_map", calc: calcSet(setMAP), doc: "Set precision times set recall."},
		&measure{name: "set_F", params: doubleParams, defaults: "1.0", calc: calcSetF,
			doc: "F measure of the retrieved set, (x+1)PR/(xP+R) with x the parameter (default 1: the harmonic mean of P and R)."},
		&measure{name: "yaap", calc: calcYAAP,
			doc: "Yet another average precision: log((1+sum)/(1+R-sum)), sum the summed precisions at relevant documents."},
		&measure{name: "unj", params: longCutoffs, defaults: "5,10,20", calc: calcAtCutoffs(unjudgedIn, precisionAt),
			doc: "Fraction of the top k documents that are not judged."},
	)
}

// relevant reports whether a relevance value counts as relevant.
func (q *queryEval) relevant(r int) bool { return r >= q.s.relLevel }

// prefixes computes, once per query, the number of relevant documents in
// the first i ranks and the precision summed at each of them (the running
// sum of average precision, accumulated in trec_eval's order).
func (q *queryEval) prefixes() {
	if q.relAt != nil {
		return
	}
	n := q.rr.numRet
	q.relAt, q.apAt = q.sc.prefixes(n + 1)
	found, sum := 0, 0.0
	for i, r := range q.rr.rel {
		if q.relevant(r) {
			found++
			sum += float64(found) / float64(i+1)
		}
		q.relAt[i+1], q.apAt[i+1] = int32(found), sum
	}
}

// apSum returns the summed precision at each relevant document and how many
// relevant documents were retrieved, over the first n ranks.
func (q *queryEval) apSum(n int) (float64, int) {
	q.prefixes()
	return q.apAt[n], int(q.relAt[n])
}

// relevantIn counts the relevant documents in the first n ranks.
func (q *queryEval) relevantIn(n int) int {
	q.prefixes()
	return int(q.relAt[n])
}

// pooled returns, once per query, the ranks of the documents that are in
// the qrels (judged, or pooled but unjudged).
func (q *queryEval) pooled() []int32 {
	if q.pool == nil {
		q.pool = q.sc.pooled[:0]
		for i, r := range q.rr.rel {
			if r != relNonPool {
				q.pool = append(q.pool, int32(i))
			}
		}
		q.sc.pooled = q.pool
	}
	return q.pool
}

// unjudgedIn counts the unjudged documents in the first n ranks.
func (q *queryEval) unjudgedIn(n int) int {
	found := 0
	for _, r := range q.rr.rel[:n] {
		if r == relNonPool || r == relUnjudged {
			found++
		}
	}
	return found
}

func calcMAP(q *queryEval, in *instance) error {
	if sum, found := q.apSum(q.rr.numRet); found > 0 {
		q.vals[in.off] = sum / float64(q.rr.numRel)
	}
	return nil
}

func calcGMMAP(q *queryEval, in *instance) error {
	sum, found := q.apSum(q.rr.numRet)
	if found > 0 {
		sum /= float64(q.rr.numRel)
	}
	q.vals[in.off] = math.Log(cmax(sum, minGeoMean))
	return nil
}

func calcRprec(q *queryEval, in *instance) error {
	n := min(q.rr.numRet, q.rr.numRel)
	if n == 0 {
		return nil
	}
	q.vals[in.off] = float64(q.relevantIn(n)) / float64(q.rr.numRel)
	return nil
}

func calcRecipRank(q *queryEval, in *instance) error {
	for i, r := range q.rr.rel {
		if q.relevant(r) {
			q.vals[in.off] = 1.0 / float64(i+1)
			break
		}
	}
	return nil
}

// calcAtCutoffs evaluates f at each cutoff k with count(n), n the smaller
// of k and the number of documents retrieved.
func calcAtCutoffs(count func(q *queryEval, n int) int, f func(q *queryEval, k int64, found int) float64) func(*queryEval, *instance) error {
	return func(q *queryEval, in *instance) error {
		for c, k := range in.cuts {
			n := int(min(k, int64(q.rr.numRet)))
			q.vals[in.off+c] = f(q, k, count(q, n))
		}
		return nil
	}
}

func relevantIn(q *queryEval, n int) int { return q.relevantIn(n) }
func unjudgedIn(q *queryEval, n int) int { return q.unjudgedIn(n) }

func precisionAt(_ *queryEval, k int64, found int) float64 { return float64(found) / float64(k) }
func successAt(_ *queryEval, _ int64, found int) float64 {
	if found > 0 {
		return 1
	}
	return 0
}

func recallAt(q *queryEval, _ int64, found int) float64 {
	if q.rr.numRel == 0 {
		return 0
	}
	return float64(found) / float64(q.rr.numRel)
}

func relativePAt(q *queryEval, k int64, found int) float64 {
	if q.rr.numRel == 0 {
		return 0
	}
	return float64(found) / float64(min(k, int64(q.rr.numRel)))
}

func mapAt(q *queryEval, k int64, _ int) float64 {
	if q.rr.numRel == 0 {
		return 0
	}
	sum, _ := q.apSum(int(min(k, int64(q.rr.numRet))))
	return sum / float64(q.rr.numRel)
}

// interpolated walks the ranking from the bottom, keeping the highest
// precision seen, and calls at(cut index, precision) when the number of
// relevant documents reaches each cut; cuts are ascending document counts.
// Between two relevant documents precision only grows towards the upper
// one, so the walk visits the relevant documents only and computes the
// same values trec_eval's rank-by-rank walk does.
func (q *queryEval) interpolated(cuts []int64, at func(c int, p float64)) {
	rr := &q.rr
	cur := len(cuts) - 1
	for cur >= 0 && cuts[cur] > int64(rr.numRelRet) {
		cur--
	}
	best := cdiv(float64(rr.numRelRet), float64(rr.numRet))
	found := rr.numRelRet
	relevant := q.relevantRanks()
	for k := len(relevant) - 1; k >= 0 && found > 0; k-- {
		i := int(relevant[k]) + 1
		if p := float64(found) / float64(i); best < p {
			best = p
		}
		for cur >= 0 && int64(found) == cuts[cur] {
			at(cur, best)
			cur--
		}
		found--
	}
	for ; cur >= 0; cur-- {
		at(cur, best)
	}
}

// relevantRanks returns, once per query, the ranks of the relevant
// documents.
func (q *queryEval) relevantRanks() []int32 {
	if q.rel == nil {
		q.rel = q.sc.relevant[:0]
		for i, r := range q.rr.rel {
			if q.relevant(r) {
				q.rel = append(q.rel, int32(i))
			}
		}
		q.sc.relevant = q.rel
	}
	return q.rel
}

// recallCuts turns recall levels into numbers of relevant documents
// (rounded to nearest, as trec_eval 10 does).
func (q *queryEval) recallCuts(levels []float64) []int64 {
	cuts := make([]int64, len(levels))
	for i, x := range levels {
		cuts[i] = int64(math.Round(x * float64(q.rr.numRel)))
	}
	return cuts
}

func calcIprec(q *queryEval, in *instance) error {
	q.interpolated(q.recallCuts(in.fcuts), func(c int, p float64) { q.vals[in.off+c] = p })
	return nil
}

func calc11pt(q *queryEval, in *instance) error {
	sum := 0.0
	q.interpolated(q.recallCuts(in.nums), func(_ int, p float64) { sum += p })
	q.vals[in.off] = sum / float64(len(in.nums))
	return nil
}

// calcRprecMult computes precision after x*R documents. trec_eval walks up
// from the bottom with a count that starts at num_rel_ret and drops at each
// relevant document; at a cutoff c it reaches it records count/c, and it
// stops when the count reaches 0. The count at c follows from the prefix
// counts, so each cutoff is computed directly.
func calcRprecMult(q *queryEval, in *instance) error {
	rr := &q.rr
	total := q.relevantIn(rr.numRet)
	for k, x := range in.fcuts {
		c := int64(float64(x*float64(rr.numRel)) + 0.9)
		if c > int64(rr.numRet) {
			q.vals[in.off+k] = float64(rr.numRelRet) / float64(c)
		} else if found := rr.numRelRet - total + q.relevantIn(int(max(c, 0))); c > 0 && found > 0 {
			q.vals[in.off+k] = float64(found) / float64(c)
		}
	}
	return nil
}

func calcUtility(q *queryEval, in *instance) error {
	if len(in.nums) != 4 {
		return fmt.Errorf("utility needs 4 parameters (gain per relevant retrieved, per non-relevant retrieved, per relevant missed, per non-relevant missed), got %d", len(in.nums))
	}
	rr, p := &q.rr, in.nums
	q.vals[in.off] = float64(p[0]*float64(rr.numRelRet)) +
		float64(p[1]*float64(rr.numRet-rr.numRelRet)) +
		float64(p[2]*float64(rr.numRel-rr.numRelRet)) +
		float64(p[3]*float64(q.s.numDocs+int64(rr.numRelRet-rr.numRet-rr.numRel)))
	return nil
}

func calcBinG(q *queryEval, in *instance) error {
	sum, found := 0.0, 0
	for _, i := range q.relevantRanks() {
		found++
		sum += 1.0 / log2(3+int(i)-found)
	}
	if found > 0 {
		q.vals[in.off] = sum / float64(q.rr.numRel)
	}
	return nil
}

func calcYAAP(q *queryEval, in *instance) error {
	sum, _ := q.apSum(q.rr.numRet)
	q.vals[in.off] = math.Log((1.0 + sum) / (1.0 + float64(q.rr.numRel) - sum))
	return nil
}

func calcRelstring(q *queryEval, in *instance) error {
	n := max(min(int(int64(in.nums[0])), q.rr.numRet), 0)
	b := make([]byte, n)
	for i, r := range q.rr.rel[:n] {
		switch {
		case r > 9:
			b[i] = '>'
		case r >= 0:
			b[i] = byte('0' + r)
		case r == relNonPool:
			b[i] = '-'
		default:
			b[i] = '.'
		}
	}
	q.relstr = string(b)
	return nil
}

// calcSet stores a measure of the unranked retrieved set.
func calcSet(f func(rr *resRels) (float64, bool)) func(*queryEval, *instance) error {
	return func(q *queryEval, in *instance) error {
		if v, ok := f(&q.rr); ok {
			q.vals[in.off] = v
		}
		return nil
	}
}

func setP(rr *resRels) (float64, bool) {
	return float64(rr.numRelRet) / float64(rr.numRet), rr.numRet > 0
}

func setRelativeP(rr *resRels) (float64, bool) {
	return float64(rr.numRelRet) / float64(min(rr.numRet, rr.numRel)), rr.numRet > 0 && rr.numRel > 0
}

func setRecall(rr *resRels) (float64, bool) {
	return float64(rr.numRelRet) / float64(rr.numRel), rr.numRel > 0
}

func setMAP(rr *resRels) (float64, bool) {
	rel := float64(rr.numRelRet)
	return float64(rel*rel) / float64(float64(rr.numRet)*float64(rr.numRel)), rr.numRet > 0 && rr.numRel > 0
}

func calcSetF(q *queryEval, in *instance) error {
	rr := &q.rr
	q.vals[in.off] = trecmath.SetF(rr.numRelRet, rr.numRet, rr.numRel, in.nums[0])
	return nil
}
