package metric

import (
	"math"

	"github.com/ragstat/ragstat/internal/trecmath"
)

// Families lists every metric family in the order `ragstat metrics` prints
// them: ragstat's own names first, then the names of trec_eval and ranx,
// each computing its tool's measure.
var Families = append(append(own, trecEval...), ranx...)

func init() {
	for _, f := range own {
		f.Origin = Ragstat
	}
}

// own are ragstat's names, with the source document's definitions.
var own = []*Family{
	{Name: "R", Aliases: []string{"recall"}, Cutoff: OptionalCutoff,
		Formula: "R@k = |relevant items in the top k| / |relevant judgments of the query|; missing evidence stays in the denominator",
		Reads:   []string{"min-grade"}, compute: recall},
	{Name: "P", Aliases: []string{"precision"}, Cutoff: NeedsCutoff,
		Formula: "P@k = |relevant items in the top k| / k (a short list is not padded: the divisor stays k)",
		Reads:   []string{"min-grade"}, compute: precision},
	{Name: "RR", Aliases: []string{"mrr"}, Cutoff: OptionalCutoff,
		Formula: "RR@k = 1 / rank of the first relevant item within the top k, 0 if none; its mean is MRR@k",
		Reads:   []string{"min-grade"}, compute: reciprocalRank},
	{Name: "nDCG", Cutoff: OptionalCutoff, Param: GainsMap,
		Formula: "nDCG@k = DCG@k / IDCG@k, DCG@k = sum over ranks i<=k of gain(grade_i) / log2(i+1), gain 2^g-1 (exp) or g (linear), or a gain map nDCG(gains={0:0,1:1,2:3})@k (an unlisted positive grade gains itself); IDCG@k from all judgments of the query in the best order; 0 when IDCG is 0",
		Reads:   []string{"gain"}, compute: ndcg(policyGain)},
	{Name: "DCG", Cutoff: OptionalCutoff, Param: GainsMap,
		Formula: "DCG@k = sum over ranks i<=k of gain(grade_i) / log2(i+1), unnormalised (gains as nDCG)",
		Reads:   []string{"gain"}, compute: dcgAt(policyGain)},
	{Name: "AP", Cutoff: OptionalCutoff,
		Formula: "AP@k = sum over relevant items at rank i<=k of P@i, divided by |relevant judgments|; its mean is MAP",
		Reads:   []string{"min-grade"}, compute: averagePrecision},
	{Name: "R-prec", Aliases: []string{"rprec"}, Cutoff: NoCutoff,
		Formula: "R-prec = P@R where R = |relevant judgments of the query|",
		Reads:   []string{"min-grade"}, compute: rPrecision},
	{Name: "Success", Cutoff: NeedsCutoff,
		Formula: "Success@k = 1 if any relevant item is in the top k, else 0",
		Reads:   []string{"min-grade"}, compute: success},
	{Name: "Judged", Cutoff: NeedsCutoff,
		Formula: "Judged@k = |judged items in the top k| / k: how much of what was shown the judgments can speak for; under {judged_divisor} list (ir_measures) the divisor is min(k, |list|), 0 for an empty list",
		Reads:   []string{"judged-divisor"}, compute: judged},
	{Name: "bpref", Cutoff: NoCutoff,
		Formula: "bpref = (1/R) * sum over relevant items r of 1 - min(n_r, R) / min(R, N), n_r = judged non-relevant items above r, N = judged non-relevant items; unjudged items and negative grades (pooled, not judged) are ignored; the same as trec_eval's bpref",
		Reads:   []string{"min-grade"}, compute: bpref},
	{Name: "infAP", Cutoff: NoCutoff,
		Formula: "infAP (Yilmaz & Aslam, as trec_eval): (1/R) * sum over relevant items at rank k of 1/k + ((k-1)/k) * (|pooled above| / (k-1)) * ((rel_above + e) / (rel_above + nonrel_above + 2e)), e = 0.00001; a negative grade marks a pooled item not sampled for judging, an unjudged item was not pooled; the same as trec_eval's infAP",
		Reads:   []string{"min-grade"}, compute: infAP},
	{Name: "ERR", Cutoff: OptionalCutoff,
		Formula: "ERR@k (Chapelle et al.) = sum over ranks r<=k of (1/r) * R_r * prod_{i<r} (1 - R_i), R_i = (2^g_i - 1) / 2^g_max, g_max the top of {grades}",
		Reads:   []string{"grades"}, compute: err},
	{Name: "RBP", Cutoff: NoCutoff, Param: Persist, Default: 0.8,
		Formula: "RBP(p=0.8) (Moffat & Zobel) = (1-p) * sum over ranks i of rel_i * p^(i-1), rel_i = 1 for a relevant item; an unjudged item adds 0 (see RBP-resid)",
		Reads:   []string{"min-grade"}, compute: rbp},
	{Name: "RBP-resid", Cutoff: NoCutoff, Param: Persist, Default: 0.8,
		Formula: "RBP-resid(p=0.8) = (1-p) * sum over unjudged ranks i of p^(i-1) + p^n, n = |list|: how much RBP could still grow if every unjudged and unseen item were relevant",
		compute: rbpResidual},
	{Name: "alpha-nDCG", Cutoff: OptionalCutoff, Param: Alpha, Default: 0.5, Diversity: true,
		Formula: "alpha-nDCG(alpha=0.5)@k (Clarke et al., as TREC's ndeval) = alpha-DCG@k / ideal alpha-DCG@k, alpha-DCG@k = sum over ranks i<=k of sum over subtopics s the item is relevant to (grade >= min-grade) of (1-alpha)^(items above i relevant to s) / log2(i+1); the ideal picks, rank by rank, the judged item with the largest gain (greedy). Needs subtopic judgments ({subtopics})",
		Reads:   []string{"min-grade", "subtopics"}, compute: alphaNDCG},
	{Name: "ERR-IA", Cutoff: OptionalCutoff, Diversity: true,
		Formula: "ERR-IA@k = mean over the query's subtopics s of ERR@k computed with the items' grades for s, R = (2^g - 1) / 2^g_max. Needs subtopic judgments ({subtopics})",
		Reads:   []string{"grades", "subtopics"}, compute: errIA},
	{Name: "SetP", Cutoff: NoCutoff,
		Formula: "SetP = |relevant items returned| / |items returned|, 0 for an empty list: the precision of the whole list, e.g. of a packed context",
		Reads:   []string{"min-grade"}, compute: setPrecision},
	{Name: "SetR", Cutoff: NoCutoff,
		Formula: "SetR = |relevant items returned| / |relevant judgments|: the recall of the whole list",
		Reads:   []string{"min-grade"}, compute: setRecall},
	{Name: "SetF", Cutoff: NoCutoff, Param: Beta, Default: 1,
		Formula: "SetF(beta=1) = (1+beta^2) * SetP * SetR / (beta^2 * SetP + SetR), 0 when nothing relevant is returned",
		Reads:   []string{"min-grade"}, compute: setF},
	{Name: "F1", Cutoff: NeedsCutoff,
		Formula: "F1@k = 2 * P@k * R@k / (P@k + R@k), 0 when no relevant item is in the top k",
		Reads:   []string{"min-grade"}, compute: f1},
	{Name: "NumRet", Cutoff: NoCutoff, Count: true,
		Formula: "NumRet = number of items returned; the summary is the mean", compute: numRet},
	{Name: "NumRel", Cutoff: NoCutoff, Count: true,
		Formula: "NumRel = number of judged items at or above the relevance threshold; the summary is the mean",
		Reads:   []string{"min-grade"}, compute: numRel},
	{Name: "NumRelRet", Cutoff: NoCutoff, Count: true,
		Formula: "NumRelRet = number of relevant items returned, anywhere in the list; the summary is the mean",
		Reads:   []string{"min-grade"}, compute: numRelRet},
}

