package llm

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Client sends requests to an OpenAI-compatible Chat Completions endpoint,
// with retries on rate limits and server errors, and at most one request
// per Interval.
type Client struct {
	// Endpoint is the API's base URL up to /v1 ("https://host/v1");
	// requests go to Endpoint + "/chat/completions".
	Endpoint string
	APIKey   string // sent as a Bearer token when not empty
	HTTP     *http.Client
	// Retries is how many times a request that met a rate limit (429), a
	// server error (5xx) or a network error is tried again.
	Retries int
	// Backoff is the wait before the first retry, doubled each time (a
	// Retry-After header in seconds overrides it, up to MaxRetryAfter).
	Backoff time.Duration
	// MaxRetryAfter is the longest wait a Retry-After header gets;
	// DefaultMaxRetryAfter when zero.
	MaxRetryAfter time.Duration
	// Timeout, when not zero, bounds one request with its retries and
	// their waits: a wait that would end past it is not begun.
	Timeout time.Duration
	// Interval is the least time between two requests (a rate limit); 0
	// sends at once.
	Interval time.Duration
	// Sleep waits; nil means time.Sleep honouring ctx. Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Role names the endpoint in errors ("judge: 429 ..."); "" is
	// "generator".
	Role string

	mu   sync.Mutex
	next time.Time
}

// maxRetryAfterSeconds is the most of a Retry-After header read, a year,
// before MaxRetryAfter caps it.
const maxRetryAfterSeconds = 365 * 24 * 3600

// maxResponse bounds the body read from the endpoint.
const maxResponse = 16 << 20

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// pace waits until the rate limit lets the next request go.
func (c *Client) pace(ctx context.Context) error {
	if c.Interval <= 0 {
		return nil
	}
	c.mu.Lock()
	now := time.Now()
	wait := c.next.Sub(now)
	c.next = now.Add(max(wait, 0) + c.Interval)
	c.mu.Unlock()
	return c.sleep(ctx, wait)
}

// Generate sends req and returns the first choice. Its errors never hold
// the API key, nor the credentials of the endpoint's URL.
func (c *Client) Generate(ctx context.Context, _ string, req Request) (Response, error) {
	resp, err := c.generate(ctx, req)
	if err != nil && ctx.Err() == nil {
		err = errors.New(Redact(err.Error(), c.APIKey))
	}
	return resp, err
}

func (c *Client) generate(parent context.Context, req Request) (Response, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return Response{}, err
	}
	ctx := parent
	var deadline time.Time
	if c.Timeout > 0 {
		deadline = time.Now().Add(c.Timeout)
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	url := completions(c.Endpoint)
	wait := c.Backoff
	for attempt := 0; ; attempt++ {
		if err := c.pace(ctx); err != nil {
			return Response{}, err
		}
		resp, retryAfter, err := c.post(ctx, url, body)
		if err != nil && parent.Err() == nil && ctx.Err() != nil {
			return Response{}, fmt.Errorf("%s: no answer within the time limit of %s (%s)", c.role(), c.Timeout, tries(attempt+1))
		}
		var retry *retryable
		if err == nil || !errors.As(err, &retry) || attempt >= c.Retries {
			if retry != nil && attempt >= c.Retries {
				err = fmt.Errorf("%w (%s)", err, tries(attempt+1))
			}
			return resp, err
		}
		d := wait
		if retryAfter > 0 {
			d = min(retryAfter, cmp.Or(c.MaxRetryAfter, defaultMaxRetryAfter))
		}
		if !deadline.IsZero() && time.Now().Add(d).After(deadline) {
			return Response{}, fmt.Errorf("%w; the next try, %s later, would end past the time limit of %s (%s)", err, d, c.Timeout, tries(attempt+1))
		}
		if err := c.sleep(ctx, d); err != nil {
			return Response{}, err
		}
		wait *= 2
	}
}

// tries says how many tries were made.
func tries(n int) string {
	if n == 1 {
		return "after 1 try"
	}
	return fmt.Sprintf("after %d tries", n)
}

// retryable is a failure worth trying again.
type retryable struct{ err error }

func (r *retryable) Error() string { return r.err.Error() }
func (r *retryable) Unwrap() error { return r.err }

func (c *Client) post(ctx context.Context, url string, body []byte) (Response, time.Duration, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Response{}, 0, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	if c.APIKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return Response{}, 0, err
		}
		return Response{}, 0, &retryable{fmt.Errorf("%s: %w", c.role(), err)}
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return Response{}, 0, &retryable{fmt.Errorf("%s: reading the response: %w", c.role(), err)}
	}
	if len(data) > maxResponse {
		return Response{}, 0, fmt.Errorf("%s: response over %d bytes", c.role(), maxResponse)
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		after, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		after = min(after, maxRetryAfterSeconds) // a Duration holds it
		return Response{}, time.Duration(after) * time.Second,
			&retryable{fmt.Errorf("%s: %s: %s", c.role(), resp.Status, snippet(data))}
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return Response{}, 0, fmt.Errorf("%s: %s to %q: redirects are not followed (the prompt and the key go to the endpoint named only): give the endpoint's final URL", c.role(), resp.Status, resp.Header.Get("Location"))
	}
	if resp.StatusCode != http.StatusOK {
		return Response{}, 0, fmt.Errorf("%s: %s: %s", c.role(), resp.Status, snippet(data))
	}
	var w wireResponse
	if err := json.Unmarshal(data, &w); err != nil {
		return Response{}, 0, fmt.Errorf("%s: the response is not a chat completion: %v", c.role(), err)
	}
	r, ok := w.response()
	if !ok {
		return Response{}, 0, fmt.Errorf("%s: the response has no choices", c.role())
	}
	return r, 0, nil
}

func (c *Client) role() string { return cmp.Or(c.Role, "generator") }

// completions is the URL a request to endpoint goes to.
func completions(endpoint string) string {
	return strings.TrimSuffix(endpoint, "/") + "/chat/completions"
}

// snippet cuts a response body for a message.
func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
