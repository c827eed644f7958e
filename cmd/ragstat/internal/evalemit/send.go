package evalemit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Endpoint is where Send posts OTLP/HTTP requests: a collector's (or
// Phoenix's) /v1/logs for the OTLP form, /v1/traces for OpenInference.
type Endpoint struct {
	URL string
	// Headers are added to every request (an authorization, a tenant).
	Headers map[string]string
	// Client sends the requests; nil: one that gives up on a request after
	// Timeout.
	Client *http.Client
	// Timeout bounds each request when Client is nil; 0: 30 seconds.
	Timeout time.Duration
}

// maxReply bounds what is read of a reply.
const maxReply = 64 << 10

// Send posts every line that Finish wrote in an OTLP form (one export
// request a line) to the endpoint as OTLP/HTTP JSON, in order, and returns
// how many requests were accepted. It stops at the first request refused
// (a status other than 2xx, or a partial success that rejected records),
// naming it.
func Send(ctx context.Context, to Endpoint, f Format, lines io.Reader) (int, error) {
	if f != OTLP && f != OpenInference {
		return 0, fmt.Errorf("evalemit: Endpoint: the %s form is not OTLP: write it to a file and send it with the tool's own client", f)
	}
	if to.URL == "" {
		return 0, fmt.Errorf("evalemit: Endpoint.URL is empty")
	}
	client := to.Client
	if client == nil {
		timeout := to.Timeout
		if timeout == 0 {
			timeout = 30 * time.Second
		}
		client = &http.Client{Timeout: timeout}
	}
	sc := bufio.NewScanner(lines)
	sc.Buffer(nil, 1<<30)
	sent := 0
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		if err := post(ctx, client, to, sc.Bytes()); err != nil {
			return sent, fmt.Errorf("evalemit: request %d: %w", sent+1, err)
		}
		sent++
	}
	return sent, sc.Err()
}

func post(ctx context.Context, client *http.Client, to Endpoint, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, to.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range to.Headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	reply, err := io.ReadAll(io.LimitReader(resp.Body, maxReply))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(reply))
	}
	return rejected(reply)
}

// rejected reads an OTLP reply's partial success: an error naming how many
// records or spans were refused, nil when none was (or the reply is not
// JSON: the status said the request was accepted).
func rejected(reply []byte) error {
	var partial struct {
		PartialSuccess struct {
			RejectedLogRecords json.Number `json:"rejectedLogRecords"`
			RejectedSpans      json.Number `json:"rejectedSpans"`
			ErrorMessage       string      `json:"errorMessage"`
		} `json:"partialSuccess"`
	}
	if json.Unmarshal(reply, &partial) == nil {
		p := partial.PartialSuccess
		for _, n := range []json.Number{p.RejectedLogRecords, p.RejectedSpans} {
			if k, err := n.Int64(); err == nil && k > 0 {
				return fmt.Errorf("%d rejected: %s", k, p.ErrorMessage)
			}
		}
	}
	return nil
}
