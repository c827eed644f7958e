package treceval

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/internal/trecfile"
)

// paramKind says how a measure reads the parameters after its name
// (`-m name.params`).
type paramKind int

const (
	noParams      paramKind = iota // parameters are ignored
	longCutoffs                    // comma-separated integer cutoffs, one value each ("P_10")
	doubleCutoffs                  // comma-separated fractional cutoffs, one value each ("Rprec_mult_0.20")
	doubleParams                   // comma-separated numbers; one value named "name_params"
	pairParams                     // comma-separated name=number pairs; one value named "name_params"
)

// valueKind says how a measure's values are printed and summarised.
type valueKind int

const (
	meanValue     valueKind = iota // %6.4f per query, mean over queries
	geoMeanValue                   // stored as a log, shown only as the geometric mean
	countValue                     // %ld per query, sum over queries
	relCountValue                  // like countValue; with -c the summary counts every judgment above 0
	numQValue                      // only the summary: the number of queries
	stringValue                    // the relstring: per query only
	runIDValue                     // only the summary: the run's name
)

// measure is one entry of the registry: a trec_eval measure (or family of
// measures sharing parameters).
type measure struct {
	name     string
	doc      string
	params   paramKind
	defaults string // default parameters, in the command-line syntax; "" for none
	value    valueKind
	calc     func(q *queryEval, in *instance) error
}

// pair is one name=value parameter.
type pair struct {
	name  string
	value float64
}

// instance is a measure as requested on the command line, with its
// parameters parsed and its value slots assigned.
type instance struct {
	*measure
	names   []string  // printed name of each value
	cuts    []int64   // longCutoffs, ascending
	fcuts   []float64 // doubleCutoffs, ascending
	nums    []float64 // doubleParams, in the given order
	pairs   []pair    // pairParams, in the given order
	off     int       // index of the first value in a query's values
	givenPs bool      // parameters came from the command line
}

// registry lists every measure in trec_eval's evaluation and print order.
var registry []*measure

// register adds measures to the registry; each family file calls it from init.
func register(ms ...*measure) {
	registry = append(registry, ms...)
}

// order is trec_eval's measure order; families register in any order and
// the registry is sorted by it.
var order = []string{
	"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
	"recip_rank", "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult",
	"utility", "11pt_avg", "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut",
	"map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
	"num_nonrel_judged_ret", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
	"prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
	"prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
	"map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap", "rbp", "rbp_resid", "unj",
}

// nicknames are the names that stand for sets of measures.
var nicknames = map[string][]string{
	"official": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
		"recip_rank", "iprec_at_recall", "P"},
	"all_trec": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
		"recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP",
		"gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
		"ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
		"set_F", "num_nonrel_judged_ret"},
	"set": {"runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
		"set_relative_P", "set_map", "set_F"},
	"all_prefs": {"runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
		"prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret",
		"prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp"},
	"prefs": {"runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
		"prefs_simp", "prefs_pair", "prefs_avgjg"},
	"qrels_jg": {"runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"},
}

// sortRegistry puts the registry in trec_eval's order.
func sortRegistry() {
	slices.SortFunc(registry, func(a, b *measure) int {
		return slices.Index(order, a.name) - slices.Index(order, b.name)
	})
}

func lookup(name string) *measure {
	for _, m := range registry {
		if m.name == name {
			return m
		}
	}
	return nil
}

// request is the set of measures asked for on the command line and the
// parameters given for them (the first parameters for a name win).
type request struct {
	marked map[string]bool
	params map[string]string
}

// mark records one -m argument: a measure or nickname, optionally followed
// by '.' and parameters. It fails as trec_eval does: an empty parameter list
// or an unknown name.
func (r *request) mark(arg string) error {
	name, params, hasParams := strings.Cut(arg, ".")
	if hasParams {
		if params == "" {
			return usageError{fmt.Sprintf("illegal measure '%s': a '.' must be followed by parameters, as in P.5,10", name)}
		}
		if _, seen := r.params[name]; !seen {
			r.params[name] = params
		}
	}
	names, ok := nicknames[name]
	if !ok {
		names = []string{name}
	}
	for _, n := range names {
		if lookup(n) == nil {
			return usageError{fmt.Sprintf("illegal measure '%s': no such measure (see -h for the list, or use -m all_trec)", name)}
		}
		r.marked[n] = true
	}
	return nil
}

