// Package pool builds TREC-style depth-k assessment pools: the union of the
// top k items of every system's ranked list for each query, less what is
// already judged. Each queue entry remembers which systems contributed it,
// and the queue is put in a seeded shuffle so an assessor sees neither the
// rank nor the system. Pooling is pure: rankings and a judged test in, a
// queue and per-system statistics out (Build). The queue file format (JSON
// Lines) is read and written here too, and a Request is the whole of
// `ragstat pool`: files in, the queue's file and a summary out.
package pool

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/topics"
)

// Ranking is one ranked list of one system for one query. A system may give
// several lists for a query (the stages of a trace); its contribution is the
// union of their top k.
type Ranking struct {
	System string
	Query  string
	Items  []string // rank order, best first
}

// Judged reports whether (query, item) already has a judgment.
type Judged func(query, item string) bool

// Options say how deep to pool and how to shuffle.
type Options struct {
	Depth  int    // k: how many of each list's top items are pooled; at least 1
	Seed   uint64 // the shuffle's seed: the same input and seed give the same queue
	Judged Judged // nil when nothing is judged yet
	// Invalid reports an item that is not acceptable evidence for the
	// query (out of its scopes, not in effect at its date): it is neither
	// pooled nor counted in a system's top k; nil when all are valid.
	Invalid func(query, item string) bool
}

// InvalidEvidence reports an item that is not acceptable evidence for a
// query, for Options.Invalid: out of the topic's scopes or not in effect
// at its as_of, by the corpus's metadata. An item or query either file
// lacks is valid.
func InvalidEvidence(cs *corpus.Corpus, ts *topics.Set) func(query, item string) bool {
	return func(query, item string) bool {
		t, c := ts.Get(query), cs.Get(item)
		if t == nil || c == nil {
			return false
		}
		out, stale := c.Meta.Validity(t.Scopes, t.AsOf.Time)
		return out || stale
	}
}

// Entry is one (query, item) pair to judge.
type Entry struct {
	Query   string   `json:"query"`
	Item    string   `json:"item"`
	Systems []string `json:"systems"` // who contributed it, sorted; not shown to the assessor
	Order   int      `json:"order"`   // position in the queue, from 1
	Line    int      `json:"-"`       // where it was read (ReadQueue)
}

// SystemStats describe one system's part in the pool.
type SystemStats struct {
	System  string
	Queries int // queries it has at least one list for
	TopK    int // distinct (query, item) pairs in its top k
	Judged  int // of those, already judged before this pool
	Pooled  int // of those, in the queue (TopK = Judged + Pooled)
	Unique  int // queue entries no other system contributed
	// Invalid is the number of distinct pairs in its top k that are not
	// acceptable evidence for their query, left out of TopK and the pool.
	Invalid int
	// Deeper is the number of distinct pairs at ranks k+1..2k of its lists
	// (not already in its top k); DeeperJudged of them will be judged once
	// the pool is assessed, thanks to other systems or earlier judgments.
	Deeper, DeeperJudged int
}

// JudgedBefore is the fraction of the system's top k judged before the pool.
func (s SystemStats) JudgedBefore() float64 { return ratio(s.Judged, s.TopK) }

// JudgedAfter is the fraction of its top k judged once the pool is
// assessed: 1 unless it returned nothing.
func (s SystemStats) JudgedAfter() float64 { return ratio(s.Judged+s.Pooled, s.TopK) }

// DeeperAfter is the fraction of its ranks k+1..2k judged once the pool is
// assessed: how far its evaluation can look past the pool depth.
func (s SystemStats) DeeperAfter() float64 { return ratio(s.DeeperJudged, s.Deeper) }

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Result is a pool: the queue in assessment order and what each system
// contributed.
type Result struct {
	Queue         []Entry
	Systems       []SystemStats // sorted by name
	Queries       int           // queries with at least one list
	AlreadyJudged int           // distinct pairs in the depth-k union already judged
	Depth         int           // k, as pooled
}

type key struct{ query, item string }

