// Package trace holds what a RAG pipeline did for one query: the ranked
// items of every stage in pipeline order (candidates, reranked, ...), the
// packed context exactly as sent to the generator, the answer with its
// citations, stage latencies and the configuration that produced it. It
// reads traces strictly from JSON Lines and writes them for applications
// (see Recorder).
package trace

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
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
	// ReportedTokens is the prompt's size as the generator reported it
	// (an imported span's token count), kept beside ragstat's own count.
	ReportedTokens *int `json:"reported_tokens,omitempty"`
	// Calls, when present, make the stage a search step of several calls
	// (an agent that searched more than once): each call's item ids in its
	// own order, the calls in the order they ran. Items is then their
	// union, each item where it was first returned.
	Calls []Call `json:"calls,omitempty"`
	// SpanID is the id of the span the stage was read from, when imported
	// (the generator's span for the context, the first call's span for a
	// search step): where evaluations of the stage are written back.
	SpanID string `json:"span_id,omitempty"`
}

// Call is one call of a search step: the ids it returned, in its order,
// and the query text it was given, when recorded.
type Call struct {
	Query string   `json:"query,omitempty"`
	IDs   []string `json:"ids"`
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
	// Abstained says whether the generator declined to answer; nil: not
	// recorded (an imported trace without an abstention pattern), which
	// counts in no abstention rate.
	Abstained *bool `json:"abstained,omitempty"`
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
	// TraceID is the id of the trace the record was read from, when
	// imported (hexadecimal for OTLP); the stages' SpanIDs are its spans.
	TraceID string `json:"trace_id,omitempty"`
	// Conversation and Turn place a trace among the turns of one
	// conversation (a chat session): Turn counts from 1; 0 is none.
	Conversation string `json:"conversation,omitempty"`
	Turn         int    `json:"turn,omitempty"`
	File         string `json:"-"`
	Line         int    `json:"-"`
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
	if t.Turn < 0 {
		return fmt.Errorf("turn %d: turns count from 1", t.Turn)
	}
	for stage, ms := range t.Latency {
		if math.IsNaN(ms) || math.IsInf(ms, 0) || ms < 0 {
			return fmt.Errorf("latency_ms %q: %v is not a finite non-negative number", stage, ms)
		}
	}
	return nil
}

func (s *Stage) check() error {
	seen := ranks.Get().(map[string]int)
	defer func() { clear(seen); ranks.Put(seen) }()
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
	for i, c := range s.Calls {
		for _, id := range c.IDs {
			if _, ok := seen[id]; !ok {
				return fmt.Errorf("call %d returned %q, which is no item of the stage: the items are the union of the calls", i+1, id)
			}
		}
	}
	if len(s.Calls) > 0 {
		in := map[string]bool{}
		for _, c := range s.Calls {
			for _, id := range c.IDs {
				in[id] = true
			}
		}
		for _, it := range s.Items {
			if !in[it.ID] {
				return fmt.Errorf("item %q was returned by none of the calls", it.ID)
			}
		}
	}
	for _, n := range []*int{s.BudgetTokens, s.AnswerReserveTokens, s.ReportedTokens} {
		if n != nil && *n < 0 {
			return fmt.Errorf("a token budget is negative")
		}
	}
	return nil
}

// ranks are Stage.check's maps of the ranks of a stage's item ids, reused
// from stage to stage.
var ranks = sync.Pool{New: func() any { return map[string]int{} }}

// Read reads every trace of a file. A (query, system) pair seen twice is an
// error.
func Read(f *input.File) ([]*Trace, error) {
	var mu sync.Mutex
	var out []*Trace
	err := Scan(f, 1, func(t *Trace) error {
		mu.Lock()
		defer mu.Unlock()
		out = append(out, t)
		return nil
	})
	slices.SortFunc(out, func(a, b *Trace) int { return a.Line - b.Line })
	return out, err
}

// Scan decodes the traces of a file on workers goroutines (0: all cores)
// and calls fn for each, concurrently and in no particular order, so a large
// file is never held in memory whole. Problems (a malformed line, a trace
// that fails Check, a second trace for one query and system) are gathered,
// up to diag.Max, and returned once reading stops. A second trace is not
// handed to fn, unless more than 65,536 traces came between it and the
// first: the pairs seen are kept in temporary files (in os.TempDir), and
// such a repeat is found when reading ends.
func Scan(f *input.File, workers int, fn func(*Trace) error) error {
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	// Lines are read into the slices of lines already decoded: the
	// decoders copy what a trace keeps.
	free := make(chan []byte, 256)
	get := func() []byte {
		select {
		case b := <-free:
			return b
		default:
			return nil
		}
	}
	release := func(b []byte) {
		if cap(b) <= 1<<20 {
			select {
			case free <- b:
			default:
			}
		}
	}
	return scanRecords(f.Name, func(each func(line int, data []byte) error) error {
		return jsonin.LinesInto(r, f.Name, f, jsonin.DocumentLine, get, each)
	}, workers, fn, release)
}

