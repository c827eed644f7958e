package collect

import (
	"context"
	"sync"
	"time"
)

// budget is a count of bytes shared by the requests in flight: each
// reserves what it holds before it allocates it, and waits (up to a
// deadline) while the others hold too much.
type budget struct {
	mu    sync.Mutex
	used  int64
	limit int64
	freed chan struct{} // closed (and replaced) whenever bytes are released
}

func newBudget(limit int64) *budget {
	return &budget{limit: limit, freed: make(chan struct{})}
}

// acquire reserves n bytes, waiting until deadline at most; it reports
// whether it did. A request larger than the whole budget is never
// reserved: the caller refuses it first.
func (b *budget) acquire(ctx context.Context, n int64, deadline time.Time) bool {
	var timer *time.Timer
	for {
		b.mu.Lock()
		if b.used+n <= b.limit {
			b.used += n
			b.mu.Unlock()
			if timer != nil {
				timer.Stop()
			}
			return true
		}
		freed := b.freed
		b.mu.Unlock()
		if timer == nil {
			wait := time.Until(deadline)
			if wait <= 0 {
				return false
			}
			timer = time.NewTimer(wait)
			defer timer.Stop()
		}
		select {
		case <-freed:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// release gives back n bytes.
func (b *budget) release(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.used -= n
	close(b.freed)
	b.freed = make(chan struct{})
	b.mu.Unlock()
}

// inUse is the number of bytes reserved now.
func (b *budget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}
