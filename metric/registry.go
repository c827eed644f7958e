package metric

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Families lists every metric family in the order `ragstat metrics` prints
// them and in which results are laid out.
var Families = []*Family{
	{Name: "R", Aliases: []string{"recall"}, Cutoff: OptionalCutoff,
		Formula: "R@k = |relevant items in the top k| / |relevant judgments of the query|; missing evidence stays in the denominator",
		Reads:   []string{"min-grade"}, compute: recall},
	{Name: "P", Aliases: []string{"precision"}, Cutoff: NeedsCutoff,
		Formula: "P@k = |relevant items in the top k| / k (a short list is not padded: the divisor stays k)",
		Reads:   []string{"min-grade"}, compute: precision},
	{Name: "RR", Aliases: []string{"recip_rank", "mrr"}, Cutoff: OptionalCutoff,
		Formula: "RR@k = 1 / rank of the first relevant item within the top k, 0 if none; its mean is MRR@k",
		Reads:   []string{"min-grade"}, compute: reciprocalRank},
	{Name: "nDCG", Aliases: []string{"ndcg", "ndcg_cut"}, Cutoff: OptionalCutoff,
		Formula: "nDCG@k = DCG@k / IDCG@k, DCG@k = sum over ranks i<=k of gain(grade_i) / log2(i+1), gain 2^g-1 (exp) or g (linear); IDCG@k from all judgments of the query sorted by grade",
		Reads:   []string{"gain"}, compute: ndcg},
	{Name: "AP", Aliases: []string{"map", "map_cut"}, Cutoff: OptionalCutoff,
		Formula: "AP@k = sum over relevant items at rank i<=k of P@i, divided by |relevant judgments|; its mean is MAP",
		Reads:   []string{"min-grade"}, compute: averagePrecision},
	{Name: "R-prec", Aliases: []string{"rprec"}, Cutoff: NoCutoff,
		Formula: "R-prec = P@R where R = |relevant judgments of the query|",
		Reads:   []string{"min-grade"}, compute: rPrecision},
	{Name: "Success", Aliases: []string{"success"}, Cutoff: NeedsCutoff,
		Formula: "Success@k = 1 if any relevant item is in the top k, else 0",
		Reads:   []string{"min-grade"}, compute: success},
	{Name: "Judged", Aliases: []string{"judged"}, Cutoff: NeedsCutoff,
		Formula: "Judged@k = |judged items in the top k| / k: how much of what was shown the judgments can speak for",
		Reads:   []string{}, compute: judged},
	{Name: "bpref", Aliases: []string{"bpref"}, Cutoff: NoCutoff,
		Formula: "bpref = (1/R) * sum over relevant items r of 1 - min(n_r, R) / min(R, N), n_r = judged non-relevant items above r, N = judged non-relevant items; unjudged items are ignored",
		Reads:   []string{"min-grade"}, compute: bpref},
	{Name: "SetP", Aliases: []string{"set_p"}, Cutoff: NoCutoff,
		Formula: "SetP = |relevant items returned| / |items returned|, 0 for an empty list: the precision of the whole list, e.g. of a packed context",
		Reads:   []string{"min-grade"}, compute: setPrecision},
	{Name: "NumRet", Aliases: []string{"num_ret"}, Cutoff: NoCutoff, Count: true,
		Formula: "NumRet = number of items returned", compute: numRet},
	{Name: "NumRel", Aliases: []string{"num_rel"}, Cutoff: NoCutoff, Count: true,
		Formula: "NumRel = number of judged items at or above the relevance threshold",
		Reads:   []string{"min-grade"}, compute: numRel},
	{Name: "NumRelRet", Aliases: []string{"num_rel_ret"}, Cutoff: NoCutoff, Count: true,
		Formula: "NumRelRet = number of relevant items returned, anywhere in the list",
		Reads:   []string{"min-grade"}, compute: numRelRet},
}

func recall(l *List, p Policy, k int) float64 {
	return float64(relCount(l.prefix(k), p)) / float64(l.NumRel(p))
}

func precision(l *List, p Policy, k int) float64 {
	return float64(relCount(l.prefix(k), p)) / float64(k)
}

func reciprocalRank(l *List, p Policy, k int) float64 {
	for i, g := range l.prefix(k) {
		if g >= p.MinGrade {
			return 1 / float64(i+1)
		}
	}
	return 0
}

func ndcg(l *List, p Policy, k int) float64 {
	ideal := l.Ideal
	if k > 0 && k < len(ideal) {
		ideal = ideal[:k]
	}
	best := dcg(ideal, p.Gain)
	if best == 0 {
		return 0
	}
	return dcg(l.prefix(k), p.Gain) / best
}

