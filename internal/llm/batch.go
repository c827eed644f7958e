package llm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/jsonin"
)

// A batch line is one request of an OpenAI Batch API input file.
type batchLine struct {
	CustomID string  `json:"custom_id"`
	Method   string  `json:"method"`
	URL      string  `json:"url"`
	Body     Request `json:"body"`
}

// Batch collects requests instead of sending them, to be written as a
// Batch API input file (WriteTo); each is answered ErrBatched.
type Batch struct {
	lines []batchLine
}

// Generate records the request and answers nothing.
func (b *Batch) Generate(_ context.Context, id string, req Request) (Response, error) {
	b.lines = append(b.lines, batchLine{CustomID: id, Method: "POST", URL: "/v1/chat/completions", Body: req})
	return Response{}, ErrBatched
}

// Len is the number of requests recorded.
func (b *Batch) Len() int { return len(b.lines) }

// WriteTo writes the requests as JSON Lines, one Batch API request a line.
func (b *Batch) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, l := range b.lines {
		if err := enc.Encode(l); err != nil {
			return 0, err
		}
	}
	return int64(bw.Buffered()), bw.Flush()
}

// ErrBatched is Batch's answer to every request: written to the batch,
// not answered.
var ErrBatched = errors.New("written to the batch")

// batchOutput is one line of a Batch API output file.
type batchOutput struct {
	ID       string `json:"id"`
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int          `json:"status_code"`
		Body       wireResponse `json:"body"`
	} `json:"response"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// BatchAnswers are the answers of a Batch API output file, by custom_id.
type BatchAnswers struct {
	answers map[string]Response
	failed  map[string]string
}

// ReadBatch reads a Batch API output file strictly: every line a result
// with a custom_id, no custom_id twice. Fields a command does not
// read (ids, usage details) are allowed, as providers add them.
func ReadBatch(f *input.File) (*BatchAnswers, error) {
	b := &BatchAnswers{answers: map[string]Response{}, failed: map[string]string{}}
	err := jsonin.FileLines(f, f.Name, func(n int, line []byte) error {
		bad := func(msg string) error { return &diag.Error{File: f.Name, Line: n, Msg: msg} }
		if err := jsonin.Unique(f.Name, n, line); err != nil {
			return err
		}
		var o batchOutput
		if err := json.Unmarshal(line, &o); err != nil {
			return bad("not a Batch API output line: " + err.Error())
		}
		_, answered := b.answers[o.CustomID]
		_, failed := b.failed[o.CustomID]
		switch {
		case o.CustomID == "":
			return bad(`missing "custom_id"`)
		case answered || failed:
			return bad("custom_id " + o.CustomID + " appears twice")
		case o.Error != nil:
			b.failed[o.CustomID] = o.Error.Code + ": " + o.Error.Message
		case o.Response == nil:
			return bad(`neither "response" nor "error"`)
		case o.Response.StatusCode != 200:
			b.failed[o.CustomID] = fmt.Sprintf("status %d", o.Response.StatusCode)
		default:
			resp, ok := o.Response.Body.response()
			if !ok {
				return bad("the response has no choices")
			}
			b.answers[o.CustomID] = resp
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Generate answers with the batch's result for id.
func (b *BatchAnswers) Generate(_ context.Context, id string, _ Request) (Response, error) {
	if r, ok := b.answers[id]; ok {
		return r, nil
	}
	if why, ok := b.failed[id]; ok {
		return Response{}, fmt.Errorf("the batch failed request %s: %s", id, why)
	}
	return Response{}, fmt.Errorf("the batch output has no answer for %s", id)
}
