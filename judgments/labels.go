package judgments

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"
)

// Provenance says where an LLM label came from: a Judgment with one is an
// LLM judge's label, one without a person's grade.
type Provenance struct {
	Model string // the judge model, as the endpoint names it
	// PromptSHA256 is the SHA-256 of the prompt template the judge was
	// given, 64 lowercase hexadecimal digits.
	PromptSHA256 string
	// Endpoint is the API's base URL, credentials removed; "" when not
	// recorded.
	Endpoint string
	// Temperature and Seed are the sampling settings sent; nil when not
	// sent (the endpoint's default).
	Temperature *float64
	Seed        *int64
	Time        time.Time // when the answer was received
	// Audit marks a label whose query was drawn, uniformly at random, for
	// the human audit: every LLM label of that query is to get a person's
	// grade.
	Audit bool
}

// check reports what makes p unusable.
func (p *Provenance) check() error {
	switch {
	case strings.TrimSpace(p.Model) == "":
		return fmt.Errorf(`an LLM label needs "model": the judge model`)
	case len(p.PromptSHA256) != 64 || strings.Trim(p.PromptSHA256, "0123456789abcdef") != "":
		return fmt.Errorf(`"prompt_sha256" %q is not a SHA-256 in 64 lowercase hexadecimal digits`, p.PromptSHA256)
	case p.Time.IsZero():
		return fmt.Errorf(`an LLM label needs "time": when it was given (RFC 3339)`)
	case p.Temperature != nil && (math.IsNaN(*p.Temperature) || math.IsInf(*p.Temperature, 0) || *p.Temperature < 0):
		return fmt.Errorf(`"temperature" %v is not a finite number of 0 or more`, *p.Temperature)
	}
	return nil
}

// labels holds a set's LLM labels, apart from people's grades: a pair may
// carry one of each. Everything that reads a Set's grades reads people's
// alone unless it asks for a View.
type labels struct {
	byQuery map[string][]Judgment // in reading order
	at      map[[2]string]int     // (query, item) -> the label's line, for repeats
	order   []string
	count   int
	models  map[string]int
}

// addLabel records an LLM label; a second label of the same pair is an
// error naming both lines.
func (s *Set) addLabel(j Judgment) error {
	l := s.labels
	if l == nil {
		l = &labels{byQuery: map[string][]Judgment{}, at: map[[2]string]int{}, models: map[string]int{}}
		s.labels = l
	}
	key := [2]string{j.Query, j.Item}
	if first, dup := l.at[key]; dup {
		return fmt.Errorf("a second LLM label of this pair (the first on line %d)", first)
	}
	j.Query, j.Item = strings.Clone(j.Query), strings.Clone(j.Item)
	j.Spans, j.Facts, j.Meta = slices.Clone(j.Spans), slices.Clone(j.Facts), slices.Clone(j.Meta)
	key = [2]string{j.Query, j.Item}
	l.at[key] = j.Line
	if _, seen := l.byQuery[j.Query]; !seen {
		l.order = append(l.order, j.Query)
	}
	l.byQuery[j.Query] = append(l.byQuery[j.Query], j)
	l.count++
	l.models[j.LLM.Model]++
	return nil
}

// subset is the labels of the queries keep accepts; nil when none.
func (l *labels) subset(keep func(query string) bool) *labels {
	if l == nil {
		return nil
	}
	var out *labels
	for _, id := range l.order {
		if !keep(id) {
			continue
		}
		if out == nil {
			out = &labels{byQuery: map[string][]Judgment{}, at: map[[2]string]int{}, models: map[string]int{}}
		}
		out.order = append(out.order, id)
		out.byQuery[id] = l.byQuery[id]
		for _, j := range l.byQuery[id] {
			out.at[[2]string{j.Query, j.Item}] = j.Line
			out.models[j.LLM.Model]++
			out.count++
		}
	}
	return out
}

// LLMLen is the number of LLM labels the set holds.
func (s *Set) LLMLen() int {
	if s.labels == nil {
		return 0
	}
	return s.labels.count
}

// LLMQueries lists the queries with at least one LLM label, in the order
// they first appear.
func (s *Set) LLMQueries() []string {
	if s.labels == nil {
		return nil
	}
	return slices.Clone(s.labels.order)
}

