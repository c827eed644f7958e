package metric

import (
	"math"

	"github.com/ragstat/ragstat/internal/trecmath"
)

// The names of other tools. Each computes its tool's measure whatever the
// policy's gain says; the arithmetic is ragstat's where the definitions
// agree (the same function), and the tool's own where they differ.

const trecCutoffs = "5,10,15,20,30,100,200,500,1000"

// linearGain is trec_eval's default gain: the grade itself, or the
// metric's gain map.
func linearGain(_ Policy, m Metric) func(int32) float64 {
	if m.Gains != nil {
		return m.Gains.of
	}
	return Linear.of
}

var trecEval = []*Family{
	{Name: "num_ret", Origin: TrecEval, Cutoff: NoCutoff, Count: true, Agg: Sum,
		Differs: "NumRet, but the summary row is the sum over queries, not the mean",
		Formula: "num_ret = items returned; summed over queries", compute: numRet},
	{Name: "num_rel", Origin: TrecEval, Cutoff: NoCutoff, Count: true, Agg: Sum,
		Differs: "NumRel, but the summary row is the sum over queries, not the mean",
		Formula: "num_rel = judged items at or above the threshold (-l); summed over queries", Reads: []string{"min-grade"}, compute: numRel},
	{Name: "num_rel_ret", Origin: TrecEval, Cutoff: NoCutoff, Count: true, Agg: Sum,
		Differs: "NumRelRet, but the summary row is the sum over queries, not the mean",
		Formula: "num_rel_ret = relevant items returned; summed over queries", Reads: []string{"min-grade"}, compute: numRelRet},
	{Name: "map", Origin: TrecEval, Cutoff: NoCutoff, Differs: "same as AP",
		Formula: "map = AP over the whole list", Reads: []string{"min-grade"}, compute: averagePrecision},
	{Name: "gm_map", Origin: TrecEval, Cutoff: NoCutoff, Agg: GeoMean,
		Differs: "AP per query; the summary is the geometric mean exp(mean(log(max(AP, 0.00001)))), not the mean",
		Formula: "gm_map = geometric mean of AP, each value floored at 0.00001", Reads: []string{"min-grade"}, compute: averagePrecision},
	{Name: "Rprec", Origin: TrecEval, Cutoff: NoCutoff, Differs: "same as R-prec",
		Formula: "Rprec = precision after R items", Reads: []string{"min-grade"}, compute: rPrecision},
	{Name: "recip_rank", Origin: TrecEval, Cutoff: NoCutoff, Differs: "same as RR over the whole list (trec_eval takes no cutoff)",
		Formula: "recip_rank = 1 / rank of the first relevant item", Reads: []string{"min-grade"}, compute: reciprocalRank},
	{Name: "iprec_at_recall", Origin: TrecEval, Cutoff: NoCutoff, Param: Level, Expand: "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0",
		Differs: "trec_eval's own; ragstat has no other name for it",
		Formula: "iprec_at_recall_x = the highest precision at any rank where the relevant items found reach round(x*R), 0 when they never do",
		Reads:   []string{"min-grade"}, compute: iprecAtRecall},
	{Name: "P", Origin: TrecEval, Cutoff: NeedsCutoff, Expand: trecCutoffs, Differs: "same as P@k",
		Formula: "P_k = relevant items in the top k / k", Reads: []string{"min-grade"}, compute: precision},
	{Name: "recall", Origin: TrecEval, Cutoff: NeedsCutoff, Expand: trecCutoffs, Differs: "same as R@k",
		Formula: "recall_k = relevant items in the top k / R", Reads: []string{"min-grade"}, compute: recall},
	{Name: "11pt_avg", Origin: TrecEval, Cutoff: NoCutoff,
		Differs: "trec_eval's own; ragstat has no other name for it",
		Formula: "11pt_avg = mean of iprec_at_recall at 0.0, 0.1, ..., 1.0", Reads: []string{"min-grade"}, compute: elevenPoint},
	{Name: "ndcg", Origin: TrecEval, Cutoff: NoCutoff, Param: GainsMap,
		Differs: "nDCG over the whole list with linear gain (g), or trec_eval's gain map ndcg.1=1,2=3, whatever {gain} says",
		Formula: "ndcg = DCG / ideal DCG over the whole list, gain = grade unless the map gives another", compute: ndcg(linearGain)},
	{Name: "ndcg_cut", Origin: TrecEval, Cutoff: NeedsCutoff, Expand: trecCutoffs,
		Differs: "nDCG@k with linear gain (g) whatever {gain} says",
		Formula: "ndcg_cut_k = DCG@k / IDCG@k with gain = grade", compute: ndcg(linearGain)},
	{Name: "map_cut", Origin: TrecEval, Cutoff: NeedsCutoff, Expand: trecCutoffs, Differs: "same as AP@k",
		Formula: "map_cut_k = AP over the top k, divided by R", Reads: []string{"min-grade"}, compute: averagePrecision},
	{Name: "success", Origin: TrecEval, Cutoff: NeedsCutoff, Expand: "1,5,10", Differs: "same as Success@k",
		Formula: "success_k = 1 if a relevant item is in the top k", Reads: []string{"min-grade"}, compute: success},
	{Name: "set_P", Origin: TrecEval, Cutoff: NoCutoff, Differs: "same as SetP",
		Formula: "set_P = relevant returned / returned", Reads: []string{"min-grade"}, compute: setPrecision},
	{Name: "set_recall", Origin: TrecEval, Cutoff: NoCutoff, Differs: "same as SetR",
		Formula: "set_recall = relevant returned / R", Reads: []string{"min-grade"}, compute: setRecall},
	{Name: "set_F", Origin: TrecEval, Cutoff: NoCutoff, Param: Beta, Default: 1,
		Differs: "the parameter x weighs as (x+1)PR/(xP+R), not beta^2; x=1 is SetF",
		Formula: "set_F_x = (x+1) * set_P * set_recall / (x * set_P + set_recall), 0 when nothing relevant is returned",
		Reads:   []string{"min-grade"}, compute: trecSetF},
	{Name: "rbp", Origin: TrecEval, Cutoff: NoCutoff, Param: Persist, Default: 0.9,
		Differs: "graded: gain = grade (or the gain map), rescaled to [0,1] over the query's grades when one falls outside; p = 0.9 by default",
		Formula: "rbp_p=x = (1-p) * sum over ranks i of gain_i * p^(i-1)", compute: trecRBP},
	{Name: "rbp_resid", Origin: TrecEval, Cutoff: NoCutoff, Param: Persist, Default: 0.9,
		Differs: "RBP-resid, but 0 when no returned item lacks a judgment (the mass beyond the list is then left out); p = 0.9 by default",
		Formula: "rbp_resid = p^n + (1-p) * sum over unjudged ranks i of p^(i-1), 0 without unjudged items", compute: trecRBPResidual},
}

