package metric

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Parse reads one metric name as a user writes it, with ragstat's own
// meaning unless the name is another tool's:
//
//   - ragstat and ir_measures style, case-insensitive: "nDCG@10", "AP",
//     "RBP(p=0.9)", "SetF(beta=0.5)", "nDCG(gains={0:0,1:1,2:3})@10";
//   - trec_eval style, case as trec_eval spells it: "ndcg_cut.10",
//     "ndcg_cut_10", "P.5,10" (one Metric per cutoff), "P" (trec_eval's
//     default cutoffs), "map", "recip_rank", "ndcg.1=1,2=3",
//     "iprec_at_recall.0.10", "set_F.0.5", "rbp.p=0.8";
//   - ranx names: "ndcg_burges@10", "hit_rate@5", "hits@5", "f1@10",
//     "r-precision".
func Parse(name string) ([]Metric, error) { return ParseLike(name, "") }

// ParseLike is Parse where like names the tool whose meaning a name shared
// with ragstat takes: under "ranx", ndcg@k, dcg@k, recall@k, mrr@k, map@k
// and precision@k are ranx's measures.
func ParseLike(name, like string) ([]Metric, error) {
	s := strings.TrimSpace(name)
	if s == "" {
		return nil, unknown(name)
	}
	if left, k, ok := cutLast(s, "@"); ok {
		fam, params := splitParams(left)
		f := lookupAt(fam, like)
		if f == nil {
			return nil, unknown(name)
		}
		n, err := parseCutoff(k, name)
		if err != nil {
			return nil, err
		}
		return one(f.with(n, params, name))
	}
	if f := exact(trecEval, s); f != nil {
		if f.Expand != "" {
			return f.expand(f.Expand, name)
		}
		return one(f.with(0, "", name))
	}
	if f := exact(ranx, s); f != nil && !f.Shared {
		return one(f.with(0, "", name))
	}
	if fam, params := splitParams(s); foldLookup(own, fam) != nil {
		return one(foldLookup(own, fam).with(0, params, name))
	}
	if fam, params, ok := strings.Cut(s, "."); ok && exact(trecEval, fam) != nil {
		return exact(trecEval, fam).expand(params, name)
	}
	if f, rest := trecPrinted(s); f != nil {
		if f.Param == NoParam {
			return one(f.at(rest, name))
		}
		return one(f.with(0, rest, name))
	}
	if fam, params, ok := strings.Cut(s, "."); ok {
		f := exact(trecEval, fam)
		if f == nil {
			f = foldLookup(trecEval, fam)
		}
		if f == nil {
			return nil, unknown(name)
		}
		return f.expand(params, name)
	}
	if f := foldLookup(trecEval, s); f != nil {
		return ParseLike(f.Name, like)
	}
	return nil, unknown(name)
}

// one wraps a single Metric, or its error.
func one(m Metric, err error) ([]Metric, error) {
	if err != nil {
		return nil, err
	}
	return []Metric{m}, nil
}

func unknown(name string) error {
	if near := suggest(name); near != "" {
		return fmt.Errorf("unknown metric %q: did you mean %q? (run `ragstat metrics` for the list)", name, near)
	}
	return fmt.Errorf("unknown metric %q (run `ragstat metrics` for the list)", name)
}

// suggest returns name with its family replaced by the nearest known one
// (case aside, at most a third of its letters edited, and fewer than it
// has), or "" when none is that near.
func suggest(name string) string {
	s := strings.TrimSpace(name)
	fam, rest := s, ""
	if i := strings.IndexAny(s, "@.("); i > 0 {
		fam, rest = s[:i], s[i:]
	}
	best, bestD := "", max(1, len(fam)/3)+1
	for _, fams := range [][]*Family{own, trecEval, ranx} {
		for _, f := range fams {
			for _, n := range append([]string{f.Name}, f.Aliases...) {
				if d := editDistance(strings.ToLower(fam), strings.ToLower(n)); d < bestD && d < len(fam) {
					best, bestD = n, d
				}
			}
		}
	}
	if best == "" || strings.EqualFold(best, fam) {
		return ""
	}
	return best + rest
}

// editDistance counts the insertions, deletions, substitutions and
// swaps of neighbours that turn a into b.
func editDistance(a, b string) int {
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// cutLast splits s around the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// splitParams splits "RBP(p=0.9)" into "RBP" and "p=0.9".
func splitParams(s string) (string, string) {
	if i := strings.IndexByte(s, '('); i > 0 && strings.HasSuffix(s, ")") {
		return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1 : len(s)-1])
	}
	return s, ""
}

