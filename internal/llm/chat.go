// Package llm talks to an OpenAI-compatible Chat Completions endpoint for
// the commands that ask a language model: the intervention's generator and
// the relevance judge that fills judgment holes. One Client sends a request
// with retries (a Retry-After honoured up to a cap, every wait within a time
// limit), a rate limit, no redirect followed and the API key never in an
// error; a Cache answers a request seen before from a file, so a rerun sends
// nothing; a Batch writes the requests as an OpenAI Batch API input file and
// BatchAnswers reads the output back. Every source of answers is a
// Generator, which tests replace with a stand-in.
package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Message is one chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Request is an OpenAI Chat Completions request body: the model, the
// messages and the sampling settings; a setting left nil is not sent (the
// endpoint's default applies).
type Request struct {
	Model            string    `json:"model"`
	Messages         []Message `json:"messages"`
	Temperature      *float64  `json:"temperature,omitempty"`
	Seed             *int64    `json:"seed,omitempty"`
	MaxTokens        *int      `json:"max_tokens,omitempty"`
	TopP             *float64  `json:"top_p,omitempty"`
	FrequencyPenalty *float64  `json:"frequency_penalty,omitempty"`
	PresencePenalty  *float64  `json:"presence_penalty,omitempty"`
}

// Key identifies a request by its content: the SHA-256 of its JSON body.
// Key is the sha256 of everything a request sends but the API key: the
// URL it goes to (the endpoint's chat completions) and the body. Two
// requests with the same key get the same answer from the cache.
func Key(endpoint string, r Request) string {
	b, _ := json.Marshal(r) // a Request always marshals
	h := sha256.New()
	h.Write([]byte(completions(endpoint)))
	h.Write([]byte{0})
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// Response is the part of a Chat Completions response a command reads: the
// first choice's text, why it ended and the token usage.
type Response struct {
	Text         string `json:"text"`
	FinishReason string `json:"finish_reason,omitempty"`
	PromptTokens int    `json:"prompt_tokens,omitempty"`
	OutputTokens int    `json:"completion_tokens,omitempty"`
	// Cached marks an answer a Cache gave from its file, not sent for.
	Cached bool `json:"-"`
}

// Generator answers chat requests: an OpenAI-compatible endpoint (Client),
// answers read back from a batch (BatchAnswers), or a test's stand-in. id
// names the request within one run of a command (a batch's custom_id); a
// live endpoint ignores it.
type Generator interface {
	Generate(ctx context.Context, id string, req Request) (Response, error)
}

// wireResponse is the Chat Completions response body.
type wireResponse struct {
	Choices []struct {
		Message      Message `json:"message"`
		FinishReason string  `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

func (w wireResponse) response() (Response, bool) {
	if len(w.Choices) == 0 {
		return Response{}, false
	}
	return Response{Text: w.Choices[0].Message.Content, FinishReason: w.Choices[0].FinishReason,
		PromptTokens: w.Usage.PromptTokens, OutputTokens: w.Usage.CompletionTokens}, true
}
