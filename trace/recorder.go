package trace

import (
	"encoding/json"
	"io"
	"sync"
)

// Recorder writes traces as JSON Lines for an application that wants its
// pipeline evaluated. It is safe for concurrent use: each Record writes one
// whole line.
type Recorder struct {
	mu     sync.Mutex
	enc    *json.Encoder
	system string
	config json.RawMessage
}

// NewRecorder writes to w; every trace is labelled with system and the
// given configuration (any JSON-encodable value; nil for none).
func NewRecorder(w io.Writer, system string, config any) (*Recorder, error) {
	var raw json.RawMessage
	if config != nil {
		b, err := json.Marshal(config)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	return &Recorder{enc: json.NewEncoder(w), system: system, config: raw}, nil
}

// Query starts the trace of one query.
func (r *Recorder) Query(id string) *Builder {
	return &Builder{r: r, t: Trace{Query: id, System: r.system, Config: r.config}}
}

// Builder collects one query's trace. A Builder belongs to one goroutine;
// many Builders may share a Recorder.
type Builder struct {
	r *Recorder
	t Trace
}

// Scope records the permission scopes and effective date (YYYY-MM-DD, or
// "") the query ran under.
func (b *Builder) Scope(scopes []string, asOf string) *Builder {
	b.t.Scopes = scopes
	if asOf != "" {
		b.t.AsOf.UnmarshalJSON([]byte(`"` + asOf + `"`))
	}
	return b
}

// Stage records a stage's ranked items.
func (b *Builder) Stage(name string, items ...Item) *Builder {
	b.t.Stages = append(b.t.Stages, Stage{Name: name, Items: items})
	return b
}

// Context records the packed context: budget, reserve, the exact strings
// sent, and the packed text of each item.
func (b *Builder) Context(budget, reserve int, instructions, request, text string, items ...Item) *Builder {
	b.t.Stages = append(b.t.Stages, Stage{Name: ContextStage, Items: items, BudgetTokens: &budget,
		AnswerReserveTokens: &reserve, Instructions: &instructions, Request: &request, Text: &text})
	return b
}

// Answer records the generator's answer.
func (b *Builder) Answer(text string, citations []string, abstained bool) *Builder {
	b.t.Answer = &Answer{Text: text, Citations: citations, Abstained: &abstained}
	return b
}

// Latency records how long a stage took, in milliseconds.
func (b *Builder) Latency(stage string, ms float64) *Builder {
	if b.t.Latency == nil {
		b.t.Latency = map[string]float64{}
	}
	b.t.Latency[stage] = ms
	return b
}

// Record checks the trace and writes it as one line.
func (b *Builder) Record() error {
	if err := b.t.Check(); err != nil {
		return err
	}
	b.r.mu.Lock()
	defer b.r.mu.Unlock()
	return b.r.enc.Encode(&b.t)
}

// Scored is a convenience for an item with a score.
func Scored(id string, score float64) Item { return Item{ID: id, Score: &score} }

// Packed is a convenience for a context item with its packed text.
func Packed(id, text string) Item { return Item{ID: id, Text: &text} }