func exact(fams []*Family, name string) *Family {
	for _, f := range fams {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func foldLookup(fams []*Family, name string) *Family {
	for _, f := range fams {
		if strings.EqualFold(f.Name, name) || slices.ContainsFunc(f.Aliases, func(a string) bool { return strings.EqualFold(a, name) }) {
			return f
		}
	}
	return nil
}

// lookupAt resolves the family of a name written with "@k".
func lookupAt(fam, like string) *Family {
	for _, f := range ranx {
		if f.Name == fam && (!f.Shared || like == string(Ranx)) {
			return f
		}
	}
	return foldLookup(own, fam)
}

// trecPrinted recognises trec_eval's printed names, "ndcg_cut_10",
// "iprec_at_recall_0.10", "set_F_0.5": the longest trec_eval family name
// followed by "_" and its parameter.
func trecPrinted(s string) (*Family, string) {
	var best *Family
	for _, f := range trecEval {
		if (f.Cutoff == NeedsCutoff || f.Param != NoParam) && strings.HasPrefix(s, f.Name+"_") && (best == nil || len(f.Name) > len(best.Name)) {
			best = f
		}
	}
	if best == nil {
		return nil, ""
	}
	return best, s[len(best.Name)+1:]
}

// expand reads trec_eval's parameter list after the dot: cutoffs and
// recall levels give one Metric each, other parameters one Metric.
func (f *Family) expand(params, name string) ([]Metric, error) {
	if f.Cutoff != NeedsCutoff && f.Param != Level {
		return one(f.with(0, params, name))
	}
	var out []Metric
	for p := range strings.SplitSeq(params, ",") {
		var m Metric
		var err error
		if f.Param == Level {
			m, err = f.with(0, p, name)
		} else {
			m, err = f.at(p, name)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// at is f at the cutoff written k.
func (f *Family) at(k, name string) (Metric, error) {
	n, err := parseCutoff(k, name)
	if err != nil {
		return Metric{}, err
	}
	return f.with(n, "", name)
}

// parseCutoff reads the cutoff k of the metric name: a positive integer
// an int holds.
func parseCutoff(k, name string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(k))
	switch {
	case errors.Is(err, strconv.ErrRange) && !strings.HasPrefix(strings.TrimSpace(k), "-"):
		return 0, fmt.Errorf("metric %q: cutoff %q is beyond %d, the largest cutoff", name, k, math.MaxInt)
	case err != nil || n <= 0:
		return 0, fmt.Errorf("metric %q: cutoff %q is not a positive integer", name, k)
	}
	return n, nil
}

// with is f at cutoff k (0: none) with its parameter read from params.
func (f *Family) with(k int, params, name string) (Metric, error) {
	switch {
	case k > 0 && f.Cutoff == NoCutoff:
		return Metric{}, fmt.Errorf("metric %q: %s takes no cutoff", name, f.Name)
	case k == 0 && f.Cutoff == NeedsCutoff:
		return Metric{}, fmt.Errorf("metric %q: %s needs a cutoff, as in %s", name, f.Name, f.example())
	}
	m := Metric{Family: f, K: k, Value: f.Default}
	if params == "" {
		if f.Param == Level {
			return Metric{}, fmt.Errorf("metric %q: %s needs a recall level, as in %s.0.5", name, f.Name, f.Name)
		}
		return m, nil
	}
	trec := f.Origin == TrecEval
	bad := func(what string) (Metric, error) {
		return Metric{}, fmt.Errorf("metric %q: %s", name, what)
	}
	value := func(key string) (float64, bool) {
		v := params
		if key != "" {
			k, rest, ok := strings.Cut(params, "=")
			if !ok || !strings.EqualFold(strings.TrimSpace(k), key) {
				return 0, false
			}
			v = rest
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return x, err == nil && !math.IsNaN(x) && !math.IsInf(x, 0)
	}
	m.given = true
	var ok bool
	switch f.Param {
	case NoParam:
		return bad(fmt.Sprintf("%s takes no parameters", f.Name))
	case GainsMap:
		body := params
		if !trec {
			key, rest, found := strings.Cut(params, "=")
			if !found || !strings.EqualFold(strings.TrimSpace(key), "gains") {
				return bad("write the gain map as gains={0:0,1:1,2:3}")
			}
			body = rest
		}
		g, err := parseGainMap(body)
		if err != nil {
			return bad(err.Error())
		}
		m.Gains = g
		return m, nil
	case Persist:
		if m.Value, ok = value("p"); !ok || m.Value <= 0 || m.Value >= 1 {
			return bad(fmt.Sprintf("the persistence is written p=x with 0 < x < 1, as in %s", f.example()))
		}
	case Beta:
		key := "beta"
		if trec {
			key = ""
		}
		if m.Value, ok = value(key); !ok || m.Value < 0 {
			return bad(fmt.Sprintf("the weight is a number of at least 0, as in %s", f.example()))
		}
	case Alpha:
		if m.Value, ok = value("alpha"); !ok || m.Value < 0 || m.Value > 1 {
			return bad("alpha is written alpha=x with 0 <= x <= 1, as in alpha-nDCG(alpha=0.5)@10")
		}
	case Level:
		if m.Value, ok = value(""); !ok || m.Value < 0 || m.Value > 1 {
			return bad("a recall level is a number from 0 to 1, as in iprec_at_recall.0.5")
		}
	}
	return m, nil
}

// example writes one valid name of f.
func (f *Family) example() string {
	switch {
	case f.Origin == TrecEval && f.Param == Persist:
		return f.Name + ".p=0.8"
	case f.Origin == TrecEval && f.Param == Beta:
		return f.Name + ".0.5"
	case f.Origin == TrecEval:
		return f.Name + ".10"
	case f.Param == Persist:
		return f.Name + "(p=0.8)"
	case f.Param == Beta:
		return f.Name + "(beta=0.5)"
	}
	return f.Name + "@10"
}

// ParseAll parses every name and drops exact repeats, keeping first-seen order.
func ParseAll(names []string) ([]Metric, error) { return ParseAllLike(names, "") }

// ParseAllLike is ParseAll with ParseLike's meaning of shared names.
func ParseAllLike(names []string, like string) ([]Metric, error) {
	var out []Metric
	for _, n := range names {
		ms, err := ParseLike(n, like)
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