// Build pools rankings to opt.Depth. It fails on a depth below 1 or a
// ranking without a system or query name.
func Build(rankings []Ranking, opt Options) (*Result, error) {
	if opt.Depth < 1 {
		return nil, fmt.Errorf("pool depth %d: give a depth of at least 1", opt.Depth)
	}
	judged := opt.Judged
	if judged == nil {
		judged = func(string, string) bool { return false }
	}
	invalid := opt.Invalid
	if invalid == nil {
		invalid = func(string, string) bool { return false }
	}
	refused := map[string]map[key]bool{} // system -> invalid pairs in its top k
	top := map[string]map[key]bool{}     // system -> its top-k pairs
	deeper := map[string]map[key]bool{}  // system -> pairs at ranks k+1..2k
	queries := map[string]map[string]bool{}
	for _, r := range rankings {
		if strings.TrimSpace(r.System) == "" || strings.TrimSpace(r.Query) == "" {
			return nil, fmt.Errorf("a ranking has no system or no query name")
		}
		if top[r.System] == nil {
			top[r.System], deeper[r.System], queries[r.System] = map[key]bool{}, map[key]bool{}, map[string]bool{}
			refused[r.System] = map[key]bool{}
		}
		queries[r.System][r.Query] = true
		for i, it := range r.Items[:min(len(r.Items), 2*opt.Depth)] {
			switch {
			case invalid(r.Query, it):
				if i < opt.Depth {
					refused[r.System][key{r.Query, it}] = true
				}
			case i < opt.Depth:
				top[r.System][key{r.Query, it}] = true
			default:
				deeper[r.System][key{r.Query, it}] = true
			}
		}
	}
	contributors := map[key][]string{}
	allQueries := map[string]bool{}
	for sys, pairs := range top {
		for k := range pairs {
			contributors[k] = append(contributors[k], sys)
		}
		for q := range queries[sys] {
			allQueries[q] = true
		}
	}
	res := &Result{Queries: len(allQueries), Depth: opt.Depth}
	for k, systems := range contributors {
		if judged(k.query, k.item) {
			res.AlreadyJudged++
			continue
		}
		slices.Sort(systems)
		res.Queue = append(res.Queue, Entry{Query: k.query, Item: k.item, Systems: systems})
	}
	Shuffle(res.Queue, opt.Seed)
	for sys, pairs := range top {
		s := stats(sys, len(queries[sys]), pairs, deeper[sys], contributors, judged)
		s.Invalid = len(refused[sys])
		res.Systems = append(res.Systems, s)
	}
	slices.SortFunc(res.Systems, func(a, b SystemStats) int { return strings.Compare(a.System, b.System) })
	return res, nil
}

func stats(sys string, queries int, top, deeper map[key]bool, contributors map[key][]string, judged Judged) SystemStats {
	s := SystemStats{System: sys, Queries: queries, TopK: len(top)}
	for k := range top {
		switch {
		case judged(k.query, k.item):
			s.Judged++
		case len(contributors[k]) == 1:
			s.Pooled++
			s.Unique++
		default:
			s.Pooled++
		}
	}
	for k := range deeper {
		if top[k] {
			continue
		}
		s.Deeper++
		if contributors[k] != nil || judged(k.query, k.item) {
			s.DeeperJudged++
		}
	}
	return s
}

// Shuffle puts the queue in its assessment order: queries in id order (an
// assessor reads a query once and judges its passages together), each
// query's items in a shuffle drawn from a stream seeded by the seed and the
// query id, so adding a query leaves the others' order alone. Orders are
// then numbered from 1.
func Shuffle(q []Entry, seed uint64) {
	slices.SortFunc(q, func(a, b Entry) int {
		return cmp.Or(strings.Compare(a.Query, b.Query), strings.Compare(a.Item, b.Item))
	})
	for start := 0; start < len(q); {
		end := start
		for end < len(q) && q[end].Query == q[start].Query {
			end++
		}
		h := fnv.New64a()
		h.Write([]byte(q[start].Query))
		rng := rand.New(rand.NewPCG(seed, h.Sum64()))
		part := q[start:end]
		rng.Shuffle(len(part), func(i, j int) { part[i], part[j] = part[j], part[i] })
		start = end
	}
	for i := range q {
		q[i].Order = i + 1
	}
}
