package llm

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
)

// Cache answers a request seen before from a file and sends the others to
// Gen, appending each new answer to the file, so a rerun costs nothing.
// Requests are told apart by everything sent: the endpoint's URL, the
// model, the settings and every message (Key); the API key is not kept.
type Cache struct {
	Gen      Generator
	path     string
	endpoint string
	mu       sync.Mutex
	seen     map[string]Response
	Hits     int // requests answered from the file
}

type cacheLine struct {
	Key      string   `json:"key"`
	Response Response `json:"response"`
}

// OpenCache reads the cache file at path (it need not exist yet) for the
// answers of endpoint, the URL requests are sent to.
func OpenCache(path, endpoint string, gen Generator) (*Cache, error) {
	c := &Cache{Gen: gen, path: path, endpoint: endpoint, seen: map[string]Response{}}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, maxResponse+1<<10)
	for n := 1; sc.Scan(); n++ {
		var l cacheLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil || l.Key == "" {
			return nil, fmt.Errorf("%s:%d: not a cached answer (delete the file to start afresh)", path, n)
		}
		c.seen[l.Key] = l.Response
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Path is the cache's file.
func (c *Cache) Path() string { return c.path }

// Note says, for a report, where the cache is and how many answers came
// from it.
func (c *Cache) Note() string {
	return fmt.Sprintf("cache: %s (%d of the answers came from it)", c.path, c.Hits)
}

// Generate answers from the file, else from Gen, and records the answer.
func (c *Cache) Generate(ctx context.Context, id string, req Request) (Response, error) {
	key := Key(c.endpoint, req)
	c.mu.Lock()
	r, ok := c.seen[key]
	if ok {
		c.Hits++
	}
	c.mu.Unlock()
	if ok {
		r.Cached = true
		return r, nil
	}
	r, err := c.Gen.Generate(ctx, id, req)
	if err != nil {
		return r, err
	}
	line, err := json.Marshal(cacheLine{Key: key, Response: r})
	if err != nil {
		return r, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen[key] = r
	f, err := os.OpenFile(c.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return r, fmt.Errorf("cache: %w", err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return r, fmt.Errorf("cache: %w", err)
	}
	return r, f.Close()
}
