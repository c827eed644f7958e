package stages

import (
	"slices"

	"github.com/ragstat/ragstat/trace"
)

// ValidityReport lists evidence that was not acceptable for its query.
type ValidityReport struct {
	// OutOfScope lists every appearance of an item outside the query's
	// permission scopes; InContext counts those in the packed context,
	// which reached the generator.
	OutOfScope []Violation `json:"out_of_scope,omitempty"`
	InContext  int         `json:"out_of_scope_in_context"`
	Stale      []Violation `json:"stale,omitempty"`
	Conflicts  []Conflict  `json:"conflicts,omitempty"`
}

// Violation is one item at one stage of one query.
type Violation struct {
	Query  string   `json:"query"`
	Stage  string   `json:"stage"`
	Item   string   `json:"item"`
	Scope  string   `json:"scope,omitempty"`
	Scopes []string `json:"query_scopes,omitempty"`
	From   string   `json:"valid_from,omitempty"`
	To     string   `json:"valid_to,omitempty"`
	AsOf   string   `json:"as_of,omitempty"`
}

// Conflict is one document with several revisions in one context.
type Conflict struct {
	Query     string   `json:"query"`
	Doc       string   `json:"doc"`
	Revisions []string `json:"revisions"`
	Items     []string `json:"items"`
}

// validityOf lists one trace's invalid evidence.
func validityOf(v *view, names []string) ValidityReport {
	var r ValidityReport
	for i, name := range names {
		for _, p := range v.stages[i] {
			viol := Violation{Query: v.t.Query, Stage: name, Item: p.id, Scope: p.meta.Scope, Scopes: v.topic.Scopes}
			if p.out {
				r.OutOfScope = append(r.OutOfScope, viol)
				if name == trace.ContextStage {
					r.InContext++
				}
			}
			if p.stale {
				viol.Scope, viol.Scopes = "", nil
				viol.From, viol.To, viol.AsOf = p.meta.ValidFrom.String(), p.meta.ValidTo.String(), v.topic.AsOf.String()
				r.Stale = append(r.Stale, viol)
			}
		}
		if name == trace.ContextStage {
			r.Conflicts = append(r.Conflicts, conflicts(v.t.Query, v.stages[i])...)
		}
	}
	return r
}

// merge adds another trace's report.
func (r *ValidityReport) merge(o ValidityReport) {
	r.OutOfScope = append(r.OutOfScope, o.OutOfScope...)
	r.InContext += o.InContext
	r.Stale = append(r.Stale, o.Stale...)
	r.Conflicts = append(r.Conflicts, o.Conflicts...)
}

// conflicts finds documents present in several revisions.
func conflicts(query string, context []placed) []Conflict {
	var out []Conflict
	byDoc := map[string]*Conflict{}
	var docs []string
	for _, p := range context {
		if p.meta.Doc == "" || p.meta.Revision == "" {
			continue
		}
		c := byDoc[p.meta.Doc]
		if c == nil {
			c = &Conflict{Query: query, Doc: p.meta.Doc}
			byDoc[p.meta.Doc] = c
			docs = append(docs, p.meta.Doc)
		}
		if !slices.Contains(c.Revisions, p.meta.Revision) {
			c.Revisions = append(c.Revisions, p.meta.Revision)
		}
		c.Items = append(c.Items, p.id)
	}
	for _, d := range docs {
		if c := byDoc[d]; len(c.Revisions) > 1 {
			out = append(out, *c)
		}
	}
	return out
}

// sorted puts the listings in query order.
func (r ValidityReport) sorted() ValidityReport {
	byViolation := func(v Violation) string { return v.Query }
	r.OutOfScope = byQuery(r.OutOfScope, byViolation)
	r.Stale = byQuery(r.Stale, byViolation)
	r.Conflicts = byQuery(r.Conflicts, func(c Conflict) string { return c.Query })
	return r
}
