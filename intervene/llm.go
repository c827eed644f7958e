package intervene

import (
	"github.com/ragstat/ragstat/internal/llm"
)

// The chat endpoint's types, shared with the other commands that ask a
// language model.
type (
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
