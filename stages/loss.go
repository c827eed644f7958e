package stages

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

// Statuses of a piece of evidence, from the earliest loss to delivery.
const (
	StatusNotRetrieved = "not retrieved"
	// StatusNotInContext is where evidence stopped when the traces record
	// only the context: whether it was retrieved is not known.
	StatusNotInContext = "not in the context (no retrieval stage recorded)"
	StatusDropped      = "dropped in packing"
	StatusTruncated    = "truncated (span lost)"
	StatusOutOfScope   = "out of scope (not acceptable evidence)"
	StatusStale        = "stale (not in effect at as_of)"
	StatusDelivered    = "delivered"
)

// cut names a loss between two stages.
func cut(from, to string) string { return fmt.Sprintf("cut between %s and %s", from, to) }

// Waterfall counts where evidence stopped.
type Waterfall struct {
	Total int    `json:"total"`
	Steps []Step `json:"steps"`
	Lost  []Lost `json:"items,omitempty"`
}

// Step is how many pieces of evidence stopped with one status.
type Step struct {
	Status string `json:"status"`
	Count  int    `json:"count"`
}

// Lost is one piece of evidence (a judged item or a fact) and where it
// stopped.
type Lost struct {
	Query string `json:"query"`
	What  string `json:"what"` // the item id, or "fact ID"
	// Text is a fact's text, when its topic gives one.
	Text   string `json:"text,omitempty"`
	Grade  int    `json:"grade,omitempty"`
	Status string `json:"status"`
	// Reached is the last stage that delivered it ("" if none did).
	Reached string `json:"reached,omitempty"`
}

// count counts one piece of evidence that stopped with status.
func (w *Waterfall) count(status string) {
	w.Total++
	for i := range w.Steps {
		if w.Steps[i].Status == status {
			w.Steps[i].Count++
			return
		}
	}
	w.Steps = append(w.Steps, Step{Status: status, Count: 1})
}

// order sorts steps in pipeline order (Statuses): losses at earlier
// stages first, delivered last.
func (w *Waterfall) order(names []string) {
	rank := map[string]int{}
	for i, s := range Statuses(names) {
		rank[s] = max(i-1, 0) // not retrieved and not in the context share a rank
	}
	slices.SortStableFunc(w.Steps, func(a, b Step) int { return cmp.Compare(rank[a.Status], rank[b.Status]) })
}

// Statuses lists where evidence can stop in a pipeline of the stages
// named, in a waterfall's order.
func Statuses(names []string) []string {
	out := []string{StatusNotRetrieved, StatusNotInContext}
	for i := 1; i < len(names); i++ {
		out = append(out, cut(names[i-1], names[i]))
	}
	return append(out, StatusDropped, StatusTruncated, StatusOutOfScope, StatusStale, StatusDelivered)
}

// contextOnly tells stages whose only stage is the context: nothing says
// what was retrieved.
func contextOnly(names []string) bool { return len(names) == 1 && names[0] == trace.ContextStage }

// walk follows one piece of evidence through the stages; present says
// whether stage i delivered it. An item that is not acceptable evidence
// (out of scope, stale) stops there, and reached is the last stage of the
// run of stages that returned it all the same.
func walk(names []string, present func(i int) state) (status, reached string) {
	invalid := func(i int, status string) (string, string) {
		for ; i < len(names) && present(i) != absent; i++ {
			reached = names[i]
		}
		return status, reached
	}
	for i, name := range names {
		switch present(i) {
		case evidence:
			reached = name
			continue
		case outOfScope:
			return invalid(i, StatusOutOfScope)
		case stale:
			return invalid(i, StatusStale)
		case spanLost:
			return StatusTruncated, reached
		}
		switch {
		case i == 0 && contextOnly(names):
			return StatusNotInContext, ""
		case i == 0:
			return StatusNotRetrieved, ""
		case name == trace.ContextStage:
			return StatusDropped, reached
		default:
			return cut(names[i-1], name), reached
		}
	}
	return StatusDelivered, reached
}

// lossOf follows every relevant judgment of an answerable query through
// the stages. A judgment that is not acceptable evidence for the request
// (invalid) is listed as out of scope or stale even where no stage returned
// it.
func lossOf(v *view, names []string, minGrade int32, invalid []invalidJudgment) []Lost {
	if !v.topic.Answerable || v.q == nil {
		return nil
	}
	var out []Lost
	for k, g := range v.q.Grades(nil) {
		if g < minGrade {
			continue
		}
		item := v.q.Key(k)
		status, reached := walk(names, func(i int) state { return v.lookup(i, item) })
		if i := slices.IndexFunc(invalid, func(x invalidJudgment) bool { return x.item == item }); i >= 0 && (status == StatusNotRetrieved || status == StatusNotInContext) {
			status = StatusStale
			if invalid[i].out {
				status = StatusOutOfScope
			}
		}
		out = append(out, Lost{Query: v.t.Query, What: strings.Clone(item), Grade: int(g), Status: status, Reached: reached})
	}
	return out
}

// QueryFacts is one query's required-fact coverage.
type QueryFacts struct {
	Query     string   `json:"query"`
	Facts     int      `json:"facts"`
	Supported []int    `json:"supported"` // per stage
	Missing   []string `json:"missing,omitempty"`
}

// supports reports whether stage i supports fact f: some alternative has
// every piece present as valid evidence, with its span in the packed text
// when the stage is the context and the piece names a span. When none does,
// it reports the most advanced failure among the alternatives.
func (v *view) supports(i int, f topics.Fact, context bool) state {
	best := absent
	for _, alt := range f.Support {
		st := evidence
		for _, piece := range alt {
			if ps := v.pieceState(i, piece, context); progress(ps) < progress(st) {
				st = ps
			}
		}
		if progress(st) > progress(best) {
			best = st
		}
	}
	return best
}

// progress orders states from the least to the most evidence delivered.
func progress(s state) int {
	switch s {
	case outOfScope, stale:
		return 1
	case spanLost:
		return 2
	case evidence:
		return 3
	}
	return 0
}

func (v *view) pieceState(i int, piece topics.Piece, context bool) state {
	p := v.find(i, piece.Item)
	switch {
	case p == nil:
		return absent
	case p.state.invalid():
		return p.state
	case context && piece.Span != "" && p.has && !containsAny(p.text, []string{piece.Span}):
		return spanLost
	}
	return evidence
}

// factsOf reports how many of the query's required facts each stage
// supports, and follows every fact through the stages.
func factsOf(v *view, names []string) (*QueryFacts, []Lost) {
	if !v.topic.Answerable || len(v.topic.Facts) == 0 {
		return nil, nil
	}
	qf := &QueryFacts{Query: v.t.Query, Facts: len(v.topic.Facts), Supported: make([]int, len(names))}
	var lost []Lost
	for _, f := range v.topic.Facts {
		at := func(i int) state { return v.supports(i, f, names[i] == trace.ContextStage) }
		for i := range names {
			if at(i) == evidence {
				qf.Supported[i]++
			}
		}
		status, reached := walk(names, at)
		if status != StatusDelivered {
			qf.Missing = append(qf.Missing, f.ID)
		}
		lost = append(lost, Lost{Query: v.t.Query, What: "fact " + f.ID, Text: f.Text, Status: status, Reached: reached})
	}
	return qf, lost
}
