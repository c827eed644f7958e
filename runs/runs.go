// Package runs reads ranked lists: what a retrieval system returned for each
// query. It accepts TREC runs, JSON Lines and the pytrec_eval/ranx JSON
// object, puts every list in rank order (by score, ties broken by item id
// descending as trec_eval does, or by the TREC rank column, or as given) and
// rejects what would make a score ambiguous: a repeated item, an empty id, a
// score that is not a finite number, a repeated rank.
package runs

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/hashindex"
	"github.com/ragstat/ragstat/internal/trecfile"
)

// Order says how a list is put in rank order.
type Order string

const (
	// ByScore ranks by score descending, ties by item id descending in byte
	// order (trec_eval's rule). An ordered JSONL list keeps its order.
	ByScore Order = "score"
	// ByRank uses the TREC rank column, ascending; a repeated rank is an error.
	ByRank Order = "rank"
)

// ParseOrder reads an order by name: score or rank.
func ParseOrder(s string) (Order, error) {
	switch o := Order(strings.ToLower(s)); o {
	case ByScore, ByRank:
		return o, nil
	}
	return "", fmt.Errorf("unknown order %q: use score or rank", s)
}

// UnmarshalText reads an order's name, as ParseOrder does.
func (o *Order) UnmarshalText(b []byte) (err error) {
	*o, err = ParseOrder(string(b))
	return err
}

// Ranking is one query's ranked list, in rank order.
type Ranking struct {
	Query string
	Items []string
	// entries are the items as read, for their line numbers.
	entries []entry
	// index finds an item's position; the reader builds it while looking
	// for repeats (nil for a Ranking made elsewhere).
	index *hashindex.Index
	keys  hashindex.Keys
}

// Line is the line the i-th item was read from (0 when unknown).
func (r *Ranking) Line(i int) int {
	if i < len(r.entries) {
		return r.entries[i].Line
	}
	return 0
}

// Find returns the position of item in the list, or -1. On a Ranking that
// a reader delivered it costs one hash lookup; otherwise a scan.
func (r *Ranking) Find(item string) int {
	if r.index != nil {
		return r.index.Find(r.keys, item)
	}
	return slices.Index(r.Items, item)
}

// entry is one returned item before ordering: the TREC reader's own type,
// so its lines need no copying.
type entry = trecfile.RunDoc

// lister turns the entries of one query into a Ranking, checking them. It is
// reused across queries by one goroutine.
type lister struct {
	file    string
	order   Order
	checked bool // the reader already rejected empty ids and bad scores
	seen    hashindex.Index
	list    Ranking
}

func newLister(file string, order Order, checked bool) *lister {
	return &lister{file: file, order: order, checked: checked}
}

// bad makes an error that keeps copies of q and item, which may share a
// reader's buffer.
func (l *lister) bad(line int, q, item, msg, hint string) *diag.Error {
	return &diag.Error{File: l.file, Line: line, Query: strings.Clone(q), Item: strings.Clone(item), Msg: msg, Hint: hint}
}

// rank orders es (scored: true when scores are meaningful) and checks them;
// problems go to errs.
func (l *lister) rank(query string, es []entry, scored bool, errs *diag.List) *Ranking {
	if !l.checked {
		l.checkFields(query, es, errs)
	}
	switch {
	case l.order == ByRank:
		l.byRank(query, es, errs)
	case scored:
		sortByScore(es)
	}
	l.list.Query = query
	l.list.Items = l.list.Items[:0]
	l.list.entries = es
	for _, e := range es {
		l.list.Items = append(l.list.Items, e.Doc)
	}
	l.checkDuplicates(errs)
	return &l.list
}

// checkFields rejects empty ids and scores that are not finite numbers.
func (l *lister) checkFields(query string, es []entry, errs *diag.List) {
	for _, e := range es {
		if strings.TrimSpace(e.Doc) == "" {
			errs.Add(l.bad(e.Line, query, "", "empty item id", "every returned item needs an id"))
		} else if math.IsNaN(e.Score) || math.IsInf(e.Score, 0) {
			errs.Add(l.bad(e.Line, query, e.Doc, fmt.Sprintf("score %v is not a finite number", e.Score), "scores must be finite"))
		}
	}
}

// sortByScore sorts by score descending, ties by item id descending; runs
// written in rank order are detected and left alone.
func sortByScore(es []entry) {
	for i := 1; i < len(es); i++ {
		// slices.IsSortedFunc(es, scoreOrder), without a call for the
		// pairs whose scores decrease (not written a <= b: NaN is ordered)
		if !(es[i-1].Score > es[i].Score) {
			if scoreOrder(es[i], es[i-1]) < 0 {
				slices.SortStableFunc(es, scoreOrder)
				return
			}
		}
	}
}

// scoreOrder compares entries by score descending, then item id
// descending; it compares the ids only when the scores tie.
func scoreOrder(a, b entry) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	return strings.Compare(b.Doc, a.Doc)
}

func (l *lister) byRank(query string, es []entry, errs *diag.List) {
	slices.SortStableFunc(es, func(a, b entry) int { return cmp.Compare(a.Rank, b.Rank) })
	for i := 1; i < len(es); i++ {
		if es[i].Rank == es[i-1].Rank {
			errs.Add(l.bad(es[i].Line, query, es[i].Doc,
				fmt.Sprintf("rank %d repeats line %d", es[i].Rank, es[i-1].Line),
				"with {order} rank every rank must be unique; or rank by score with {order} score"))
		}
	}
}

func (l *lister) checkDuplicates(errs *diag.List) {
	items := l.list.Items
	var keys hashindex.Keys = hashindex.Strings(items) // boxed once, not per item
	l.seen.Reset(len(items))
	l.list.index, l.list.keys = &l.seen, keys
	for i, it := range items {
		h := hashindex.Hash(it)
		if l.seen.TryAdd(h, i) {
			continue
		}
		if first := l.seen.AddHashed(keys, i, h); first != i {
			errs.Add(l.bad(l.list.Line(i), l.list.Query, it, fmt.Sprintf("item returned twice in one list (also line %d)", l.list.Line(first)),
				"evaluate the list your system really produced; if it deduplicates, deduplicate before writing the run"))
		}
	}
}
