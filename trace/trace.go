// Package trace holds what a RAG pipeline did for one query: the ranked
// items of every stage in pipeline order (candidates, reranked, ...), the
// packed context exactly as sent to the generator, the answer with its
// citations, stage latencies and the configuration that produced it. It
// reads traces strictly from JSON Lines and writes them for applications
// (see Recorder).
package trace

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/diag"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/jsonin"
)

// ContextStage is the name of the stage that holds the packed context.
const ContextStage = "context"

// Item is one item of a stage.
type Item struct {
	ID    string   `json:"id"`
	Score *float64 `json:"score,omitempty"`
	Text  *string  `json:"text,omitempty"` // the text as packed (context stage)
	corpus.Meta
}

// Stage is one step of the pipeline and what it delivered, in rank order.
type Stage struct {
	Name  string `json:"name"`
	Items []Item `json:"items"`
	// Context stage only: the token budget, the part reserved for the
	// answer, and the exact strings sent.
	BudgetTokens        *int    `json:"budget_tokens,omitempty"`
	AnswerReserveTokens *int    `json:"answer_reserve_tokens,omitempty"`
	Instructions        *string `json:"instructions,omitempty"`
	Request             *string `json:"request,omitempty"`
	Text                *string `json:"text,omitempty"`
}

// IDs lists the stage's item ids in rank order.
func (s *Stage) IDs() []string {
	out := make([]string, len(s.Items))
	for i, it := range s.Items {
		out[i] = it.ID
	}
	return out
}

// Answer is what the generator said.
type Answer struct {
	Text      string   `json:"text"`
	Citations []string `json:"citations,omitempty"`
	Abstained bool     `json:"abstained"`
}

// Trace is one query run through one system.
type Trace struct {
	Query   string             `json:"query"`
	System  string             `json:"system"`
	Scopes  []string           `json:"scopes,omitempty"`
	AsOf    jsonin.Date        `json:"as_of,omitzero"`
	Stages  []Stage            `json:"stages"`
	Answer  *Answer            `json:"answer,omitempty"`
	Latency map[string]float64 `json:"latency_ms,omitempty"`
	Config  json.RawMessage    `json:"config,omitempty"`
	Meta    json.RawMessage    `json:"meta,omitempty"`
	File    string             `json:"-"`
	Line    int                `json:"-"`
}

// Stage returns the stage called name, or nil.
func (t *Trace) Stage(name string) *Stage {
	for i := range t.Stages {
		if t.Stages[i].Name == name {
			return &t.Stages[i]
		}
	}
	return nil
}

// Check reports what makes a trace unusable: no query or system, an
// unnamed or repeated stage, an empty or repeated item id within a stage, a
// score that is not finite, a negative budget.
func (t *Trace) Check() error {
	switch {
	case strings.TrimSpace(t.Query) == "":
		return fmt.Errorf(`missing or empty "query"`)
	case strings.TrimSpace(t.System) == "":
		return fmt.Errorf(`missing or empty "system"`)
	case len(t.Stages) == 0:
		return fmt.Errorf(`no "stages": a trace records at least one stage`)
	}
	names := map[string]bool{}
	for _, s := range t.Stages {
		if strings.TrimSpace(s.Name) == "" {
			return fmt.Errorf("a stage has no name")
		}
		if names[s.Name] {
			return fmt.Errorf("stage %q repeated", s.Name)
		}
		names[s.Name] = true
		if err := s.check(); err != nil {
			return fmt.Errorf("stage %q: %v", s.Name, err)
		}
	}
	for stage, ms := range t.Latency {
		if math.IsNaN(ms) || math.IsInf(ms, 0) || ms < 0 {
			return fmt.Errorf("latency_ms %q: %v is not a finite non-negative number", stage, ms)
		}
	}
	return nil
}

func (s *Stage) check() error {
	seen := map[string]int{}
	for i, it := range s.Items {
		if strings.TrimSpace(it.ID) == "" {
			return fmt.Errorf("item %d has an empty id", i+1)
		}
		if j, dup := seen[it.ID]; dup {
			return fmt.Errorf("item %q at ranks %d and %d: evaluate the list the stage really produced", it.ID, j+1, i+1)
		}
		seen[it.ID] = i
		if it.Score != nil && (math.IsNaN(*it.Score) || math.IsInf(*it.Score, 0)) {
			return fmt.Errorf("item %q: score is not a finite number", it.ID)
		}
	}
	for _, n := range []*int{s.BudgetTokens, s.AnswerReserveTokens} {
		if n != nil && *n < 0 {
			return fmt.Errorf("a token budget is negative")
		}
	}
	return nil
}

// Read reads every trace of a file. A (query, system) pair seen twice is an
// error.
func Read(f *input.File) ([]*Trace, error) {
	r, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []*Trace
	seen := map[[2]string]int{}
	err = jsonin.Lines(r, f.Name, func(line int, data []byte) error {
		t := &Trace{File: f.Name, Line: line}
		if err := jsonin.Decode(data, t); err != nil {
			return &diag.Error{File: f.Name, Line: line, Msg: err.Error()}
		}
		if err := t.Check(); err != nil {
			return &diag.Error{File: f.Name, Line: line, Query: t.Query, Msg: err.Error()}
		}
		key := [2]string{t.Query, t.System}
		if first, dup := seen[key]; dup {
			return &diag.Error{File: f.Name, Line: line, Query: t.Query,
				Msg: fmt.Sprintf("system %q has a second trace for this query (also line %d)", t.System, first)}
		}
		seen[key] = line
		out = append(out, t)
		return nil
	})
	return out, err
}
