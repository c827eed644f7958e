package traceimport

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/internal/diag"
)

// Manifest records how an import mapped its input: the format, every
// mapping choice (defaults resolved), what was read and written, where each
// trace's query id and system came from, and every problem with its count.
type Manifest struct {
	Format  Format        `json:"format"`
	Files   []string      `json:"files"`
	Mapping MappingRecord `json:"mapping"`
	Records int           `json:"records"` // lines, requests or runs read
	Spans   int           `json:"spans"`
	Traces  int           `json:"traces"` // ragstat traces written
	// Lists counts the retrieval stages written that list their
	// documents (possibly none): an import with none is an error.
	Lists int `json:"retrieval_lists"`
	// SearchCalls counts the retrieval calls read as calls of search
	// steps (several under one agent or chain span), not as stages.
	SearchCalls int `json:"search_calls,omitempty"`
	// Conventions counts the spans read under each convention (OTLP),
	// "documents mapping" those a documents rule read and "none" those
	// that carry no convention's marker.
	Conventions map[string]int `json:"conventions,omitempty"`
	QueryID     map[string]int `json:"query_id_from"`
	System      map[string]int `json:"system_from"`
	// Context counts the items of the last retrieval stage found in the
	// generator's input: packed whole, truncated, dropped.
	Context  ContextCounts `json:"context"`
	Problems []Problem     `json:"problems"`
	// Notes are choices made for a trace that no flag decides otherwise
	// (several generators, a repeated stage name); never errors.
	Notes []Problem `json:"notes"`
	// Unmapped lists the attribute keys seen on spans mapped to nothing
	// (OTLP), the most common first.
	Unmapped []KeySeen `json:"unmapped_keys,omitempty"`
	keys     map[string]*KeySeen
	problems map[Kind]*Problem
	notes    map[Kind]*Problem
}

// MappingRecord is a Mapping as applied, for the manifest.
type MappingRecord struct {
	QueryID    []string          `json:"query_id"`
	System     string            `json:"system,omitempty"`
	SystemFrom []string          `json:"system_from,omitempty"`
	Stages     map[string]string `json:"stages,omitempty"`
	ItemID     string            `json:"item_id"`
	ItemScore  string            `json:"item_score"`
	Citation   string            `json:"citation_pattern"`
	Abstain    string            `json:"abstain_pattern"`
	Corpus     bool              `json:"corpus"`
	Strict     bool              `json:"strict"`
	CloseAfter string            `json:"close_after"`
	Convention string            `json:"convention,omitempty"`
	Documents  []string          `json:"documents,omitempty"`
}

// ContextCounts counts how items reached the context.
type ContextCounts struct {
	Packed    int `json:"packed"`
	Truncated int `json:"truncated"`
	Dropped   int `json:"dropped"`
}

// Kind is a kind of problem.
type Kind string

// The problems an import reports.
const (
	UnknownKind     Kind = "span kind not mapped"
	NoDocuments     Kind = "retrieval span without documents"
	NoItemID        Kind = "documents without ids (content hash used)"
	NoItemText      Kind = "items without text (not placed in the context)"
	BadItem         Kind = "item metadata or score not usable"
	BadTokens       Kind = "token count not usable (left out)"
	RepeatedItem    Kind = "item listed twice in one stage (first kept)"
	NoGenerator     Kind = "trace without a generator span"
	NoPrompt        Kind = "generator span without its input"
	NoAnswer        Kind = "generator span without its output"
	SeveralGen      Kind = "trace with several generator spans (the last to end is the generator)"
	NoQueryID       Kind = "trace without a query id (trace id used)"
	UnknownCitation Kind = "citation of an id that is no item of the trace"
	Empty           Kind = "trace with no retrieval and no generator span (not written)"
	RepeatedSpan    Kind = "span read twice (first kept)"
	LateSpan        Kind = "span after its trace closed (not written)"
	MissingParent   Kind = "trace whose spans name a parent never read"
	StageRenamed    Kind = "stage name repeated in a trace (numbered)"
	SearchStep      Kind = "search step of sibling retrieval calls (one stage, not one a call)"
)

// Problem is one kind of problem: how many times, the span names (or ids)
// concerned, and where the first was read.
type Problem struct {
	Kind  Kind     `json:"kind"`
	Count int      `json:"count"`
	Names []string `json:"names"`
	First string   `json:"first"`
	names map[string]bool
}

// maxNames bounds the names kept per problem.
const maxNames = 10

