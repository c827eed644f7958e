package evalemit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/stages"
	"github.com/ragstat/ragstat/trace"
)

// The names of the evaluations, besides the metrics (named "ragstat." and
// the metric's name, e.g. ragstat.nDCG@10).
const (
	NameEvidence        = "ragstat.evidence"       // a relevant item's way through the stages
	NameFact            = "ragstat.fact"           // a required fact's way through the stages
	NameValidity        = "ragstat.validity"       // evidence that was not acceptable: out of scope, stale, conflicting
	NameFactCoverage    = "ragstat.fact_coverage"  // the share of required facts the context supports
	NameBudget          = "ragstat.context.budget" // whether the prompt fits the generator's token budget
	NameExactMatch      = "ragstat.answer.exact_match"
	NameF1              = "ragstat.answer.f1"
	NameCitationSupport = "ragstat.answer.citation_support"
	NameAbstention      = "ragstat.answer.abstention"
)

// LabelConflict labels a document present in several revisions in one
// context (NameValidity).
const LabelConflict = "conflicting revisions"

// Annotation is one evaluation of one span: a metric's value, or a verdict
// with its label.
type Annotation struct {
	// ID is stable: the hexadecimal SHA-256 of the trace id, span id, name
	// and subject, so that writing the same evaluation again gives the
	// same id.
	ID      string `json:"id"`
	TraceID string `json:"trace_id"`
	SpanID  string `json:"span_id"`
	Name    string `json:"name"`
	// Score is the metric's value, or a verdict's: 1 for delivered
	// evidence or a passed check, 0 otherwise.
	Score float64 `json:"score"`
	Label string  `json:"label,omitempty"`
	// Explanation says what was evaluated, in words.
	Explanation string `json:"explanation"`
	// Subject is what on the span the annotation is about: the item id,
	// the fact, the stage's cutoff; part of the id.
	Subject string `json:"subject,omitempty"`
	System  string `json:"system"`
	Query   string `json:"query"`
}

