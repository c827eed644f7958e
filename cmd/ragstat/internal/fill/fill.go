package fill

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ragstat/ragstat/internal/llm"
	"github.com/ragstat/ragstat/judgments"
)

// Pair is one (query, item) for the judge, with its texts and the systems
// that returned it in their top k.
type Pair struct {
	Query, Item   string
	Text, Passage string // the query's text and the item's
	Systems       []string
}

// CallID names a pair's request in a batch (its custom_id): a digest of
// the query and item ids, as they may hold any character.
func CallID(query, item string) string {
	h := sha256.Sum256([]byte(query + "\x00" + item))
	return "label-" + hex.EncodeToString(h[:16])
}

// Judge is how the labels are asked for.
type Judge struct {
	Template Template
	Scale    judgments.Scale // the grades an answer may give
	// Model, Temperature, Seed and MaxTokens are the request's settings;
	// top_p 1 and the penalties (frequency 0.5, presence 0) are UMBRELA's.
	Model       string
	Temperature *float64
	Seed        *int64
	MaxTokens   int
	// Endpoint is the API's base URL as the labels record it (credentials
	// removed); "" for answers read from a batch output.
	Endpoint  string
	Generator llm.Generator
	// Workers is how many requests are in flight at once (1 when 0).
	Workers int
	Now     func() time.Time // the labels' time
	// Done, when set, is called once a pair is settled (a progress bar).
	Done func()
}

// system is UMBRELA's system message.
const system = "You are a helpful assistant."

// Request is the chat request that asks for p's grade.
func (j Judge) Request(p Pair) llm.Request {
	one, half, zero := 1.0, 0.5, 0.0
	maxTokens := j.MaxTokens
	return llm.Request{Model: j.Model,
		Messages:    []llm.Message{{Role: "system", Content: system}, {Role: "user", Content: j.Template.Prompt(p.Text, p.Passage)}},
		Temperature: j.Temperature, Seed: j.Seed, MaxTokens: &maxTokens,
		TopP: &one, FrequencyPenalty: &half, PresencePenalty: &zero}
}

// Problem is a pair left a hole: why, and the answer when there was one.
type Problem struct {
	Pair   Pair
	Answer string
	Err    error
}

// Outcome is what labelling found.
type Outcome struct {
	// Labels are the grades read, in the pairs' order, each with its
	// provenance.
	Labels []judgments.Judgment
	// Unparseable are the pairs whose answer gave no grade on the scale;
	// Failed those whose request failed (after the client's retries).
	Unparseable, Failed []Problem
	// Sent counts the requests sent to the endpoint, Cached those answered
	// from the cache, Batched those written to a batch file.
	Sent, Cached, Batched int
	// PromptTokens and OutputTokens add up the usage the answers report
	// (cached answers included: they cost nothing now).
	PromptTokens, OutputTokens int
}

// Label asks for the grade of every pair. A request written to a batch
// counts as Batched; one that fails, or whose answer gives no grade,
// leaves its pair a hole, reported. It stops, with ctx's error, when ctx
// ends.
func (j Judge) Label(ctx context.Context, pairs []Pair) (*Outcome, error) {
	prov := judgments.Provenance{Model: j.Model, PromptSHA256: j.Template.SHA256, Endpoint: j.Endpoint,
		Temperature: j.Temperature, Seed: j.Seed}
	type result struct {
		resp llm.Response
		err  error
	}
	results := make([]result, len(pairs))
	workers := max(j.Workers, 1)
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				resp, err := j.Generator.Generate(ctx, CallID(pairs[i].Query, pairs[i].Item), j.Request(pairs[i]))
				results[i] = result{resp, err}
				if j.Done != nil {
					j.Done()
				}
			}
		})
	}
feed:
	for i := range pairs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := &Outcome{}
	for i, r := range results {
		p := pairs[i]
		switch {
		case errors.Is(r.err, llm.ErrBatched):
			out.Batched++
			continue
		case r.err != nil:
			out.Failed = append(out.Failed, Problem{Pair: p, Err: r.err})
			continue
		case r.resp.Cached:
			out.Cached++
		default:
			out.Sent++
		}
		out.PromptTokens += r.resp.PromptTokens
		out.OutputTokens += r.resp.OutputTokens
		g, err := ParseGrade(r.resp.Text, j.Scale)
		if err != nil {
			out.Unparseable = append(out.Unparseable, Problem{Pair: p, Answer: r.resp.Text, Err: err})
			continue
		}
		pv := prov
		pv.Time = j.Now().UTC().Truncate(time.Second)
		out.Labels = append(out.Labels, judgments.Judgment{Query: p.Query, Item: p.Item, Grade: g, LLM: &pv})
	}
	return out, nil
}

// Describe is a Problem in one line.
func (p Problem) Describe() string {
	msg := fmt.Sprintf("query %q item %q: %v", p.Pair.Query, p.Pair.Item, p.Err)
	if p.Answer != "" {
		msg += fmt.Sprintf(" (answer %q)", cut(p.Answer, 120))
	}
	return msg
}