// ScanRecords is Scan over traces that another reader finds in file, one
// JSON object each with its line (or row) number: records calls each for
// every one, in order, with a slice it does not reuse (each keeps it until
// the trace is decoded), and stops when each returns an error. Every check
// Scan makes applies.
func ScanRecords(file string, records func(each func(line int, data []byte) error) error, workers int, fn func(*Trace) error) error {
	return scanRecords(file, records, workers, fn, func([]byte) {})
}

// scanRecords is ScanRecords handing each record's slice to release once
// its trace is decoded and handed on.
func scanRecords(file string, records func(each func(line int, data []byte) error) error, workers int, fn func(*Trace) error, release func([]byte)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	s := &scanner{file: file, fn: fn, seen: newSeenPairs()}
	defer s.seen.close()
	lines := make(chan []numbered, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for batch := range lines {
				for _, l := range batch {
					s.decode(l)
					release(l.data)
				}
			}
		})
	}
	readErr := records(s.batcher(lines))
	if len(s.batch) > 0 {
		lines <- s.batch
	}
	close(lines)
	wg.Wait()
	s.add(readErr)
	if !s.errs.Full() {
		s.add(s.seen.finish(s.file))
	}
	s.errs.Sort()
	return s.errs.Err()
}

// numbered is one line of input and its number.
type numbered struct {
	line int
	data []byte
}

type scanner struct {
	file  string
	fn    func(*Trace) error
	mu    sync.Mutex
	seen  *seenPairs
	errs  diag.List
	batch []numbered
}

// batcher groups lines into batches for the workers.
func (s *scanner) batcher(out chan<- []numbered) func(int, []byte) error {
	return func(line int, data []byte) error {
		s.batch = append(s.batch, numbered{line, data})
		if len(s.batch) == 64 {
			out <- s.batch
			s.batch = nil
		}
		if s.full() {
			return errStop
		}
		return nil
	}
}

var errStop = errors.New("too many problems")

func (s *scanner) full() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errs.Full()
}

func (s *scanner) add(err error) {
	if err == nil || err == errStop {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var l *diag.List
	if errors.As(err, &l) {
		for _, e := range l.Errs() {
			if e != errStop {
				s.errs.Add(e)
			}
		}
		return
	}
	s.errs.Add(err)
}

// decode checks one line and hands the trace on.
func (s *scanner) decode(l numbered) {
	t := &Trace{File: s.file, Line: l.line}
	if err := decode(l.data, t); err != nil {
		s.add(&diag.Error{File: s.file, Line: l.line, Msg: err.Error()})
		return
	}
	if err := t.Check(); err != nil {
		s.add(&diag.Error{File: s.file, Line: l.line, Query: t.Query, Msg: err.Error()})
		return
	}
	if err := s.once(t); err != nil {
		s.add(err)
		return
	}
	s.add(s.fn(t))
}

// once rejects a second trace for the same query and system (see
// seenPairs for one found only when reading ends).
func (s *scanner) once(t *Trace) error {
	h := pairHash(s.seen.seed, t.Query, t.System)
	s.mu.Lock()
	defer s.mu.Unlock()
	first, dup, err := s.seen.add(h, t.Query, t.System, t.Line)
	if dup {
		return &diag.Error{File: s.file, Line: t.Line, Query: t.Query,
			Msg: fmt.Sprintf("system %q has a second trace for this query (also line %d)", t.System, first)}
	}
	return err
}

// Is reports whether f holds traces: its first non-blank line, read whole,
// is a JSON object with "stages".
func Is(f *input.File) (bool, error) {
	r, err := f.Open()
	if err != nil {
		return false, err
	}
	defer r.Close()
	br := bufio.NewReaderSize(r, 1<<16)
	for {
		c, err := br.ReadByte()
		switch {
		case err != nil:
			return false, nil
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			continue
		case c != '{':
			return false, nil // not JSON: the line, however long, need not be read
		}
		br.UnreadByte()
		line, err := jsonin.ReadLine(br, jsonin.DocumentLine)
		if err != nil && err != io.EOF {
			return false, nil
		}
		var probe map[string]json.RawMessage
		if json.Unmarshal(line, &probe) != nil {
			return false, nil
		}
		_, ok := probe["stages"]
		return ok, nil
	}
}