// Annotations lists what r says of the spans it records, in a fixed
// order: each stage's metric values on its span; each relevant item's and
// required fact's verdict on the span of the last stage that delivered it
// (the first stage's when none did); each out-of-scope or stale item on
// the span of the stage that carried it; the conflicting revisions in the
// context, whether the prompt fits its token budget, the fact coverage and
// the answer checks on the generator's span (the context stage's). unlinked counts
// the annotations left out because the trace or the stage recorded no
// span id (traces not imported).
func Annotations(r *stages.QueryRecord) (out []Annotation, unlinked int) {
	span := map[string]string{}
	first := ""
	for i, st := range r.Stages {
		span[st.Name] = st.SpanID
		if i == 0 {
			first = st.SpanID
		}
	}
	add := func(spanID, name, subject string, score float64, label, explanation string) {
		if r.TraceID == "" || spanID == "" {
			unlinked++
			return
		}
		out = append(out, Annotation{ID: annotationID(r.TraceID, spanID, name, subject), TraceID: r.TraceID, SpanID: spanID,
			Name: name, Score: score, Label: label, Explanation: explanation, Subject: subject, System: r.System, Query: r.Query})
	}
	for _, st := range r.Stages {
		for _, v := range st.Values {
			if v.Value == nil {
				continue
			}
			add(st.SpanID, "ragstat."+v.Metric, "", *v.Value, "",
				fmt.Sprintf("%s of stage %s at %s for query %s", v.Metric, st.Name, cutoff(st.K, st.Length), r.Query))
		}
	}
	carrier := func(l stages.Lost) string {
		if l.Reached != "" {
			return span[l.Reached]
		}
		return first
	}
	for _, l := range r.Evidence {
		add(carrier(l), NameEvidence, l.What, delivered(l.Status), l.Status,
			fmt.Sprintf("relevant item %s (grade %d): %s", l.What, l.Grade, reached(l)))
	}
	for _, l := range r.FactLoss {
		what := l.What
		if l.Text != "" {
			what += " (" + l.Text + ")"
		}
		add(carrier(l), NameFact, l.What, delivered(l.Status), l.Status, fmt.Sprintf("required %s: %s", what, reached(l)))
	}
	for _, v := range r.Validity.OutOfScope {
		add(span[v.Stage], NameValidity, v.Stage+"/"+v.Item, 0, stages.StatusOutOfScope,
			fmt.Sprintf("item %s at stage %s has scope %q, outside the query's scopes [%s]", v.Item, v.Stage, v.Scope, strings.Join(v.Scopes, ", ")))
	}
	for _, v := range r.Validity.Stale {
		add(span[v.Stage], NameValidity, v.Stage+"/"+v.Item, 0, stages.StatusStale,
			fmt.Sprintf("item %s at stage %s is valid from %s to %s, not at the query's as_of %s", v.Item, v.Stage, or(v.From, "the start"), or(v.To, "now"), v.AsOf))
	}
	gen := span[trace.ContextStage]
	for _, c := range r.Validity.Conflicts {
		add(gen, NameValidity, "conflict/"+c.Doc, 0, LabelConflict,
			fmt.Sprintf("document %s is in the context in revisions %s (items %s)", c.Doc, strings.Join(c.Revisions, ", "), strings.Join(c.Items, ", ")))
	}
	if b := r.Budget; b != nil && b.Limit > 0 {
		label, fits := "fits", 1.0
		if b.Over() {
			label, fits = "over budget", 0
		}
		add(gen, NameBudget, "", fits, label, fmt.Sprintf("the prompt and answer reserve take %d tokens of a budget of %d", b.Total, b.Limit))
	}
	if ci := slices.IndexFunc(r.Stages, func(s stages.QueryStage) bool { return s.Name == trace.ContextStage }); ci >= 0 && r.Facts != nil && r.Facts.Facts > 0 && ci < len(r.Facts.Supported) {
		share := float64(r.Facts.Supported[ci]) / float64(r.Facts.Facts)
		add(gen, NameFactCoverage, "", share, "", fmt.Sprintf("%d of %d required facts supported by the context", r.Facts.Supported[ci], r.Facts.Facts))
	}
	a := r.Answer
	if a.Graded > 0 {
		add(gen, NameExactMatch, "", a.ExactMatch, "", "the answer against the topic's reference answers, exact match after normalisation")
		add(gen, NameF1, "", a.F1, "", "the answer against the topic's reference answers, token F1")
	}
	if a.CitationSupport != nil {
		add(gen, NameCitationSupport, "", *a.CitationSupport, "",
			fmt.Sprintf("%d of %d cited items are valid relevant evidence in the context", a.Supported, a.Cited))
	}
	switch {
	case r.Answerable && a.FalseAbstentionRate != nil:
		label, score := "answered", 1.0
		if a.FalseAbstentions > 0 {
			label, score = "false abstention", 0
		}
		add(gen, NameAbstention, "", score, label, "the query is answerable: the generator should answer")
	case !r.Answerable && a.AbstentionRate != nil:
		label, score := "abstained", 1.0
		if a.Abstained == 0 {
			label, score = "answered an unanswerable query", 0
		}
		add(gen, NameAbstention, "", score, label, "the query is not answerable: the generator should abstain")
	}
	return out, unlinked
}

// annotationID is the stable id of the evaluation name of subject on a span.
func annotationID(traceID, spanID, name, subject string) string {
	h := sha256.New()
	for _, s := range []string{traceID, spanID, name, subject} {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// delivered scores a verdict: 1 delivered, 0 lost.
func delivered(status string) float64 {
	if status == stages.StatusDelivered {
		return 1
	}
	return 0
}

func reached(l stages.Lost) string {
	if l.Reached == "" || l.Status == stages.StatusDelivered {
		return l.Status
	}
	return fmt.Sprintf("%s (last delivered by %s)", l.Status, l.Reached)
}

func cutoff(k, length int) string {
	if k == 0 {
		return fmt.Sprintf("its whole list (%d items)", length)
	}
	return fmt.Sprintf("k=%d", k)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