var ranx = []*Family{
	{Name: "ndcg_burges", Origin: Ranx, Cutoff: OptionalCutoff,
		Differs: "nDCG@k with exp gain 2^g-1 whatever {gain} says, and grades below {min_grade} gain nothing",
		Formula: "ndcg_burges@k = DCG@k / IDCG@k, gain 2^g-1 for g >= min-grade, else 0", Reads: []string{"min-grade"}, compute: ndcg(ranxGain(Exp))},
	{Name: "dcg_burges", Origin: Ranx, Cutoff: OptionalCutoff,
		Differs: "DCG@k with exp gain 2^g-1, grades below {min_grade} gain nothing",
		Formula: "dcg_burges@k = sum over ranks i<=k of (2^g_i - 1) / log2(i+1), g_i >= min-grade", Reads: []string{"min-grade"}, compute: dcgAt(ranxGain(Exp))},
	{Name: "hit_rate", Origin: Ranx, Cutoff: NeedsCutoff, Differs: "same as Success@k",
		Formula: "hit_rate@k = 1 if a relevant item is in the top k", Reads: []string{"min-grade"}, compute: success},
	{Name: "hits", Origin: Ranx, Cutoff: NeedsCutoff, Count: true, Differs: "the count of relevant items in the top k (P@k times k)",
		Formula: "hits@k = relevant items in the top k", Reads: []string{"min-grade"}, compute: hits},
	{Name: "f1", Origin: Ranx, Cutoff: NeedsCutoff, Differs: "same as F1@k",
		Formula: "f1@k = harmonic mean of precision@k and recall@k", Reads: []string{"min-grade"}, compute: f1},
	{Name: "r-precision", Origin: Ranx, Cutoff: NoCutoff, Differs: "same as R-prec",
		Formula: "r-precision = precision after R items", Reads: []string{"min-grade"}, compute: rPrecision},
	{Name: "ndcg", Origin: Ranx, Cutoff: OptionalCutoff, Shared: true,
		Differs: "under {like} ranx: linear gain (Jarvelin), grades below {min_grade} gain nothing; otherwise ndcg@k is ragstat's nDCG@k",
		Formula: "ndcg@k = DCG@k / IDCG@k, gain g for g >= min-grade, else 0", Reads: []string{"min-grade"}, compute: ndcg(ranxGain(Linear))},
	{Name: "dcg", Origin: Ranx, Cutoff: OptionalCutoff, Shared: true,
		Differs: "under {like} ranx: linear gain, grades below {min_grade} gain nothing; otherwise dcg@k is ragstat's DCG@k",
		Formula: "dcg@k = sum over ranks i<=k of g_i / log2(i+1), g_i >= min-grade", Reads: []string{"min-grade"}, compute: dcgAt(ranxGain(Linear))},
	{Name: "recall", Origin: Ranx, Cutoff: OptionalCutoff, Shared: true, Differs: "same as R@k",
		Formula: "recall@k = relevant items in the top k / R", Reads: []string{"min-grade"}, compute: recall},
	{Name: "mrr", Origin: Ranx, Cutoff: OptionalCutoff, Shared: true, Differs: "same as RR@k",
		Formula: "mrr@k = 1 / rank of the first relevant item in the top k", Reads: []string{"min-grade"}, compute: reciprocalRank},
	{Name: "map", Origin: Ranx, Cutoff: OptionalCutoff, Shared: true, Differs: "same as AP@k (divided by R, not by min(k, R))",
		Formula: "map@k = sum of P@i at relevant ranks i<=k / R", Reads: []string{"min-grade"}, compute: averagePrecision},
	{Name: "precision", Origin: Ranx, Cutoff: NeedsCutoff, Shared: true, Differs: "same as P@k",
		Formula: "precision@k = relevant items in the top k / k", Reads: []string{"min-grade"}, compute: precision},
}