// LLMJudgments returns the LLM labels of query id in reading order, each
// with its Provenance; nil when it has none.
func (s *Set) LLMJudgments(id string) []Judgment {
	if s.labels == nil {
		return nil
	}
	out := slices.Clone(s.labels.byQuery[id])
	for i := range out {
		out[i].Spans, out[i].Facts, out[i].Meta = slices.Clone(out[i].Spans), slices.Clone(out[i].Facts), slices.Clone(out[i].Meta)
	}
	return out
}

// Models lists the judge models of the set's LLM labels, sorted.
func (s *Set) Models() []string {
	if s.labels == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(s.labels.models))
}

// Notes are what building the set decided that a report must show: LLM
// labels of one pair in two files, the later kept (Merge).
func (s *Set) Notes() []string { return s.notes }

// View says which grades an evaluation reads from a set that holds LLM
// labels beside people's grades.
type View int

// The views.
const (
	// Human reads people's grades alone: LLM labels are ignored.
	Human View = iota
	// HumanOverLLM reads people's grades, and an LLM label where no person
	// graded the pair: the LLM fills the holes.
	HumanOverLLM
	// LLMOverHuman reads the LLM's label wherever there is one, people's
	// grades elsewhere: the LLM-filled reading, the same on audited pairs
	// as on the others, that prediction-powered inference corrects.
	LLMOverHuman
)

// View returns the judgments as v reads them, as a set of plain grades (no
// LLM labels) under the same name, format and lines. A set without LLM
// labels is its own Human view.
func (s *Set) View(v View) (*Set, error) {
	if s.labels == nil || v == Human {
		return s.plain(), nil
	}
	var js []Judgment
	for _, id := range s.IDs() {
		js = append(js, s.viewOf(id, v)...)
	}
	for _, id := range s.labels.order {
		if s.Query(id) == nil {
			js = append(js, s.viewOf(id, v)...)
		}
	}
	out, err := New(s.File, js, s.scale())
	if err != nil {
		return nil, err
	}
	out.Format = s.Format
	return out, nil
}

// plain is s without its LLM labels, sharing its judgments.
func (s *Set) plain() *Set {
	if s.labels == nil {
		return s
	}
	out := *s
	out.labels = nil
	return &out
}

// scale is a scale every grade of s is on: New checks the view's grades
// against it, and the set's were checked when read.
func (s *Set) scale() Scale { return Scale{MinGrade, MaxGrade} }

// viewOf is query id's judgments under v.
func (s *Set) viewOf(id string, v View) []Judgment {
	human := s.Judgments(id)
	if v == Human {
		return human
	}
	llm := s.labels.byQuery[id]
	graded := make(map[string]int, len(human))
	for i, j := range human {
		graded[j.Item] = i
	}
	for _, l := range llm {
		i, ok := graded[l.Item]
		l.LLM, l.Spans, l.Facts, l.Meta = nil, nil, nil, nil
		switch {
		case !ok:
			human = append(human, l)
		case v == LLMOverHuman:
			human[i].Grade = l.Grade
		}
	}
	return human
}

// Audit is how far people have graded the LLM labels of a set.
type Audit struct {
	// Labelled lists the queries with at least one LLM label.
	Labelled []string
	// Drawn lists the queries whose labels are marked Audit: drawn for
	// the audit.
	Drawn []string
	// Audited lists the queries of Labelled whose every LLM label has a
	// person's grade too; drawn ones only, when any is drawn.
	Audited []string
	// Missing counts, by drawn query not audited, its LLM labels that
	// have no person's grade yet.
	Missing map[string]int
	// Undrawn lists the queries whose every LLM label has a person's
	// grade although none was drawn for the audit: left out of Audited
	// when others were drawn, as they were not chosen at random.
	Undrawn []string
}

