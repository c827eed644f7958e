package trecfile

import (
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// workers returns the number of parallel parsers opt asks for.
func (opt *Options) workers() int {
	if opt.Workers > 0 {
		return opt.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// pipeline reads r in blocks ended by cut and hands them to n goroutines
// running work, one block at a time each. It stops early when work returns
// an error or stop reports true, and returns the first read or work error.
func pipeline(name string, r io.Reader, cut func([]byte) int, n int, stop func() bool, work func(*block) error) error {
	br := newBlockReader(name, r, cut, n+2) // a block is read, one waits, n are parsed
	blocks := make(chan *block, 1)
	var failed atomic.Bool
	var once sync.Once
	var first error
	fail := func(err error) {
		once.Do(func() { first = err })
		failed.Store(true)
	}
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for b := range blocks {
				if !failed.Load() {
					if err := work(b); err != nil {
						fail(err)
					}
				}
				br.recycle(b)
			}
		})
	}
	for !failed.Load() && !stop() {
		b, err := br.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fail(err)
			break
		}
		blocks <- b
	}
	close(blocks)
	wg.Wait()
	return first
}

// inOrder hands the outcomes of blocks, added as they finish, on in block
// order, one at a time: an outcome that comes early waits for those before
// it.
type inOrder[T any] struct {
	mu      sync.Mutex
	pending map[int]T
	next    int
}

// add queues v, the outcome of block seq, and calls use with every outcome
// now due, in order; an error from use is returned at once.
func (o *inOrder[T]) add(seq int, v T, use func(T) error) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.pending == nil {
		o.pending = map[int]T{}
	}
	o.pending[seq] = v
	for {
		v, ok := o.pending[o.next]
		if !ok {
			return nil
		}
		delete(o.pending, o.next)
		o.next++
		if err := use(v); err != nil {
			return err
		}
	}
}