func averagePrecision(l *List, p Policy, k int) float64 {
	sum, hits := 0.0, 0
	for i, g := range l.prefix(k) {
		if g >= p.MinGrade {
			hits++
			sum += float64(hits) / float64(i+1)
		}
	}
	return sum / float64(l.NumRel(p))
}

func rPrecision(l *List, p Policy, _ int) float64 {
	r := l.NumRel(p)
	return float64(relCount(l.prefix(r), p)) / float64(r)
}

func success(l *List, p Policy, k int) float64 {
	if relCount(l.prefix(k), p) > 0 {
		return 1
	}
	return 0
}

func judged(l *List, _ Policy, k int) float64 {
	n := 0
	for _, g := range l.prefix(k) {
		if g != Unjudged {
			n++
		}
	}
	return float64(n) / float64(k)
}

func bpref(l *List, p Policy, _ int) float64 {
	r, n := l.NumRel(p), l.numJudgedNonRel(p)
	sum, above := 0.0, 0
	for _, g := range l.Grades {
		switch {
		case g == Unjudged:
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
	return sum / float64(r)
}

func setPrecision(l *List, p Policy, _ int) float64 {
	if len(l.Grades) == 0 {
		return 0
	}
	return float64(relCount(l.Grades, p)) / float64(len(l.Grades))
}

func numRet(l *List, _ Policy, _ int) float64 { return float64(len(l.Grades)) }

func numRel(l *List, p Policy, _ int) float64 { return float64(l.NumRel(p)) }

func numRelRet(l *List, p Policy, _ int) float64 { return float64(relCount(l.Grades, p)) }

var byName = func() map[string]*Family {
	m := map[string]*Family{}
	for _, f := range Families {
		m[strings.ToLower(f.Name)] = f
		for _, a := range f.Aliases {
			m[strings.ToLower(a)] = f
		}
	}
	return m
}()

var trecCutoff = regexp.MustCompile(`^(.+)_([0-9]+)$`)

// Parse reads one metric name as a user writes it: ir_measures style
// ("nDCG@10", case-insensitive) or trec_eval style ("ndcg_cut.10",
// "ndcg_cut_10", "P.5,10", "recip_rank", "map"). A trec_eval parameter list
// gives one Metric per cutoff.
func Parse(name string) ([]Metric, error) {
	s := strings.TrimSpace(name)
	if fam, k, ok := strings.Cut(s, "@"); ok {
		m, err := at(fam, k, name)
		return []Metric{m}, err
	}
	if fam, ks, ok := strings.Cut(s, "."); ok {
		var out []Metric
		for k := range strings.SplitSeq(ks, ",") {
			m, err := at(fam, k, name)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		}
		return out, nil
	}
	if f := byName[strings.ToLower(s)]; f != nil {
		m, err := f.at(0, name)
		return []Metric{m}, err
	}
	if sub := trecCutoff.FindStringSubmatch(s); sub != nil {
		m, err := at(sub[1], sub[2], name)
		return []Metric{m}, err
	}
	return nil, unknown(name)
}

func unknown(name string) error {
	return fmt.Errorf("unknown metric %q (run `ragstat metrics` for the list)", name)
}

func at(family, k, name string) (Metric, error) {
	f := byName[strings.ToLower(strings.TrimSpace(family))]
	if f == nil {
		return Metric{}, unknown(name)
	}
	n, err := strconv.Atoi(strings.TrimSpace(k))
	if err != nil || n <= 0 {
		return Metric{}, fmt.Errorf("metric %q: cutoff %q is not a positive integer", name, k)
	}
	return f.at(n, name)
}

func (f *Family) at(k int, name string) (Metric, error) {
	switch {
	case k > 0 && f.Cutoff == NoCutoff:
		return Metric{}, fmt.Errorf("metric %q: %s takes no cutoff", name, f.Name)
	case k == 0 && f.Cutoff == NeedsCutoff:
		return Metric{}, fmt.Errorf("metric %q: %s needs a cutoff, as in %s@10", name, f.Name, f.Name)
	}
	return Metric{Family: f, K: k}, nil
}

// ParseAll parses every name and drops exact repeats, keeping first-seen order.
func ParseAll(names []string) ([]Metric, error) {
	var out []Metric
	for _, n := range names {
		ms, err := Parse(n)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			if !slices.ContainsFunc(out, func(o Metric) bool { return o.Name() == m.Name() }) {
				out = append(out, m)
			}
		}
	}
	return out, nil
}