func newManifest(f Format, files []string, r *rules) *Manifest {
	m := &Manifest{Format: f, Files: files, QueryID: map[string]int{}, System: map[string]int{},
		problems: map[Kind]*Problem{}, notes: map[Kind]*Problem{}, keys: map[string]*KeySeen{}}
	rec := &m.Mapping
	rec.QueryID = r.queryKeys
	rec.System = r.System
	rec.SystemFrom = r.systemKeys
	rec.Stages = r.Stages
	rec.ItemID = "document id"
	if r.ItemID != "" {
		rec.ItemID += ", else " + r.ItemID
	}
	rec.ItemID += ", else a content hash"
	rec.ItemScore = "document score"
	if r.ItemScore != "" {
		rec.ItemScore += ", else " + r.ItemScore
	}
	rec.ItemScore += ", else metadata." + relevanceScore + " or relevance_score"
	rec.Citation = r.citation.String()
	rec.Abstain = "(not recorded)"
	if r.abstain != nil {
		rec.Abstain = r.abstain.String()
	}
	if f == OTLP {
		m.Conventions = map[string]int{}
		rec.Convention = "detected per span (" + conventionNames() + ")"
		if r.Convention != "" {
			rec.Convention = string(r.Convention)
		}
	}
	for _, d := range r.Documents {
		rec.Documents = append(rec.Documents, d.String())
	}
	rec.Corpus = r.Corpus != nil
	rec.Strict = r.Strict
	rec.CloseAfter = "end of input"
	if r.closeAfter > 0 {
		rec.CloseAfter = fmt.Sprintf("%d records after the trace is complete", r.closeAfter)
	}
	return m
}

// problem records one problem, or returns it as an error under Strict.
func (m *Manifest) problem(r *rules, k Kind, at place, spanID, name string) error {
	if r.Strict {
		msg := string(k)
		if name != "" {
			msg += ": " + name
		}
		if spanID != "" {
			msg += " (span " + spanID + ")"
		}
		return &diag.Error{File: at.file, Line: at.line, Msg: msg, Hint: "{strict} makes every mapping problem an error"}
	}
	count(m.problems, k, at, name)
	return nil
}

// note records a choice made for one trace.
func (m *Manifest) note(k Kind, at place, name string) { count(m.notes, k, at, name) }

func count(to map[Kind]*Problem, k Kind, at place, name string) {
	p := to[k]
	if p == nil {
		p = &Problem{Kind: k, First: at.String(), names: map[string]bool{}}
		to[k] = p
	}
	p.Count++
	if name != "" && !p.names[name] && len(p.names) < maxNames {
		p.names[name] = true
	}
}

// finish sorts what was gathered.
func (m *Manifest) finish() {
	m.Problems, m.Notes = sorted(m.problems), sorted(m.notes)
	if len(m.keys) > 0 {
		m.Unmapped = sortKeys(m.keys)
	}
}

func sorted(from map[Kind]*Problem) []Problem {
	out := []Problem{}
	for _, k := range slices.Sorted(maps.Keys(from)) {
		p := from[k]
		p.Names = slices.Sorted(maps.Keys(p.names))
		out = append(out, *p)
	}
	return out
}

// Summary is the manifest in a few lines for a person: what was read and
// written, where query ids and systems came from, and every problem.
func (m *Manifest) Summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "imported %d traces from %d %s spans (%d records, %s)\n", m.Traces, m.Spans, m.Format, m.Records,
		strings.Join(m.Files, ", "))
	if m.Conventions != nil {
		fmt.Fprintf(&b, "conventions: %s\n", spanCounts(m.Conventions))
	}
	fmt.Fprintf(&b, "query id from: %s\n", counts(m.QueryID))
	fmt.Fprintf(&b, "system from: %s\n", counts(m.System))
	fmt.Fprintf(&b, "context items: %d packed whole, %d truncated, %d dropped in packing\n",
		m.Context.Packed, m.Context.Truncated, m.Context.Dropped)
	for _, p := range m.Problems {
		p.line(&b, "not mapped")
	}
	for _, p := range m.Notes {
		p.line(&b, "note")
	}
	return b.String()
}

func (p *Problem) line(b *strings.Builder, label string) {
	fmt.Fprintf(b, "%s: %d %s", label, p.Count, p.Kind)
	if len(p.Names) > 0 {
		fmt.Fprintf(b, ": %s", strings.Join(p.Names, ", "))
		if len(p.Names) == maxNames {
			b.WriteString(", ...")
		}
	}
	fmt.Fprintf(b, " (first at %s)\n", p.First)
}

func counts(m map[string]int) string {
	if len(m) == 0 {
		return "(no traces)"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s (%d)", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// spanCounts writes span counts by name, the most first.
func spanCounts(m map[string]int) string {
	if len(m) == 0 {
		return "(no spans)"
	}
	names := slices.Sorted(maps.Keys(m))
	slices.SortStableFunc(names, func(x, y string) int { return m[y] - m[x] })
	var parts []string
	for _, k := range names {
		unit := "spans"
		if m[k] == 1 {
			unit = "span"
		}
		parts = append(parts, fmt.Sprintf("%s (%d %s)", k, m[k], unit))
	}
	return strings.Join(parts, ", ")
}
