package stages

import (
	"slices"

	"github.com/ragstat/ragstat/trace"
)

// SearchStep is what one query's search step of several calls (a stage
// whose trace records its calls: an agent that searched more than once)
// found, call by call, against the query's relevant judgments, the packed
// context and the answer's citations. The calls are of one step, not
// stages: the step's list is their union.
type SearchStep struct {
	Query string `json:"query"`
	Stage string `json:"stage"`
	// Relevant counts the query's relevant judgments, recall's
	// denominator.
	Relevant int          `json:"relevant"`
	Calls    []SearchCall `json:"calls"`
	// FirstRelevant is the call, from 1, that first returned a relevant
	// item; 0: none did.
	FirstRelevant int `json:"first_relevant_call"`
	// Union counts the distinct items the calls returned, Duplicates the
	// returns of an item an earlier call had returned, UnionRelevant the
	// union's relevant items.
	Union         int `json:"union"`
	Duplicates    int `json:"duplicates"`
	UnionRelevant int `json:"union_relevant"`
	// InContext and Cited count the union's items that reached the
	// packed context and that the answer cites; RelevantInContext and
	// RelevantCited the same of its relevant items.
	InContext         int `json:"union_in_context"`
	Cited             int `json:"union_cited"`
	RelevantInContext int `json:"relevant_in_context"`
	RelevantCited     int `json:"relevant_cited"`
}

// SearchCall is one call of a search step.
type SearchCall struct {
	Query string `json:"query,omitempty"`
	Items int    `json:"items"`
	// New counts the items no earlier call returned, NewRelevant the
	// relevant ones among them, Duplicates the others.
	New         int `json:"new"`
	NewRelevant int `json:"new_relevant"`
	Duplicates  int `json:"duplicates"`
	// Recall is the share of the query's relevant judgments in the union
	// of the calls so far; nil when the query has none.
	Recall *float64 `json:"recall"`
}

// searchOf reads every search step of a trace of an answerable judged
// query: nil for other queries and for traces without one.
func searchOf(v *view, names []string, minGrade int32) []SearchStep {
	if !v.topic.Answerable || v.q == nil {
		return nil
	}
	relevant := func(id string) bool {
		g, ok := v.q.Grade(id)
		return ok && int32(g) >= minGrade
	}
	total := 0
	for _, g := range v.q.Grades(nil) {
		if g >= minGrade {
			total++
		}
	}
	inContext := map[string]bool{}
	if ci := slices.Index(names, trace.ContextStage); ci >= 0 {
		for _, p := range v.stages[ci] {
			inContext[p.id] = true
		}
	}
	cited := map[string]bool{}
	if v.t.Answer != nil {
		for _, c := range v.t.Answer.Citations {
			cited[c] = true
		}
	}
	var out []SearchStep
	for _, st := range v.t.Stages {
		if len(st.Calls) == 0 {
			continue
		}
		s := SearchStep{Query: v.t.Query, Stage: st.Name, Relevant: total}
		seen := map[string]bool{}
		for i, c := range st.Calls {
			call := SearchCall{Query: c.Query, Items: len(c.IDs)}
			for _, id := range c.IDs {
				if seen[id] {
					call.Duplicates++
					continue
				}
				seen[id] = true
				call.New++
				if relevant(id) {
					call.NewRelevant++
					s.UnionRelevant++
					if s.FirstRelevant == 0 {
						s.FirstRelevant = i + 1
					}
				}
			}
			if total > 0 {
				r := float64(s.UnionRelevant) / float64(total)
				call.Recall = &r
			}
			s.Duplicates += call.Duplicates
			s.Calls = append(s.Calls, call)
		}
		s.Union = len(seen)
		for id := range seen {
			rel := relevant(id)
			if inContext[id] {
				s.InContext++
				if rel {
					s.RelevantInContext++
				}
			}
			if cited[id] {
				s.Cited++
				if rel {
					s.RelevantCited++
				}
			}
		}
		out = append(out, s)
	}
	return out
}
