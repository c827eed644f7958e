package eval

import (
	"cmp"
	"errors"
	"maps"
	"slices"

	"github.com/ragstat/ragstat/internal/diag"
)

// holes gathers the unjudged items Score reports under the unjudged policy
// error over a whole run: every one is counted, by query, but only the
// problems of the queries that come first in the file (diag.Max of them, or
// a little more) are kept, so memory stays bounded by the number of
// queries however many items lack a judgment. A query delivered again
// replaces its earlier count (runs.Read may deliver a query twice).
type holes struct {
	count map[string]int      // unjudged items of each query with any
	shown map[string]detailed // the kept problems of the first queries
	kept  int                 // problems held in shown
}

// detailed is one query's kept problems and the first line they name.
type detailed struct {
	errs  []error
	first int
}

// record notes the outcome of scoring query q: err is Score's error for
// the list (nil when every item is judged).
func (h *holes) record(q string, err error) {
	if old, ok := h.shown[q]; ok {
		h.kept -= len(old.errs)
		delete(h.shown, q)
	}
	if err == nil {
		delete(h.count, q)
		return
	}
	var l diag.List
	l.Add(err)
	if h.count == nil {
		h.count, h.shown = map[string]int{}, map[string]detailed{}
	}
	h.count[q] = l.Len()
	d := detailed{errs: l.Errs()}
	for i, err := range d.errs {
		if n := line(err); i == 0 || n < d.first {
			d.first = n
		}
	}
	for h.kept >= diag.Max {
		last := h.lastShown()
		if d.first >= h.shown[last].first {
			return
		}
		h.kept -= len(h.shown[last].errs)
		delete(h.shown, last)
	}
	h.shown[q] = d
	h.kept += len(d.errs)
}

// lastShown is the kept query whose problems start furthest into the file.
func (h *holes) lastShown() string {
	var last string
	for q, d := range h.shown {
		if l, ok := h.shown[last]; !ok || d.first > l.first || d.first == l.first && q > last {
			last = q
		}
	}
	return last
}

func line(err error) int {
	var e *diag.Error
	if errors.As(err, &e) {
		return e.Line
	}
	return 0
}

// err is every unjudged item recorded: the first diag.Max in detail, in
// file order, then the totals and the policies that would accept them.
func (h *holes) err() error {
	if len(h.count) == 0 {
		return nil
	}
	var shown []error
	for _, q := range slices.Sorted(maps.Keys(h.shown)) {
		shown = append(shown, h.shown[q].errs...)
	}
	slices.SortStableFunc(shown, func(a, b error) int { return cmp.Compare(line(a), line(b)) })
	var l diag.List
	for _, e := range shown[:min(diag.Max, len(shown))] {
		l.Add(e)
	}
	items := 0
	for _, n := range h.count {
		items += n
	}
	l.Tally(diag.Unjudged(items, len(h.count)), l.Len())
	return l.Err()
}