// Audit tells which LLM-labelled queries people have audited.
func (s *Set) Audit() Audit {
	a := Audit{Missing: map[string]int{}}
	if s.labels == nil {
		return a
	}
	var complete []string
	drawn := map[string]bool{}
	for _, id := range s.labels.order {
		a.Labelled = append(a.Labelled, id)
		missing := 0
		q := s.Query(id)
		for _, l := range s.labels.byQuery[id] {
			if l.LLM.Audit {
				drawn[id] = true
			}
			if q == nil {
				missing++
			} else if _, ok := q.Grade(l.Item); !ok {
				missing++
			}
		}
		if drawn[id] {
			a.Drawn = append(a.Drawn, id)
		}
		switch {
		case missing == 0:
			complete = append(complete, id)
		case drawn[id]:
			a.Missing[id] = missing
		}
	}
	for _, id := range complete {
		switch {
		case len(drawn) == 0 || drawn[id]:
			a.Audited = append(a.Audited, id)
		default:
			a.Undrawn = append(a.Undrawn, id)
		}
	}
	return a
}

// Paired returns, for every pair that carries both a person's grade and an
// LLM label, the two grades: people's in human, the LLM's in llm, in the
// order of the labels.
func (s *Set) Paired() (human, llm []int) {
	if s.labels == nil {
		return nil, nil
	}
	for _, id := range s.labels.order {
		q := s.Query(id)
		if q == nil {
			continue
		}
		for _, l := range s.labels.byQuery[id] {
			if g, ok := q.Grade(l.Item); ok {
				human = append(human, g)
				llm = append(llm, l.Grade)
			}
		}
	}
	return human, llm
}

// wireProvenance is an LLM label's provenance as a JSON Lines judgment
// writes it.
type wireProvenance struct {
	Source       *string  `json:"source,omitempty"`
	Model        *string  `json:"model,omitempty"`
	PromptSHA256 *string  `json:"prompt_sha256,omitempty"`
	Endpoint     *string  `json:"endpoint,omitempty"`
	Temperature  *float64 `json:"temperature,omitempty"`
	Seed         *int64   `json:"seed,omitempty"`
	Time         *string  `json:"time,omitempty"`
	Audit        *bool    `json:"audit,omitempty"`
}

// The label sources a judgment names.
const (
	sourceHuman = "human"
	sourceLLM   = "llm"
)

// provenance reads the wire fields: nil for a person's grade (no "source",
// or "human", and no LLM field), the provenance of an LLM label.
func (w wireProvenance) provenance() (*Provenance, error) {
	src := sourceHuman
	if w.Source != nil {
		src = *w.Source
	}
	switch src {
	case sourceHuman:
		if w.Model != nil || w.PromptSHA256 != nil || w.Endpoint != nil || w.Temperature != nil || w.Seed != nil || w.Time != nil || w.Audit != nil {
			return nil, fmt.Errorf(`a person's grade carries an LLM label's fields: give "source":"llm"`)
		}
		return nil, nil
	case sourceLLM:
	default:
		return nil, fmt.Errorf(`"source" %q is neither %q nor %q`, src, sourceHuman, sourceLLM)
	}
	p := &Provenance{Temperature: w.Temperature, Seed: w.Seed, Audit: w.Audit != nil && *w.Audit}
	for dst, v := range map[*string]*string{&p.Model: w.Model, &p.PromptSHA256: w.PromptSHA256, &p.Endpoint: w.Endpoint} {
		if v != nil {
			*dst = *v
		}
	}
	if w.Time != nil {
		t, err := time.Parse(time.RFC3339Nano, *w.Time)
		if err != nil {
			return nil, fmt.Errorf(`"time" %q is not an RFC 3339 time such as 2025-01-02T03:04:05Z`, *w.Time)
		}
		p.Time = t
	}
	return p, p.check()
}

// wire is p as a JSON Lines judgment writes it; the zero value for a
// person's grade (nil).
func (p *Provenance) wire() wireProvenance {
	if p == nil {
		return wireProvenance{}
	}
	src, model, sum := sourceLLM, p.Model, p.PromptSHA256
	w := wireProvenance{Source: &src, Model: &model, PromptSHA256: &sum, Temperature: p.Temperature, Seed: p.Seed}
	if p.Endpoint != "" {
		w.Endpoint = &p.Endpoint
	}
	if !p.Time.IsZero() {
		t := p.Time.UTC().Format(time.RFC3339Nano)
		w.Time = &t
	}
	if p.Audit {
		w.Audit = &p.Audit
	}
	return w
}
