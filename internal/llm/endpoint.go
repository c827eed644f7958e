package llm

import (
	"cmp"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ragstat/ragstat/internal/diag"
)

// Endpoint is how a command reaches an OpenAI-compatible endpoint: the
// client's settings and the file its answers are kept in.
type Endpoint struct {
	URL       string        // the API's base URL, up to /v1
	APIKey    string        // sent as a Bearer token when not empty
	Timeout   time.Duration // the time limit of one request, its retries and waits included
	Retries   int           // of a request that met a rate limit, a server or a network error
	RateLimit float64       // requests a second at most; 0 for no limit
	Cache     string        // the file of answers already received (its folder is created); "" keeps none
	// MaxRetryAfter is the longest wait a Retry-After header gets
	// (DefaultMaxRetryAfter when zero); every wait counts within Timeout.
	MaxRetryAfter time.Duration
	// Role names the endpoint in notes and errors; "" is "generator".
	Role string
}

// Open is the endpoint's Client, one second's backoff doubled at each
// retry, behind a Cache unless ep.Cache is empty.
func (ep Endpoint) Open() (Generator, error) {
	var interval time.Duration
	if ep.RateLimit > 0 {
		interval = time.Duration(float64(time.Second) / ep.RateLimit)
	}
	client := &Client{Endpoint: ep.URL, APIKey: ep.APIKey, HTTP: &http.Client{Timeout: ep.Timeout, CheckRedirect: noRedirect},
		Retries: ep.Retries, Backoff: time.Second, Interval: interval, Timeout: ep.Timeout, MaxRetryAfter: ep.MaxRetryAfter, Role: ep.Role}
	if ep.Cache == "" {
		return client, nil
	}
	if err := os.MkdirAll(filepath.Dir(ep.Cache), 0o755); err != nil {
		return nil, err
	}
	return OpenCache(ep.Cache, ep.URL, client)
}

// noRedirect leaves a redirect unfollowed: the request, its prompt and
// its key go to the endpoint named and nowhere else.
func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// Note describes the endpoint for a report, credentials in its URL and
// the API key redacted.
func (ep Endpoint) Note() string {
	return fmt.Sprintf("%s: %s (retries %d, Retry-After waits of at most %s, all within %s a request; at most %g requests a second)",
		cmp.Or(ep.Role, "generator"), Redact(ep.URL, ep.APIKey), ep.Retries, ep.retryAfter(), ep.Timeout, ep.RateLimit)
}

func (ep Endpoint) retryAfter() time.Duration { return cmp.Or(ep.MaxRetryAfter, defaultMaxRetryAfter) }

// defaultMaxRetryAfter is the longest wait a Retry-After header gets when
// Endpoint.MaxRetryAfter is zero.
const defaultMaxRetryAfter = 60 * time.Second

// Connect is the generator a command line names: the endpoint's client
// (Open) with the key read by getenv from the environment variable keyEnv,
// behind ep.Cache when it is given and not noCache (no cache otherwise:
// answers are never kept unasked). The notes describe it for the report.
func (ep Endpoint) Connect(keyEnv string, noCache bool, getenv func(string) string) (Generator, []string, error) {
	if ep.URL == "" {
		return nil, nil, &diag.OptionError{Msg: "give {endpoint} URL (an OpenAI-compatible API up to /v1), or {write_batch} FILE to send nothing"}
	}
	if ep.MaxRetryAfter < 0 || ep.Timeout < 0 {
		return nil, nil, &diag.OptionError{Msg: "{max_retry_after} and {timeout} are waits: give durations of 0 or more"}
	}
	ep.APIKey = getenv(keyEnv)
	notes := []string{ep.Note()}
	if ep.APIKey == "" {
		notes = append(notes, "no API key: $"+keyEnv+" is empty")
	}
	if noCache {
		ep.Cache = ""
	}
	if ep.Cache == "" {
		notes = append(notes, "cache: none (every request sent)")
	}
	gen, err := ep.Open()
	return gen, notes, err
}

// Redact replaces, in s, every occurrence of key and, when s is a URL,
// its credentials (user:key@host) with "REDACTED".
func Redact(s, key string) string {
	if key != "" {
		s = strings.ReplaceAll(s, key, "REDACTED")
	}
	if u, err := url.Parse(s); err == nil && u.User != nil {
		u.User = url.User("REDACTED")
		s = u.String()
	}
	return s
}
