package metric

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// GainLevel is the gain a gain map gives one grade.
type GainLevel struct {
	Grade int32
	Gain  float64
}

// GainMap gives chosen grades their own gain, as trec_eval's
// `ndcg.1=1,2=3` and ir_measures' `nDCG(gains={1:1,2:3})` do: a grade the
// map does not list keeps its own value as gain when it is positive
// (trec_eval's default gain), and gains nothing otherwise.
type GainMap []GainLevel

// parseGainMap reads "1=1,2=3" (trec_eval) or "{0:0,1:1,2:3}" / "0:0,1:1"
// (ir_measures). Grades are integers, gains finite numbers, each grade once.
func parseGainMap(s string) (*GainMap, error) {
	body := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "{"), "}")
	if strings.TrimSpace(body) == "" {
		return nil, fmt.Errorf("empty gain map %q: write grade=gain pairs, as in 1=1,2=3", s)
	}
	var m GainMap
	for part := range strings.SplitSeq(body, ",") {
		g, v, ok := strings.Cut(part, "=")
		if !ok {
			g, v, ok = strings.Cut(part, ":")
		}
		grade, err := strconv.ParseInt(strings.TrimSpace(g), 10, 32)
		switch {
		case ok && (errors.Is(err, strconv.ErrRange) || err == nil && grade == Unjudged):
			return nil, fmt.Errorf("gain map %q: grade %s is beyond %d..%d, the grades a judgment holds", s, strings.TrimSpace(g), Unjudged+1, math.MaxInt32)
		case !ok || err != nil:
			return nil, fmt.Errorf("gain map %q: %q is not grade=gain with an integer grade", s, part)
		}
		gain, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsInf(gain, 0) || math.IsNaN(gain) {
			return nil, fmt.Errorf("gain map %q: gain %q is not a finite number", s, v)
		}
		if slices.ContainsFunc(m, func(l GainLevel) bool { return l.Grade == int32(grade) }) {
			return nil, fmt.Errorf("gain map %q: grade %d given twice", s, grade)
		}
		m = append(m, GainLevel{int32(grade), gain})
	}
	slices.SortFunc(m, func(a, b GainLevel) int { return int(a.Grade) - int(b.Grade) })
	return &m, nil
}

// of is the gain of grade g.
func (m GainMap) of(g int32) float64 {
	for _, l := range m {
		if l.Grade == g {
			return l.Gain
		}
	}
	if g > 0 && g != Unjudged {
		return float64(g)
	}
	return 0
}

// format writes the map in trec_eval's (1=1,2=3) or ir_measures' style
// ({1:1,2:3}).
func (m *GainMap) format(trec bool) string {
	parts := make([]string, len(*m))
	sep := ":"
	if trec {
		sep = "="
	}
	for i, l := range *m {
		parts[i] = strconv.Itoa(int(l.Grade)) + sep + strconv.FormatFloat(l.Gain, 'g', -1, 64)
	}
	if trec {
		return strings.Join(parts, ",")
	}
	return "gains={" + strings.Join(parts, ",") + "}"
}

// gainOf is the gain function m uses: its gain map, or the policy's gain.
func (m Metric) gainOf(p Policy) func(int32) float64 {
	if m.Gains != nil {
		return m.Gains.of
	}
	return p.Gain.of
}

// idealDCG is the DCG of the best ordering of every judgment of l, cut at
// k when k > 0, under gain: the judged grades' gains sorted in descending
// order (a gain map may reorder grades).
func idealDCG(l *List, k int, gain func(int32) float64) float64 {
	gains := make([]float64, 0, len(l.Ideal))
	for _, g := range l.Ideal {
		if v := gain(g); v > 0 {
			gains = append(gains, v)
		}
	}
	slices.SortFunc(gains, func(a, b float64) int {
		switch {
		case a > b:
			return -1
		case a < b:
			return 1
		}
		return 0
	})
	if k > 0 && k < len(gains) {
		gains = gains[:k]
	}
	s := 0.0
	for i, v := range gains {
		s += v / discount(i)
	}
	return s
}
