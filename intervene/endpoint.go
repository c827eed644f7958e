package intervene

import (
	"cmp"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ragstat/ragstat/diag"
	"github.com/ragstat/ragstat/trace"
)

// Endpoint is how an intervention reaches an OpenAI-compatible endpoint:
// the client's settings and the file its answers are kept in.
type Endpoint struct {
	URL       string        // the API's base URL, up to /v1
	APIKey    string        // sent as a Bearer token when not empty
	Timeout   time.Duration // the time limit of one request
	Retries   int           // of a request that met a rate limit, a server or a network error
	RateLimit float64       // requests a second at most; 0 for no limit
	Cache     string        // the file of answers already received (its folder is created); "" keeps none
}

// Open is the endpoint's Client, one second's backoff doubled at each
// retry, behind a Cache unless ep.Cache is empty.
func (ep Endpoint) Open() (Generator, error) {
	var interval time.Duration
	if ep.RateLimit > 0 {
		interval = time.Duration(float64(time.Second) / ep.RateLimit)
	}
	client := &Client{Endpoint: ep.URL, APIKey: ep.APIKey, HTTP: &http.Client{Timeout: ep.Timeout},
		Retries: ep.Retries, Backoff: time.Second, Interval: interval}
	if ep.Cache == "" {
		return client, nil
	}
	if err := os.MkdirAll(filepath.Dir(ep.Cache), 0o755); err != nil {
		return nil, err
	}
	return OpenCache(ep.Cache, client)
}

// Note describes the endpoint for a report.
func (ep Endpoint) Note() string {
	return fmt.Sprintf("generator: %s (retries %d, at most %g requests a second)", ep.URL, ep.Retries, ep.RateLimit)
}

// Connect is the generator a command line names: the endpoint's client
// (Open) with the key read by getenv from the environment variable keyEnv,
// behind ep.Cache, or DefaultCache when it is empty, unless noCache. The
// notes describe it for the report.
func (ep Endpoint) Connect(keyEnv string, noCache bool, getenv func(string) string) (Generator, []string, error) {
	if ep.URL == "" {
		return nil, nil, &diag.OptionError{Msg: "give {endpoint} URL (an OpenAI-compatible API up to /v1), or {write_batch} FILE to send nothing"}
	}
	ep.APIKey = getenv(keyEnv)
	notes := []string{ep.Note()}
	if ep.APIKey == "" {
		notes = append(notes, "no API key: $"+keyEnv+" is empty")
	}
	if noCache {
		ep.Cache = ""
	} else if ep.Cache = cmp.Or(ep.Cache, DefaultCache()); ep.Cache == "" {
		return nil, nil, &diag.OptionError{Msg: "no user cache folder: give {cache} FILE or {no_cache}"}
	}
	gen, err := ep.Open()
	return gen, notes, err
}

// DefaultCache is the cache file used when none is named:
// ragstat/intervene.jsonl in the user's cache folder, "" when there is none.
func DefaultCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "ragstat", "intervene.jsonl")
}

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
