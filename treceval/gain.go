package treceval

import (
	"strconv"
)

// Gain-based measures: nDCG and its relatives, G, rank-biased precision.
// A relevance grade's gain is the grade itself unless a name=value parameter
// gives it another (ndcg.1=1,2=3,3=7).

func init() {
	register(
		&measure{name: "ndcg", params: pairParams, calc: calcDCG(ndcgValue),
			doc: "Normalized discounted cumulative gain over the whole ranking: sum of gain/log2(rank+1), divided by the ideal ranking's sum over all judgments. Gains: ndcg.1=1,2=3 (default gain = grade)."},
		&measure{name: "dcg", params: pairParams, calc: calcDCG(func(dcg, _ float64) (float64, bool) { return dcg, true }),
			doc: "Discounted cumulative gain over the whole ranking (gains as ndcg)."},
		&measure{name: "ideal_dcg", params: pairParams, calc: calcDCG(func(_, ideal float64) (float64, bool) { return ideal, true }),
			doc: "Discounted cumulative gain of the ideal ranking (gains as ndcg)."},
		&measure{name: "ndcg_rel", params: pairParams, calc: calcNDCGRel,
			doc: "nDCG averaged over the ranks of relevant documents (gains as ndcg)."},
		&measure{name: "Rndcg", params: pairParams, calc: calcRndcg,
			doc: "nDCG averaged over the ranks where the ideal gain changes (gains as ndcg)."},
		&measure{name: "G", params: pairParams, calc: calcG,
			doc: "Gain with a cost model: each document's gain discounted by log2 of the cost spent (gains as ndcg)."},
		&measure{name: "ndcg_cut", params: longCutoffs, defaults: defaultCutoffs, calc: calcNDCGCut,
			doc: "nDCG at cutoffs with linear gain (gain = grade), ideal from all judgments of the query."},
		&measure{name: "rbp", params: pairParams, calc: calcRBP,
			doc: "Rank-biased precision (1-p) sum gain*p^(rank-1), gains scaled to [0,1]; p=0.9 unless rbp.p=x."},
		&measure{name: "rbp_resid", params: pairParams, calc: calcRBPResid,
			doc: "Residual of rank-biased precision: the most it could grow if unjudged documents were relevant."},
	)
}

// relGain is the gain of one relevance grade and how many judgments have it.
type relGain struct {
	level int
	gain  float64
	count int
}

// gains is the gain table of one query, sorted by increasing gain.
type gains []relGain

// gainTable answers trec_eval's get_gain (the first entry of the sorted
// list with the level) by direct indexing, or by searching the list when
// the levels spread too far for a table.
type gainTable struct {
	lo   int
	gain []float64
	list gains
}

// maxTable bounds the direct table.
const maxTable = 1 << 12

// table builds the lookup for g.
func (g gains) table() *gainTable {
	if len(g) == 0 {
		return &gainTable{}
	}
	lo, hi := g[0].level, g[0].level
	for _, x := range g {
		lo, hi = min(lo, x.level), max(hi, x.level)
	}
	if hi-lo >= maxTable {
		return &gainTable{list: g}
	}
	t := &gainTable{lo: lo, gain: make([]float64, hi-lo+1)}
	for i := len(g) - 1; i >= 0; i-- {
		t.gain[g[i].level-lo] = g[i].gain
	}
	return t
}

// of returns the gain of a relevance value (0 for one without a gain).
func (t *gainTable) of(rel int) float64 {
	if i := rel - t.lo; uint(i) < uint(len(t.gain)) {
		return t.gain[i]
	}
	if t.list != nil {
		return t.list.gain(rel)
	}
	return 0
}

// eachGain calls f, in rank order, for every rank from on whose document
// has a gain other than 0. When unjudged documents have no gain it visits
// only the judged ones.
func (q *queryEval) eachGain(t *gainTable, from int, f func(i int, g float64)) {
	if t.of(relNonPool) != 0 {
		for i := from; i < q.rr.numRet; i++ {
			if g := t.of(q.rr.rel[i]); g != 0 {
				f(i, g)
			}
		}
		return
	}
	for _, i := range q.pooled() {
		if int(i) >= from {
			if g := t.of(q.rr.rel[i]); g != 0 {
				f(int(i), g)
			}
		}
	}
}

// setupGains builds the gain table from the measure's parameters and the
// query's judgments, as trec_eval does (including its sort, which compares
// gains truncated to integers).
func (q *queryEval) setupGains(in *instance) gains {
	g := make(gains, 0, q.rr.numRelLevels+len(in.pairs))
	for _, p := range in.pairs {
		if level, ok := cInt(p.name); ok {
			g = append(g, relGain{level: level, gain: p.value})
		}
	}
	for level := range q.rr.numRelLevels {
		if i := g.index(level); i >= 0 {
			g[i].count = q.rr.levels[level]
		} else {
			g = append(g, relGain{level: level, gain: float64(level), count: q.rr.levels[level]})
		}
	}
	msort(g, func(a, b relGain) int { return int(int32(a.gain - b.gain)) })
	return g
}

