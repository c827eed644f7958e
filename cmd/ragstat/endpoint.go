package main

import (
	"time"

	"github.com/ragstat/ragstat/internal/llm"
)

// endpointFlags reach an OpenAI-compatible endpoint, or Batch API files in
// its place: intervene's generator and judge fill's judge. The embedding
// sets rate_limit, the default of --rate-limit.
type endpointFlags struct {
	Endpoint      string        `placeholder:"URL" help:"OpenAI-compatible API base URL, up to /v1 (e.g. http://127.0.0.1:8000/v1)."`
	APIKeyEnv     string        `default:"OPENAI_API_KEY" placeholder:"NAME" help:"Environment variable holding the API key (default ${default})."`
	Retries       int           `default:"4" help:"Retries of a request that met a rate limit, a server or a network error (default ${default})."`
	RateLimit     float64       `default:"${rate_limit}" placeholder:"N" help:"At most N requests a second; 0 for no limit (default ${default})."`
	Timeout       time.Duration `default:"120s" help:"Time limit of one request, its retries and their waits included (default ${default})."`
	MaxRetryAfter time.Duration `default:"60s" placeholder:"D" help:"Longest wait a Retry-After header gets (default ${default})."`
	Cache         string        `placeholder:"FILE" help:"Keep the answers in FILE, by endpoint URL and request: a rerun sends only what is new (default: no cache, every request sent)."`
	NoCache       bool          `help:"Send every request, keep no answer, even with --cache."`
	WriteBatch    string        `placeholder:"FILE" help:"Send nothing: write the requests as an OpenAI Batch API input file (JSONL)."`
	ReadBatch     string        `placeholder:"FILE" help:"Send nothing: read the answers from a Batch API output file."`
}

// endpoint is the flags in the client's words.
func (f endpointFlags) endpoint() llm.Endpoint {
	return llm.Endpoint{URL: f.Endpoint, Timeout: f.Timeout, Retries: f.Retries, RateLimit: f.RateLimit, Cache: f.Cache, MaxRetryAfter: f.MaxRetryAfter}
}