// ranxGain is ranx's: judgments below the relevance level are dropped, so
// they gain nothing; the others gain g (Jarvelin) or 2^g-1 (Burges).
func ranxGain(g Gain) gainRule {
	return func(p Policy, _ Metric) func(int32) float64 {
		return func(grade int32) float64 {
			if grade < p.MinGrade {
				return 0
			}
			return g.of(grade)
		}
	}
}

func hits(l *List, p Policy, m Metric) float64 { return float64(relCount(l.prefix(m.K), p)) }

// iprec is the interpolated precision at c relevant items found: the
// highest precision at a rank where at least c (and at least one) have
// been found; 0 when fewer than c are ever found.
func iprec(l *List, p Policy, c int) float64 {
	best, found := 0.0, 0
	total := relCount(l.Grades, p)
	if c > total {
		return 0
	}
	for i, g := range l.Grades {
		if g >= p.MinGrade {
			found++
			if found >= c {
				best = max(best, float64(found)/float64(i+1))
			}
		}
	}
	return best
}

// recallCut turns a recall level into a number of relevant items, rounded
// to nearest as trec_eval 10 does.
func recallCut(level float64, r int) int { return int(math.Round(level * float64(r))) }

func iprecAtRecall(l *List, p Policy, m Metric) float64 {
	return iprec(l, p, recallCut(m.Value, l.NumRel(p)))
}

// elevenPoints are trec_eval's recall levels, as it parses them.
var elevenPoints = []float64{0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0}

func elevenPoint(l *List, p Policy, _ Metric) float64 {
	sum := 0.0
	for _, x := range elevenPoints {
		sum += iprec(l, p, recallCut(x, l.NumRel(p)))
	}
	return sum / float64(len(elevenPoints))
}

func trecSetF(l *List, p Policy, m Metric) float64 {
	return trecmath.SetF(relCount(l.Grades, p), len(l.Grades), l.NumRel(p), m.Value)
}

// trecRBP is trec_eval's graded RBP: gains of the grades 0..max judged
// (and of the map's grades), rescaled to [0,1] when one falls outside.
func trecRBP(l *List, p Policy, m Metric) float64 {
	gain := linearGain(p, m)
	top := int32(-1)
	for _, g := range l.Ideal {
		top = max(top, g)
	}
	lo, hi, seen := 0.0, 0.0, false
	consider := func(v float64) {
		if !seen || v < lo {
			lo = v
		}
		if !seen || v > hi {
			hi = v
		}
		seen = true
	}
	for g := int32(0); g <= top; g++ {
		consider(gain(g))
	}
	if m.Gains != nil {
		for _, x := range *m.Gains {
			consider(x.Gain)
		}
	}
	scale := func(v float64) float64 { return v }
	if lo < 0 || hi > 1 {
		scale = func(v float64) float64 { return (v - lo) / (hi - lo) }
	}
	sum, w := 0.0, 1.0
	for _, g := range l.Grades {
		if g != Unjudged && (g >= 0 || m.Gains != nil) {
			if v := scale(gain(g)); v != 0 {
				sum += float64(v * w)
			}
		}
		w *= m.Value
	}
	return float64((1.0 - m.Value) * sum)
}

func trecRBPResidual(l *List, _ Policy, m Metric) float64 {
	sum, w, unjudged := 0.0, 1.0, 0
	for _, g := range l.Grades {
		if g < 0 {
			unjudged++
			sum += w
		}
		w *= m.Value
	}
	if unjudged == 0 {
		return 0
	}
	return w + float64((1-m.Value)*sum)
}
