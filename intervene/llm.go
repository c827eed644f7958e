package intervene

import (
	"cmp"
	"slices"
	"strings"
	"sync"

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
	// Generator answers chat requests: the command line's client of an
	// OpenAI-compatible endpoint, its Batch API files, or a test's
	// stand-in.
	Generator = llm.Generator
)

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
