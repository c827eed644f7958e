package metric

import "math"

// Aspect is one subtopic an item was judged for, and its grade there.
type Aspect struct {
	Subtopic int
	Grade    int32
}

// Aspects are one query's subtopic judgments, for the diversity metrics.
type Aspects struct {
	N      int        // the query's subtopics
	Ranked [][]Aspect // per rank of List.Grades: the item's subtopic grades
	Judged [][]Aspect // every judged item's, for the ideal ranking
}

// alphaGain is the novelty-discounted gain of an item: sum over the
// subtopics it is relevant to of (1-alpha)^(times the subtopic was seen).
func alphaGain(as []Aspect, seen []int, p Policy, alpha float64) float64 {
	g := 0.0
	for _, a := range as {
		if a.Grade >= p.MinGrade {
			g += math.Pow(1-alpha, float64(seen[a.Subtopic]))
		}
	}
	return g
}

func markSeen(as []Aspect, seen []int, p Policy) {
	for _, a := range as {
		if a.Grade >= p.MinGrade {
			seen[a.Subtopic]++
		}
	}
}

// alphaNDCG is Clarke et al.'s alpha-nDCG@k, normalised as TREC's ndeval
// does by a greedy ideal ranking of the judged items.
func alphaNDCG(l *List, p Policy, m Metric) float64 {
	a := l.Aspects
	if a == nil || a.N == 0 {
		return 0
	}
	k := m.K
	if k == 0 {
		k = max(len(l.Grades), len(a.Judged))
	}
	seen := make([]int, a.N)
	dcg := 0.0
	for i, as := range a.Ranked[:min(k, len(a.Ranked))] {
		dcg += alphaGain(as, seen, p, m.Value) / discount(i)
		markSeen(as, seen, p)
	}
	clear(seen)
	ideal, used := 0.0, make([]bool, len(a.Judged))
	for i := range min(k, len(a.Judged)) {
		best, bestGain := -1, 0.0
		for j, as := range a.Judged {
			if g := alphaGain(as, seen, p, m.Value); !used[j] && g > bestGain {
				best, bestGain = j, g
			}
		}
		if best < 0 {
			break
		}
		used[best] = true
		ideal += bestGain / discount(i)
		markSeen(a.Judged[best], seen, p)
	}
	return ratio(dcg, ideal)
}

// errIA is the intent-aware ERR@k: ERR@k for each subtopic, with that
// subtopic's grades, averaged over the query's subtopics.
func errIA(l *List, p Policy, m Metric) float64 {
	a := l.Aspects
	if a == nil || a.N == 0 || p.MaxGrade <= 0 {
		return 0
	}
	notYet := make([]float64, a.N)
	for s := range notYet {
		notYet[s] = 1
	}
	sum := 0.0
	for i, as := range a.Ranked[:min(len(l.prefix(m.K)), len(a.Ranked))] {
		for _, x := range as {
			if x.Grade <= 0 {
				continue
			}
			r := math.Exp2(float64(x.Grade-p.MaxGrade)) - math.Exp2(-float64(p.MaxGrade))
			sum += notYet[x.Subtopic] * r / float64(i+1)
			notYet[x.Subtopic] *= 1 - r
		}
	}
	return sum / float64(a.N)
}
