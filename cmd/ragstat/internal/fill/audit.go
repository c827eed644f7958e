package fill

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/pool"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/judgments"
)

// auditStream tells the audit's random stream from other uses of a seed.
const auditStream = 0x61756469742d3237

// Draw picks n of the queries uniformly at random, without replacement,
// with a stream seeded by seed: the same queries and seed give the same
// draw, whatever their order. It returns them sorted. n larger than the
// queries is an error naming the option audit.
func Draw(queries []string, n int, seed uint64) ([]string, error) {
	pool := slices.Compact(slices.Sorted(slices.Values(queries)))
	if n < 1 || n > len(pool) {
		return nil, &diag.OptionError{Option: "audit", Value: fmt.Sprint(n),
			Msg: fmt.Sprintf(": must lie between 1 and %d, the number of queries with LLM labels", len(pool))}
	}
	rng := rand.New(rand.NewPCG(seed, auditStream))
	for i := range n { // a partial Fisher-Yates shuffle
		j := i + rng.IntN(len(pool)-i)
		pool[i], pool[j] = pool[j], pool[i]
	}
	drawn := pool[:n]
	slices.Sort(drawn)
	return drawn, nil
}

// AuditQueue is the queue `judge serve` reads for the audit: every pair of
// pairs, as pool orders a queue (queries in id order, each query's items
// in a shuffle seeded by seed). It holds no grade: the assessor judges
// blind.
func AuditQueue(pairs []Pair, seed uint64) []pool.Entry {
	q := make([]pool.Entry, len(pairs))
	for i, p := range pairs {
		q[i] = pool.Entry{Query: p.Query, Item: p.Item, Systems: p.Systems}
	}
	pool.Shuffle(q, seed)
	return q
}

// Drawn is the audit a fill drew.
type Drawn struct {
	Seed    uint64
	Of      int          // the queries with LLM labels, drawn from
	Queries []string     // drawn, sorted
	Queue   []pool.Entry // the pairs of the drawn queries no person graded yet
	// Earlier is the number of queries an earlier draw had marked, now
	// replaced.
	Earlier int
}

// audit draws r.Audit of the queries with LLM labels, marks the labels of
// the drawn ones (and unmarks the others: a new draw replaces an earlier
// one), and queues the labelled pairs of the drawn queries that set has
// no person's grade for.
func (r Request) audit(set *judgments.Set, labels []judgments.Judgment, pairs []Pair) (*Drawn, error) {
	var queries []string
	earlier := map[string]bool{}
	for _, l := range labels {
		queries = append(queries, l.Query)
		if l.LLM.Audit {
			earlier[l.Query] = true
		}
	}
	drawn, err := Draw(queries, r.Audit, r.AuditSeed)
	if err != nil {
		return nil, err
	}
	systems := map[[2]string][]string{}
	for _, p := range pairs {
		systems[[2]string{p.Query, p.Item}] = p.Systems
	}
	d := &Drawn{Seed: r.AuditSeed, Of: len(slices.Compact(slices.Sorted(slices.Values(queries)))), Queries: drawn, Earlier: len(earlier)}
	var queue []Pair
	for i, l := range labels {
		_, in := slices.BinarySearch(drawn, l.Query)
		labels[i].LLM.Audit = in
		if !in {
			continue
		}
		if q := set.Query(l.Query); q != nil {
			if _, graded := q.Grade(l.Item); graded {
				continue
			}
		}
		queue = append(queue, Pair{Query: l.Query, Item: l.Item, Systems: systems[[2]string{l.Query, l.Item}]})
	}
	d.Queue = AuditQueue(queue, r.AuditSeed)
	return d, nil
}
