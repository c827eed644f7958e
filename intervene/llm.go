package intervene

import (
	"cmp"
	"slices"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/llm"
	"github.com/ragstat/ragstat/trace"
)

// The chat endpoint's types, shared with the other commands that ask a
// language model.
type (
	// Message is one chat message.
	Message = llm.Message
	// Request is a Chat Completions request body.
	Request = llm.Request
	// Response is the first choice of an answer and its token usage.
	Response = llm.Response
	// Generator answers chat requests: an endpoint (Endpoint.Open), the
	// answers of a batch (ReadBatch), a Batch that records the requests,
	// or a test's stand-in.
	Generator = llm.Generator
	// Endpoint is an OpenAI-compatible endpoint's settings: Open gives
	// its client (retries, a rate limit, no redirects, the key never in an
	// error) behind a cache of the answers.
	Endpoint = llm.Endpoint
	// Batch records the requests as an OpenAI Batch API input file.
	Batch = llm.Batch
	// BatchAnswers are the answers of a Batch API output file.
	BatchAnswers = llm.BatchAnswers
)

// ReadBatch reads a Batch API output file strictly (every line a result
// with a custom_id, none twice): the answers, by callID.
func ReadBatch(f *input.File) (*BatchAnswers, error) { return llm.ReadBatch(f) }

// callID names one request of an intervention: the arm ("original" or
// "verified"), the system and the query. It is the custom_id of a batch.
func callID(arm, system, query string) string { return arm + "/" + system + "/" + query }

// Gather collects the traces a scan yields, possibly from several
// goroutines at once, in a stable order: by file, line, system and query.
func Gather(scan func(fn func(*trace.Trace) error) error) ([]*trace.Trace, error) {
	var mu sync.Mutex
	var traces []*trace.Trace
	err := scan(func(t *trace.Trace) error {
		mu.Lock()
		defer mu.Unlock()
		traces = append(traces, t)
		return nil
	})
	slices.SortStableFunc(traces, func(a, b *trace.Trace) int {
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line),
			strings.Compare(a.System, b.System), strings.Compare(a.Query, b.Query))
	})
	return traces, err
}
