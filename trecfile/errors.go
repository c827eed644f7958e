package trecfile

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/diag"
)

// MaxErrors is how many problems a reader reports before it stops reading.
const MaxErrors = 20

// Error is one problem in an input file, located by file and line.
type Error struct {
	File  string // file name as given in Options.Name
	Line  int    // 1-based line number; 0 when the problem is not on a line
	Query string // query id, when known
	Item  string // document or item id, when known
	Msg   string // what is wrong and what to do
}

// Error formats the problem as `file:line: query "q", item "d": message`,
// leaving out the parts that are empty.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	var ids []string
	if e.Query != "" {
		ids = append(ids, "query "+diag.Quote(e.Query))
	}
	if e.Item != "" {
		ids = append(ids, "item "+diag.Quote(e.Item))
	}
	if len(ids) > 0 {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(strings.Join(ids, ", "))
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList is up to MaxErrors problems, in file order. A reader that finds
// problems returns all it found (at most MaxErrors) as an ErrorList.
type ErrorList []*Error

// Error lists the problems one per line; when the list is full it adds that
// reading stopped there.
func (l ErrorList) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	s := strings.Join(msgs, "\n")
	if len(l) >= MaxErrors {
		s += fmt.Sprintf("\n(stopped after %d problems)", MaxErrors)
	}
	return s
}

// errBlockFull stops parsing a block once it holds MaxErrors problems:
// later lines cannot be among the first MaxErrors of the file.
var errBlockFull = errors.New("enough problems in this block")

// collector gathers problems from concurrent parsers and keeps the first
// MaxErrors in line order.
type collector struct {
	mu   sync.Mutex
	errs ErrorList
}

// add records problems and reports whether the list is now full.
func (c *collector) add(errs ...*Error) bool {
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

// err returns the first MaxErrors problems in line order, or nil.
func (c *collector) err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.errs) == 0 {
		return nil
	}
	slices.SortStableFunc(c.errs, func(a, b *Error) int { return a.Line - b.Line })
	if len(c.errs) > MaxErrors {
		c.errs = c.errs[:MaxErrors]
	}
	return c.errs
}
