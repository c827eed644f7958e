// Package analysis holds the analyses of the evidence boundary that sit
// beside the ranking metrics: how well a stage's scores are calibrated to
// graded relevance, how much of a context is spent on repeats, where the
// evidence sits in the context, what a query costs, how small a difference
// a query set can resolve, and which stale items travel furthest. Each
// analysis is a pure function of values already read: it never opens a
// file and never pools what must stay apart (scores of different systems
// or stages).
package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Scored is one item of a ranked list with the score its stage gave it and
// its judged grade (Judged false: not judged).
type Scored struct {
	Score  float64
	Grade  int
	Judged bool
}

// List is one query's ranked list at one stage of one system.
type List struct {
	Query string
	Items []Scored
}

// Bin is one row of a reliability table: the judged items whose score fell
// in [Low, High), their mean score, and the share of them that are
// relevant.
type Bin struct {
	Low, High float64
	Count     int
	MeanScore float64
	Relevant  float64 // share relevant (grade >= the threshold)
	MeanGrade float64
}

// Calibration is how a stage's scores relate to graded relevance.
type Calibration struct {
	Judged int   // judged items scored
	Bins   []Bin // equal-width bins over the observed score range
	// ECE is the expected calibration error: the count-weighted mean of
	// |mean score - share relevant| over the bins. It is defined only when
	// every score lies in [0, 1] (Probabilistic); otherwise NaN.
	ECE           float64
	Probabilistic bool
	// Threshold is the lowest score cut that keeps the target (see
	// Target); ThresholdOK false when no cut reaches it.
	Threshold   float64
	ThresholdOK bool
	// Kept precision and recall at the threshold, over every query, and
	// the queries whose whole list falls below it (left empty).
	Precision, Recall float64
	EmptyQueries      int
}

// Target is what a score threshold must keep: a precision or a recall.
type Target struct {
	Precision float64 // keep items scored >= t with precision >= Precision (0: not asked)
	Recall    float64 // keep items scored >= t with recall >= Recall (0: not asked)
}

// Calibrate builds the reliability table of one stage's lists (one system:
// never pass lists of different systems or stages together) with bins
// equal-width bins, items relevant at minGrade, and the threshold for
// target. Unjudged items are left out of every count.
func Calibrate(lists []List, minGrade, bins int, target Target) (Calibration, error) {
	if bins < 1 {
		return Calibration{}, fmt.Errorf("analysis: %d bins: give 1 or more", bins)
	}
	if target.Precision < 0 || target.Precision > 1 || target.Recall < 0 || target.Recall > 1 {
		return Calibration{}, fmt.Errorf("analysis: target precision and recall lie in [0, 1]")
	}
	var c Calibration
	lo, hi := math.Inf(1), math.Inf(-1)
	c.Probabilistic = true
	type judged struct {
		score float64
		grade int
		query int
	}
	var items []judged
	for qi, l := range lists {
		for _, it := range l.Items {
			if math.IsNaN(it.Score) || math.IsInf(it.Score, 0) {
				return Calibration{}, fmt.Errorf("analysis: query %s: a score that is not finite", l.Query)
			}
			if !it.Judged {
				continue
			}
			items = append(items, judged{it.Score, it.Grade, qi})
			lo, hi = min(lo, it.Score), max(hi, it.Score)
			c.Probabilistic = c.Probabilistic && it.Score >= 0 && it.Score <= 1
		}
	}
	c.Judged = len(items)
	c.ECE = math.NaN()
	if len(items) == 0 {
		return c, nil
	}
	width := (hi - lo) / float64(bins)
	c.Bins = make([]Bin, bins)
	for i := range c.Bins {
		c.Bins[i].Low, c.Bins[i].High = lo+float64(i)*width, lo+float64(i+1)*width
	}
	c.Bins[bins-1].High = hi
	for _, it := range items {
		i := bins - 1
		if width > 0 {
			i = min(int((it.score-lo)/width), bins-1)
		}
		b := &c.Bins[i]
		b.Count++
		b.MeanScore += it.score
		b.MeanGrade += float64(it.grade)
		if it.grade >= minGrade {
			b.Relevant++
		}
	}
	ece := 0.0
	for i := range c.Bins {
		b := &c.Bins[i]
		if b.Count == 0 {
			continue
		}
		n := float64(b.Count)
		b.MeanScore /= n
		b.MeanGrade /= n
		b.Relevant /= n
		ece += n / float64(len(items)) * math.Abs(b.MeanScore-b.Relevant)
	}
	if c.Probabilistic {
		c.ECE = ece
	}
	// The threshold: walk the cuts from the highest score down, keeping
	// items scored at or above the cut, until the target holds.
	slices.SortFunc(items, func(a, b judged) int { return cmp.Compare(b.score, a.score) })
	totalRel := 0
	for _, it := range items {
		if it.grade >= minGrade {
			totalRel++
		}
	}
	kept, rel := 0, 0
	best := -1
	for i := 0; i < len(items); {
		j := i
		for j < len(items) && items[j].score == items[i].score {
			kept++
			if items[j].grade >= minGrade {
				rel++
			}
			j++
		}
		prec := float64(rel) / float64(kept)
		recall := 0.0
		if totalRel > 0 {
			recall = float64(rel) / float64(totalRel)
		}
		ok := (target.Precision == 0 || prec >= target.Precision) && (target.Recall == 0 || recall >= target.Recall)
		if ok {
			best = i
			c.Precision, c.Recall = prec, recall
			if target.Recall > 0 {
				break // the highest cut reaching the recall
			}
		}
		i = j
	}
	if best < 0 || target == (Target{}) {
		return c, nil
	}
	c.Threshold, c.ThresholdOK = items[best].score, true
	for _, l := range lists {
		if !slices.ContainsFunc(l.Items, func(it Scored) bool { return it.Score >= c.Threshold }) {
			c.EmptyQueries++
		}
	}
	return c, nil
}

// ParseTarget reads a target as precision=P or recall=R, both in (0, 1]
// (the two joined by a comma ask for both); "" is no target.
func ParseTarget(s string) (Target, error) {
	var t Target
	if s == "" {
		return t, nil
	}
	for part := range strings.SplitSeq(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		v, err := strconv.ParseFloat(val, 64)
		if !ok || err != nil || !(v > 0 && v <= 1) {
			return Target{}, fmt.Errorf("target %q: give precision=P or recall=R with a value in (0, 1]", part)
		}
		switch name {
		case "precision":
			t.Precision = v
		case "recall":
			t.Recall = v
		default:
			return Target{}, fmt.Errorf("target %q: give precision=P or recall=R", part)
		}
	}
	return t, nil
}
