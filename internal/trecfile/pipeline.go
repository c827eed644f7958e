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
