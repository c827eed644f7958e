package treceval

import (
	"fmt"
	"math"

	"github.com/ragstat/ragstat/internal/trecmath"
)

// Measures that look only at judged documents (bpref, infAP), and the
// preference and judgment-group measures that need input formats this
// implementation does not read.

func init() {
	register(
		&measure{name: "bpref", calc: calcBpref(func(v float64) float64 { return v }),
			doc: "Binary preference: for each relevant document, the fraction of the first R judged non-relevant documents ranked below it, averaged over R; unjudged documents are ignored."},
		&measure{name: "gm_bpref", value: geoMeanValue, calc: calcBpref(func(v float64) float64 { return math.Log(cmax(v, minGeoMean)) }),
			doc: "bpref averaged with a geometric mean (values floored at 0.00001); summary only."},
		&measure{name: "infAP", calc: calcInfAP,
			doc: "Inferred average precision, for judgments sampled from the pool (grade -1 marks pooled but unjudged documents)."},
	)
	for _, name := range []string{"prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
		"prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
		"prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
		"map_avgjg", "P_avgjg", "Rprec_mult_avgjg"} {
		register(&measure{name: name, calc: calcUnsupported,
			doc: "Needs preference or judgment-group judgments (-R prefs, qrels_prefs or qrels_jg), which are not supported."})
	}
}

// calcBpref computes bpref and stores f of it.
func calcBpref(f func(float64) float64) func(*queryEval, *instance) error {
	return func(q *queryEval, in *instance) error {
		rr := &q.rr
		numNonrel := 0
		for g := 0; g < min(q.s.relLevel, len(rr.levels)); g++ { // -l may be huge: only grades present count
			numNonrel += rr.levels[g]
		}
		bpref, nonrel := 0.0, 0
		for _, i := range q.pooled() {
			switch r := rr.rel[i]; {
			case r == relUnjudged:
			case r >= 0 && r < q.s.relLevel:
				nonrel++
			case nonrel > 0:
				bpref += 1.0 - float64(min(nonrel, rr.numRel))/float64(min(numNonrel, rr.numRel))
			default:
				bpref += 1.0
			}
		}
		if rr.numRel > 0 {
			bpref /= float64(rr.numRel)
		}
		q.vals[in.off] = f(bpref)
		return nil
	}
}

func calcInfAP(q *queryEval, in *instance) error {
	rr := &q.rr
	infAP := 0.0
	rel, nonrel, unjudged := 0, 0, 0
	for _, pos := range q.pooled() {
		j, r := int(pos), rr.rel[pos]
		switch {
		case r == relUnjudged:
			unjudged++
		case r >= 0 && r < q.s.relLevel:
			nonrel++
		default:
			rel++
			infAP += trecmath.InfAPTerm(j, rel, nonrel, unjudged)
		}
	}
	if rr.numRel > 0 {
		infAP /= float64(rr.numRel)
	}
	q.vals[in.off] = infAP
	return nil
}

func calcUnsupported(_ *queryEval, in *instance) error {
	return fmt.Errorf("measure %s needs preference or judgment-group judgments (-R prefs, qrels_prefs, qrels_jg), which this trec-eval does not read", in.name)
}
