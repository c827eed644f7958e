package demo

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/ragstat/ragstat/intervene"
)

// rule is one thing the demo's reader knows how to answer: when its
// evidence is in the prompt, it gives the answer, citing the passage.
type rule struct{ evidence, answer string }

// rules are in priority order: a reader that trusts the first matching
// evidence it knows, as a hurried model does.
var rules = []rule{
	{"Clearance items are final sale", "No: clearance items are final sale. [exceptions#4] [policy#2]"},
	{"6000 requests per minute", "6000 requests per minute per key. [limits-b#1]"},
	{"600 requests per minute", "600 requests per minute per key. [limits#1]"},
	{"within 14 days", "Within 14 days of delivery. [policy-2025#2]"},
	{"within 30 days", "Within 30 days of delivery. [policy#2]"},
}

// Abstention is what the reader says when no evidence it knows is in the
// prompt.
const Abstention = "I cannot answer from the context."

// Reader is the demo's generator: a deterministic stand-in for a language
// model, answering from the prompt alone by the first rule whose evidence
// the prompt holds, and declining otherwise.
type Reader struct{}

// Generate answers req.
func (Reader) Generate(_ context.Context, _ string, req intervene.Request) (intervene.Response, error) {
	var prompt strings.Builder
	for _, m := range req.Messages {
		prompt.WriteString(m.Content)
		prompt.WriteByte('\n')
	}
	for _, r := range rules {
		if strings.Contains(prompt.String(), r.evidence) {
			return intervene.Response{Text: r.answer, FinishReason: "stop"}, nil
		}
	}
	return intervene.Response{Text: Abstention, FinishReason: "stop"}, nil
}

// ReaderHandler serves the Reader as an OpenAI-compatible Chat Completions
// endpoint (POST /v1/chat/completions), for trying `ragstat intervene`
// without a model.
func ReaderHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var req intervene.Request
		d := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
		d.DisallowUnknownFields()
		if err := d.Decode(&req); err != nil || req.Model == "" || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"not a chat completion request"}}`, http.StatusBadRequest)
			return
		}
		resp, _ := Reader{}.Generate(r.Context(), "", req)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"object":  "chat.completion",
			"model":   req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": resp.FinishReason, "message": map[string]string{"role": "assistant", "content": resp.Text}}},
			"usage":   map[string]int{"prompt_tokens": 0, "completion_tokens": 0},
		})
	})
	return mux
}
