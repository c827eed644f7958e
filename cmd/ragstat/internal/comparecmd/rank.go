package comparecmd

import (
	"cmp"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/judgments"
)

// rankingOf says where the judged items of q sit in items, a ranked list
// as evaluated: the first top items with their grades, and every item
// graded at least minGrade with its rank (0 when the list lacks it), in
// rank order, so the first is the one reciprocal rank reads and those
// before a cutoff are the ones that count, then the unreturned ones, best
// grade first. It keeps no reference to items.
func rankingOf(items []string, q *judgments.Query, minGrade, top int) compare.Ranking {
	var r compare.Ranking
	rank := make(map[string]int, len(items))
	for i, id := range items {
		rank[id] = i + 1
		if i < top {
			g, ok := q.Grade(id)
			r.Top = append(r.Top, compare.Item{ID: strings.Clone(id), Rank: i + 1, Grade: g, Judged: ok})
		}
	}
	for _, id := range q.Items() {
		if g, _ := q.Grade(id); g >= minGrade {
			r.Relevant = append(r.Relevant, compare.Item{ID: id, Rank: rank[id], Grade: g, Judged: true})
		}
	}
	slices.SortStableFunc(r.Relevant, func(a, b compare.Item) int {
		return cmp.Or(cmp.Compare(unreturnedLast(a.Rank), unreturnedLast(b.Rank)), cmp.Compare(b.Grade, a.Grade))
	})
	return r
}

func unreturnedLast(rank int) int {
	if rank == 0 {
		return int(^uint(0) >> 1)
	}
	return rank
}