// instances builds the requested measures in registry order, assigning each
// its value slots.
func (r *request) instances() ([]*instance, int, error) {
	var out []*instance
	off := 0
	for _, m := range registry {
		if !r.marked[m.name] {
			continue
		}
		in := &instance{measure: m, off: off}
		params, given := r.params[m.name]
		if !given || m.params == noParams {
			params = m.defaults
		}
		in.givenPs = given
		if err := in.parse(params); err != nil {
			return nil, 0, fmt.Errorf("cannot initialize measure '%s': %v", m.name, err)
		}
		off += len(in.names)
		out = append(out, in)
	}
	return out, off, nil
}

// parse reads the parameters of one instance and names its values.
func (in *instance) parse(params string) error {
	parts := strings.Split(params, ",")
	switch in.params {
	case noParams:
		in.names = []string{in.name}
	case longCutoffs:
		return in.parseLongCutoffs(parts)
	case doubleCutoffs:
		return in.parseDoubleCutoffs(parts)
	case doubleParams:
		for _, p := range parts {
			in.nums = append(in.nums, trecfile.Atof([]byte(p)))
		}
		in.names = []string{in.suffixed(params)}
	case pairParams:
		if err := in.parsePairs(params); err != nil {
			return err
		}
		in.names = []string{in.suffixed(params)}
	}
	return nil
}

// suffixed names a single-valued measure whose parameters came from the
// command line after them, as trec_eval does ("utility_2,-1,0,0").
func (in *instance) suffixed(params string) string {
	if in.givenPs {
		return in.name + "_" + params
	}
	return in.name
}

func (in *instance) parseLongCutoffs(parts []string) error {
	for _, p := range parts {
		in.cuts = append(in.cuts, trecfile.Atol([]byte(p)))
	}
	slices.Sort(in.cuts)
	if in.cuts[0] <= 0 {
		return fmt.Errorf("cutoff %d: cutoffs must be positive integers", in.cuts[0])
	}
	for i, c := range in.cuts {
		if i > 0 && c == in.cuts[i-1] {
			return fmt.Errorf("cutoff %d given twice", c)
		}
		in.names = append(in.names, in.name+"_"+strconv.FormatInt(c, 10))
	}
	return nil
}

func (in *instance) parseDoubleCutoffs(parts []string) error {
	for _, p := range parts {
		in.fcuts = append(in.fcuts, trecfile.Atof([]byte(p)))
	}
	slices.SortFunc(in.fcuts, func(a, b float64) int {
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	})
	for i, c := range in.fcuts {
		if i > 0 && c == in.fcuts[i-1] {
			return fmt.Errorf("cutoff %v given twice", c)
		}
		in.names = append(in.names, in.name+"_"+strconv.FormatFloat(c, 'f', 2, 64))
	}
	return nil
}

// parsePairs reads name=value,name=value; like trec_eval it requires '=' and
// ',' to alternate, starting with '=' and ending after an '='.
func (in *instance) parsePairs(params string) error {
	last := byte(',')
	for i := 0; i < len(params); i++ {
		c := params[i]
		if c != ',' && c != '=' {
			continue
		}
		if c == last {
			last = ','
			break
		}
		last = c
	}
	if last != '=' && params != "" {
		return fmt.Errorf("malformed pair parameters in '%s': write name=value pairs separated by commas, as in 1=1,2=3", params)
	}
	if params == "" {
		return nil
	}
	for _, p := range strings.Split(params, ",") {
		name, value, _ := strings.Cut(p, "=")
		in.pairs = append(in.pairs, pair{name, trecfile.Atof([]byte(value))})
	}
	return nil
}
