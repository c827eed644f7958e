// Package progress draws a one-line progress bar on a terminal for work
// that takes more than a second: nothing is drawn before that, nothing at
// all when the output is not a terminal, and the line is cleared when the
// work is done, so results and logs are never mixed with it.
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ragstat/ragstat/input"
)

// Bar counts bytes done out of a total.
type Bar struct {
	w     io.Writer
	label string
	total int64
	done  atomic.Int64
	start time.Time
	now   func() time.Time
	stop  chan struct{}
	wg    sync.WaitGroup
	drawn bool
	once  sync.Once
}

// Delay is how long work runs before the bar appears.
const Delay = time.Second

// Start begins a bar for total units of work labelled label, drawn on w
// every tick once Delay has passed. When show is false (w is not a
// terminal) it returns a Bar that only counts. now is the clock.
func Start(w io.Writer, label string, total int64, show bool, now func() time.Time) *Bar {
	b := &Bar{w: w, label: label, total: total, now: now, start: now(), stop: make(chan struct{})}
	if show {
		b.wg.Go(b.loop)
	}
	return b
}

// Files begins a bar over the bytes of files, each counting what is read
// of it (input.File.Watch), as Start does.
func Files(w io.Writer, label string, files []*input.File, show bool, now func() time.Time) *Bar {
	var total int64
	for _, f := range files {
		total += f.Size()
	}
	b := Start(w, label, total, show, now)
	for _, f := range files {
		f.Watch(b.Add)
	}
	return b
}

// Add records n more units done. It is safe for concurrent use.
func (b *Bar) Add(n int) { b.done.Add(int64(n)) }

// Done stops drawing and clears the line. Later calls do nothing.
func (b *Bar) Done() {
	b.once.Do(func() {
		close(b.stop)
		b.wg.Wait()
		if b.drawn {
			fmt.Fprint(b.w, "\r\033[K")
		}
	})
}

// ClearBefore returns a writer to w that calls Done before its first
// write: results written through it never share the terminal's line with
// the bar, however early the first byte comes.
func (b *Bar) ClearBefore(w io.Writer) io.Writer { return &clearing{b: b, w: w} }

type clearing struct {
	b *Bar
	w io.Writer
}

func (c *clearing) Write(p []byte) (int, error) {
	c.b.Done()
	return c.w.Write(p)
}

func (b *Bar) loop() {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			if b.now().Sub(b.start) >= Delay {
				fmt.Fprint(b.w, "\r"+b.Line(40))
				b.drawn = true
			}
		}
	}
}

// Line renders the bar, width characters wide.
func (b *Bar) Line(width int) string {
	done, total := b.done.Load(), b.total
	frac := 0.0
	if total > 0 {
		frac = min(1, float64(done)/float64(total))
	}
	fill := int(frac * float64(width))
	elapsed := b.now().Sub(b.start).Round(100 * time.Millisecond)
	return fmt.Sprintf("%s [%s%s] %3.0f%% %s", b.label, strings.Repeat("=", fill), strings.Repeat(" ", width-fill), 100*frac, elapsed)
}
