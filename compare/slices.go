package compare

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/stats"
)

// SliceResult is the comparison of every candidate and metric on one slice.
type SliceResult struct {
	Name string `json:"name"`
	N    int    `json:"n"`
	// TooSmall marks a slice with fewer queries than the minimum: its
	// numbers are shown, but it is not tested and raises no alert.
	TooSmall    bool         `json:"too_small"`
	Comparisons []Comparison `json:"comparisons"`
}

// Alert is a slice where the candidate is significantly worse after the
// correction (Stat.Regressed): a regression an average over the whole set
// can hide.
type Alert struct {
	Candidate string `json:"candidate"`
	Metric    string `json:"metric"`
	Slice     string `json:"slice"`
	Message   string `json:"message"`
}

// Slice returns the slice called name, or nil.
func (r *Result) Slice(name string) *SliceResult {
	for i := range r.Slices {
		if r.Slices[i].Name == name {
			return &r.Slices[i]
		}
	}
	return nil
}

// compareSlices compares every slice, then corrects the p-values of every
// slice comparison that is not too small as one family.
func (r *Result) compareSlices(pairs []stats.Pair, opt Options) error {
	for _, s := range opt.Slices {
		sr := SliceResult{Name: s.Name, N: len(s.Queries), TooSmall: len(s.Queries) < opt.MinSlice}
		if sr.N > 0 {
			cs, err := stats.CompareAll(stats.Subset(pairs, s.Queries), opt.Stats)
			if err != nil {
				return fmt.Errorf("slice %s: %w", s.Name, err)
			}
			sr.Comparisons = r.comparisons(cs)
		}
		r.Slices = append(r.Slices, sr)
	}
	var family []*Stat
	for i := range r.Slices {
		for j := range r.Slices[i].Comparisons {
			if !r.Slices[i].TooSmall {
				family = append(family, &r.Slices[i].Comparisons[j].Stat)
			}
		}
	}
	return r.correct(family, opt.Correction)
}

// alerts lists every slice comparison, not too small, where the candidate
// is significantly worse after the correction, saying what the whole set
// did meanwhile.
func (r *Result) alerts() []Alert {
	var out []Alert
	pct := strconv.FormatFloat(100*r.Settings.Level, 'g', -1, 64) + "%"
	for _, s := range r.Slices {
		for _, c := range s.Comparisons {
			if s.TooSmall || !c.Regressed() {
				continue
			}
			whole := r.Comparison(c.Candidate, c.Metric)
			msg := fmt.Sprintf("%s regresses on %s in slice %s (n=%d): %+.4f, %s CI [%+.4f, %+.4f], p adj %.4f, while the whole set %s (%+.4f)",
				c.Candidate, c.Metric, s.Name, s.N, c.MeanDiff, pct, c.CILow, c.CIHigh, *c.PAdjusted, trend(whole.MeanDiff), whole.MeanDiff)
			out = append(out, Alert{Candidate: c.Candidate, Metric: c.Metric, Slice: s.Name, Message: msg})
		}
	}
	return out
}

// disagreements says, in one note, where a comparison's bootstrap
// interval and its corrected test point different ways: the interval
// excludes zero while the corrected p is not significant (the interval is
// not corrected for the number of comparisons), or the reverse.
// Significance follows the corrected test. Slices too small to test are
// left out; at most five comparisons are named, then a count.
func (r *Result) disagreements() []string {
	var items []string
	check := func(scope string, c Comparison) {
		excludes := c.CILow > 0 || c.CIHigh < 0
		if c.PAdjusted == nil || excludes == c.Significant {
			return
		}
		verdict := "not significant"
		if c.Significant {
			verdict = "significant"
		}
		items = append(items, fmt.Sprintf("%s %s (%s) CI [%+.4f, %+.4f], p adj %.4f %s", c.Candidate, c.Metric, scope, c.CILow, c.CIHigh, *c.PAdjusted, verdict))
	}
	for _, c := range r.Comparisons {
		check("whole set", c)
	}
	for _, s := range r.Slices {
		for _, c := range s.Comparisons {
			if !s.TooSmall {
				check("slice "+s.Name, c)
			}
		}
	}
	if len(items) == 0 {
		return nil
	}
	n := len(items)
	if n > 5 {
		items = append(items[:5], fmt.Sprintf("and %d more", n-5))
	}
	return []string{fmt.Sprintf("the interval and the corrected test disagree on %d comparison(s); significance, alerts and the gate follow the corrected test "+
		"(an interval is not corrected for the number of comparisons): %s", n, strings.Join(items, "; "))}
}

func trend(d float64) string {
	switch {
	case d > 0:
		return "IMPROVES"
	case d < 0:
		return "also regresses"
	}
	return "does not move"
}