func recall(l *List, p Policy, m Metric) float64 {
	return ratio(float64(relCount(l.prefix(m.K), p)), float64(l.NumRel(p)))
}

func precision(l *List, p Policy, m Metric) float64 {
	return float64(relCount(l.prefix(m.K), p)) / float64(m.K)
}

func reciprocalRank(l *List, p Policy, m Metric) float64 {
	for i, g := range l.prefix(m.K) {
		if g >= p.MinGrade {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// gainRule picks the gain function of a family.
type gainRule func(p Policy, m Metric) func(int32) float64

// policyGain is ragstat's: the metric's gain map, else the policy's gain.
func policyGain(p Policy, m Metric) func(int32) float64 { return m.gainOf(p) }

func ndcg(gain gainRule) func(*List, Policy, Metric) float64 {
	return func(l *List, p Policy, m Metric) float64 {
		g := gain(p, m)
		var best float64
		if m.Gains == nil {
			// Every gain but a map's grows with the grade: the ideal is
			// the judgments in their sorted order.
			ideal := l.Ideal
			if m.K > 0 && m.K < len(ideal) {
				ideal = ideal[:m.K]
			}
			best = dcg(ideal, g)
		} else {
			best = idealDCG(l, m.K, g)
		}
		return ratio(dcg(l.prefix(m.K), g), best)
	}
}

func dcgAt(gain gainRule) func(*List, Policy, Metric) float64 {
	return func(l *List, p Policy, m Metric) float64 { return dcg(l.prefix(m.K), gain(p, m)) }
}

func averagePrecision(l *List, p Policy, m Metric) float64 {
	sum, hits := 0.0, 0
	for i, g := range l.prefix(m.K) {
		if g >= p.MinGrade {
			hits++
			sum += float64(hits) / float64(i+1)
		}
	}
	return ratio(sum, float64(l.NumRel(p)))
}

func rPrecision(l *List, p Policy, _ Metric) float64 {
	r := l.NumRel(p)
	return ratio(float64(relCount(l.prefix(r), p)), float64(r))
}

func success(l *List, p Policy, m Metric) float64 {
	if relCount(l.prefix(m.K), p) > 0 {
		return 1
	}
	return 0
}

func judged(l *List, p Policy, m Metric) float64 {
	n := 0
	top := l.prefix(m.K)
	for _, g := range top {
		if g != Unjudged {
			n++
		}
	}
	if p.JudgedOfList {
		return ratio(float64(n), float64(len(top)))
	}
	return float64(n) / float64(m.K)
}

func bpref(l *List, p Policy, _ Metric) float64 {
	r, n := l.NumRel(p), l.numJudgedNonRel(p)
	sum, above := 0.0, 0
	for _, g := range l.Grades {
		switch {
		case g < 0: // unjudged, or pooled but not judged
		case g >= p.MinGrade:
			if above == 0 {
				sum++
			} else {
				sum += 1 - float64(min(above, r))/float64(min(r, n))
			}
		default:
			above++
		}
	}
	return ratio(sum, float64(r))
}

// infAP follows trec_eval's arithmetic, operation for operation.
func infAP(l *List, p Policy, _ Metric) float64 {
	sum := 0.0
	rel, nonrel, sampledOut := 0, 0, 0
	for j, g := range l.Grades {
		switch {
		case g == Unjudged: // not pooled: counts as non-relevant through the rank
		case g < 0:
			sampledOut++
		case g < p.MinGrade:
			nonrel++
		default:
			rel++
			sum += trecmath.InfAPTerm(j, rel, nonrel, sampledOut)
		}
	}
	return ratio(sum, float64(l.NumRel(p)))
}

func err(l *List, p Policy, m Metric) float64 {
	if p.MaxGrade <= 0 {
		return 0
	}
	sum, notYet := 0.0, 1.0
	for i, g := range l.prefix(m.K) {
		if g <= 0 {
			continue
		}
		// (2^g - 1) / 2^max, written so that it stays finite for any scale.
		r := math.Exp2(float64(g-p.MaxGrade)) - math.Exp2(-float64(p.MaxGrade))
		sum += notYet * r / float64(i+1)
		notYet *= 1 - r
	}
	return sum
}

func rbp(l *List, p Policy, m Metric) float64 {
	sum, w := 0.0, 1.0
	for _, g := range l.Grades {
		if g >= p.MinGrade {
			sum += w
		}
		w *= m.Value
	}
	return (1 - m.Value) * sum
}

func rbpResidual(l *List, _ Policy, m Metric) float64 {
	sum, w := 0.0, 1.0
	for _, g := range l.Grades {
		if g == Unjudged {
			sum += w
		}
		w *= m.Value
	}
	return (1-m.Value)*sum + w
}

func setPrecision(l *List, p Policy, _ Metric) float64 {
	return ratio(float64(relCount(l.Grades, p)), float64(len(l.Grades)))
}

func setRecall(l *List, p Policy, _ Metric) float64 {
	return ratio(float64(relCount(l.Grades, p)), float64(l.NumRel(p)))
}

// fMeasure is (1+b2)PR/(b2 P + R) of hits relevant items among n returned
// and r relevant, 0 when hits is 0.
func fMeasure(hits, n, r int, b2 float64) float64 {
	if hits == 0 {
		return 0
	}
	prec, rec := float64(hits)/float64(n), float64(hits)/float64(r)
	return (1 + b2) * prec * rec / (b2*prec + rec)
}

func setF(l *List, p Policy, m Metric) float64 {
	return fMeasure(relCount(l.Grades, p), len(l.Grades), l.NumRel(p), m.Value*m.Value)
}

func f1(l *List, p Policy, m Metric) float64 {
	return fMeasure(relCount(l.prefix(m.K), p), m.K, l.NumRel(p), 1)
}

func numRet(l *List, _ Policy, _ Metric) float64 { return float64(len(l.Grades)) }

func numRel(l *List, p Policy, _ Metric) float64 { return float64(l.NumRel(p)) }

func numRelRet(l *List, p Policy, _ Metric) float64 { return float64(relCount(l.Grades, p)) }
