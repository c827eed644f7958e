package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/jsonin"
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
	// Dropped is the length of an unfinished last line removed from the
	// file when it was opened: an answer a killed run was writing.
	Dropped int64
	newline bool // the file ends without a newline: write one first
}

type cacheLine struct {
	Key      string   `json:"key"`
	Response Response `json:"response"`
}

// OpenCache reads the cache file at path (it need not exist yet) for the
// answers of endpoint, the URL requests are sent to. It reads it as every
// JSON Lines file is read (a byte-order mark skipped, each key once, no
// unknown field); an unfinished last line, which a run killed while it
// wrote an answer leaves, is removed from the file (Dropped says how long
// it was), so that the next answer starts a line of its own.
func OpenCache(path, endpoint string, gen Generator) (*Cache, error) {
	c := &Cache{Gen: gen, path: path, endpoint: endpoint, seen: map[string]Response{}}
	switch info, err := os.Stat(path); {
	case errors.Is(err, fs.ErrNotExist):
		return c, nil
	case err != nil:
		return nil, fmt.Errorf("cache: %w", err)
	case !info.Mode().IsRegular():
		return nil, fmt.Errorf("cache: %s is not a regular file", path)
	}
	torn := false
	f, err := input.Open(path, input.WithConfig(nil, input.Config{Warn: func(string) { torn = true }}))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Gzip() {
		return nil, fmt.Errorf("cache: %s is gzip-compressed: the cache is a plain file answers are appended to", path)
	}
	r, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	err = jsonin.LinesInto(r, f.Name, f, maxResponse+1<<10, func() []byte { return nil }, func(n int, data []byte) error {
		var l cacheLine
		err := jsonin.Decode(data, &l)
		if err == nil && l.Key == "" {
			err = errors.New("no key")
		}
		if err != nil {
			return fmt.Errorf("%s:%d: not a cached answer: %w (delete the file to start afresh)", path, n, err)
		}
		c.seen[l.Key] = l.Response
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, c.settle(torn)
}

// settle removes an unfinished last line from the file, or notes that a
// whole last line lacks its newline.
func (c *Cache) settle(torn bool) error {
	f, err := os.OpenFile(c.path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || info.Size() == 0 {
		return err
	}
	tail := make([]byte, min(info.Size(), maxResponse+1<<10+1))
	if _, err := f.ReadAt(tail, info.Size()-int64(len(tail))); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if !torn {
		c.newline = tail[len(tail)-1] != '\n'
		return nil
	}
	c.Dropped = int64(len(tail) - 1 - bytes.LastIndexByte(tail, '\n'))
	if err := f.Truncate(info.Size() - c.Dropped); err != nil {
		return fmt.Errorf("cache: removing an unfinished last line: %w", err)
	}
	return nil
}

// Path is the cache's file.
func (c *Cache) Path() string { return c.path }

// Note says, for a report, where the cache is and how many answers came
// from it.
func (c *Cache) Note() string {
	note := fmt.Sprintf("cache: %s (%d of the answers came from it", c.path, c.Hits)
	if c.Dropped > 0 {
		note += fmt.Sprintf("; an unfinished last line of %d bytes, an answer a killed run was writing, was removed", c.Dropped)
	}
	return note + ")"
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
	if c.newline {
		line = append([]byte{'\n'}, line...)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return r, fmt.Errorf("cache: %w", err)
	}
	c.newline = false
	return r, f.Close()
}
