package trecfile

import (
	"errors"
	"slices"
	"sync"

	"github.com/ragstat/ragstat/internal/diag"
)

// MaxErrors is how many problems a reader reports before it stops reading.
const MaxErrors = diag.Max

// errBlockFull stops parsing a block once it holds MaxErrors problems:
// later lines cannot be among the first MaxErrors of the file.
var errBlockFull = errors.New("enough problems in this block")

// collector gathers problems from concurrent parsers and keeps the first
// MaxErrors in line order.
type collector struct {
	mu   sync.Mutex
	errs []*diag.Error
}

// add records problems and reports whether the list is now full.
func (c *collector) add(errs ...*diag.Error) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errs = append(c.errs, errs...)
	return len(c.errs) >= MaxErrors
}

// any reports whether a problem has been collected.
func (c *collector) any() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.errs) > 0
}

// full reports whether MaxErrors problems have been collected.
func (c *collector) full() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.errs) >= MaxErrors
}

// err returns the problems as a diag.List, the first MaxErrors in line
// order, or nil.
func (c *collector) err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return list(c.errs...)
}

// list gathers errs, sorted by line, into a diag.List.
func list(errs ...*diag.Error) error {
	slices.SortStableFunc(errs, func(a, b *diag.Error) int { return a.Line - b.Line })
	var l diag.List
	for _, e := range errs {
		l.Add(e)
	}
	if l.Len() == 0 {
		return nil
	}
	return &l
}