// cInt parses an optionally signed decimal integer, as trec_eval's gain
// levels are read.
func cInt(s string) (int, bool) {
	t := s
	if len(t) > 0 && (t[0] == '-' || t[0] == '+') {
		t = t[1:]
	}
	for _, c := range []byte(t) {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	if t == "" {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return int(v), err == nil
}

func (g gains) index(level int) int {
	for i := range g {
		if g[i].level == level {
			return i
		}
	}
	return -1
}

// gain returns the gain of a relevance value (0 for one without a gain).
func (g gains) gain(rel int) float64 {
	if i := g.index(rel); i >= 0 {
		return g[i].gain
	}
	return 0
}

// ideal walks the ideal ranking: each call to next returns the gain of the
// next ideal document (0 once the positive gains are used up).
type ideal struct {
	g     gains
	level int
	n     int
	gain  float64
}

func newIdeal(g gains) *ideal {
	id := &ideal{g: g, level: len(g) - 1}
	if id.level >= 0 {
		id.gain = g[id.level].gain
	}
	return id
}

func (id *ideal) next() float64 {
	id.n++
	for id.level >= 0 && id.n > id.g[id.level].count {
		id.n = 1
		id.level--
		id.gain = 0
		if id.level >= 0 {
			id.gain = id.g[id.level].gain
		}
	}
	return id.gain
}

// dcgWalk computes the ranking's DCG and the ideal DCG as trec_eval's ndcg
// does: the ideal is extended while its gain stays positive.
func (q *queryEval) dcgWalk(g gains) (dcg, idcg float64) {
	id, t := newIdeal(g), g.table()
	i := 0
	for ; i < q.rr.numRet && id.gain > 0; i++ {
		if rg := t.of(q.rr.rel[i]); rg != 0 {
			dcg += rg / log2(i+2)
		}
		if ig := id.next(); ig > 0 {
			idcg += ig / log2(i+2)
		}
	}
	q.eachGain(t, i, func(i int, rg float64) { dcg += rg / log2(i+2) })
	for i = max(i, q.rr.numRet); id.gain > 0; i++ {
		if ig := id.next(); ig > 0 {
			idcg += ig / log2(i+2)
		}
	}
	return dcg, idcg
}

func ndcgValue(dcg, idcg float64) (float64, bool) { return dcg / idcg, idcg > 0 }

// calcDCG stores a value computed from the DCG and the ideal DCG.
func calcDCG(f func(dcg, idcg float64) (float64, bool)) func(*queryEval, *instance) error {
	return func(q *queryEval, in *instance) error {
		if v, ok := f(q.dcgWalk(q.setupGains(in))); ok {
			q.vals[in.off] = v
		}
		return nil
	}
}

func calcNDCGRel(q *queryEval, in *instance) error {
	g := q.setupGains(in)
	t := g.table()
	id := newIdeal(g)
	var dcg, idcg, sum float64
	numRel, numRelRet := 0, 0
	i := 0
	for ; i < q.rr.numRet && id.gain > 0; i++ {
		rg := t.of(q.rr.rel[i])
		if rg != 0 {
			dcg += rg / log2(i+2)
		}
		if ig := id.next(); ig > 0 {
			numRel++
			idcg += ig / log2(i+2)
		}
		if rg > 0 {
			sum += dcg / idcg
			numRelRet++
		}
	}
	q.eachGain(t, i, func(i int, rg float64) {
		dcg += rg / log2(i+2)
		if rg > 0 {
			sum += dcg / idcg
			numRelRet++
		}
	})
	for i = max(i, q.rr.numRet); id.gain > 0; i++ {
		if ig := id.next(); ig > 0 {
			numRel++
			idcg += ig / log2(i+2)
		}
	}
	sum += float64(float64(numRel-numRelRet)*dcg) / idcg
	if sum > 0 {
		q.vals[in.off] = sum / float64(numRel)
	}
	return nil
}

func calcRndcg(q *queryEval, in *instance) error {
	g := q.setupGains(in)
	t := g.table()
	if q.rr.numRel == 0 {
		return nil
	}
	id := newIdeal(g)
	var dcg, idcg, sum float64
	changes := 0
	old := id.gain
	boundary := func() {
		if old != id.gain {
			if idcg > 0 {
				sum += dcg / idcg
				changes++
			}
			old = id.gain
		}
	}
	i := 0
	for ; i < q.rr.numRet && id.gain > 0; i++ {
		rg := t.of(q.rr.rel[i])
		id.next()
		boundary()
		if rg != 0 {
			dcg += rg / log2(i+2)
		}
		if id.gain > 0 {
			idcg += id.gain / log2(i+2)
		}
	}
	if i < q.rr.numRet {
		q.eachGain(t, i, func(i int, rg float64) { dcg += rg / log2(i+2) })
		if idcg > 0 {
			sum += dcg / idcg
			changes++
		}
	}
	for i = max(i, q.rr.numRet); id.gain > 0; i++ {
		id.next()
		boundary()
		if id.gain > 0 {
			idcg += id.gain / log2(i+2)
		}
	}
	q.vals[in.off] = cdiv(sum, float64(changes))
	return nil
}

func calcG(q *queryEval, in *instance) error {
	g := q.setupGains(in)
	t := g.table()
	id := newIdeal(g)
	const minCost = 1.0
	var resultsG, sumResults, sumIdeal, sumCost float64
	i := 0
	for ; i < q.rr.numRet && id.gain > 0; i++ {
		rg := t.of(q.rr.rel[i])
		sumResults += rg
		ig := id.next()
		if ig > 0 {
			sumIdeal += ig
		}
		if ig >= minCost {
			sumCost += ig
		} else {
			sumCost += minCost
		}
		if rg != 0 {
			resultsG += rg / log2f(2+sumCost-sumResults)
		}
	}
	for ; i < q.rr.numRet; i++ {
		rg := t.of(q.rr.rel[i])
		sumResults += rg
		sumCost += minCost
		if rg != 0 {
			resultsG += rg / log2f(2+sumCost-sumResults)
		}
	}
	for id.gain > 0 {
		if ig := id.next(); ig > 0 {
			sumIdeal += ig
		}
	}
	if sumIdeal > 0 {
		q.vals[in.off] = resultsG / sumIdeal
	}
	return nil
}

func calcNDCGCut(q *queryEval, in *instance) error {
	rr := &q.rr
	vals := q.vals[in.off : in.off+len(in.cuts)]
	c, sum := 0, 0.0
	for i, r := range rr.rel {
		if int64(i) == in.cuts[c] {
			vals[c] = sum
			if c++; c == len(in.cuts) {
				break
			}
		}
		if r > 0 {
			sum += float64(r) / log2(i+2)
		}
	}
	for ; c < len(in.cuts); c++ {
		vals[c] = sum
	}
	c = 0
	level, count, idcg := rr.numRelLevels-1, 0, 0.0
	for i := 0; ; i++ {
		count++
		for level > 0 && count > rr.levels[level] {
			level--
			count = 1
		}
		if level <= 0 {
			break
		}
		if int64(i) == in.cuts[c] {
			if idcg > 0 {
				vals[c] /= idcg
			}
			if c++; c == len(in.cuts) {
				break
			}
		}
		idcg += float64(level) / log2(i+2)
	}
	for ; c < len(in.cuts); c++ {
		if idcg > 0 {
			vals[c] /= idcg
		}
	}
	return nil
}

// rbpP returns the persistence parameter p (default 0.9).
func rbpP(in *instance) float64 {
	p := 0.9
	for _, pr := range in.pairs {
		if pr.name == "p" {
			p = pr.value
		}
	}
	return p
}

func calcRBP(q *queryEval, in *instance) error {
	p := rbpP(in)
	g := q.setupGains(in)
	// trec_eval starts its minimum and maximum from uninitialised memory;
	// here they start from the gains themselves.
	lo, hi := 0.0, 0.0
	for i, x := range g {
		if i == 0 || x.gain < lo {
			lo = x.gain
		}
		if i == 0 || x.gain > hi {
			hi = x.gain
		}
	}
	if lo < 0 || hi > 1 {
		for i := range g {
			g[i].gain = (g[i].gain - lo) / (hi - lo)
		}
	}
	sum, cur := 0.0, 1.0
	t := g.table()
	for _, r := range q.rr.rel {
		if rg := t.of(r); rg != 0 {
			sum += float64(rg * cur)
		}
		cur *= p
	}
	q.vals[in.off] = float64((1.0 - p) * sum)
	return nil
}

func calcRBPResid(q *queryEval, in *instance) error {
	p := rbpP(in)
	sum, cur := 0.0, 1.0
	unjudged := 0
	for _, r := range q.rr.rel {
		if r < 0 {
			unjudged++
			sum += cur
		}
		cur *= p
	}
	if unjudged > 0 {
		q.vals[in.off] = cur + float64((1-p)*sum)
	}
	return nil
}
