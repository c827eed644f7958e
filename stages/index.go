package stages

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/ragstat/ragstat/internal/scratch"
)

// diskIndex holds spill entries sorted in a temporary file and every
// indexStride-th of them in memory, so that the entries of one hash are
// found by reading a page of the file (two when they straddle pages):
// memory is an eighth of a byte a query.
type diskIndex struct {
	f      *os.File
	n      int
	sample []spillEntry // the entries at 0, indexStride, 2*indexStride...
}

// indexStride is the entries of one page: 512 bytes.
const indexStride = 64

// indexRun is how many entries an indexBuilder sorts in memory at once:
// 1 MiB of them.
const indexRun = 1 << 17

// indexBuilder sorts entries into a diskIndex: runs of indexRun entries
// sorted in memory and written to temporary files, then merged.
type indexBuilder struct {
	temp func() (*os.File, error)
	buf  []spillEntry
	runs []*os.File
}

func (b *indexBuilder) add(e spillEntry) error {
	b.buf = append(b.buf, e)
	if len(b.buf) == indexRun {
		return b.spill()
	}
	return nil
}

// spill writes the entries held, sorted, as a run.
func (b *indexBuilder) spill() error {
	slices.Sort(b.buf)
	f, err := b.temp()
	if err != nil {
		return err
	}
	b.runs = append(b.runs, f)
	w := bufio.NewWriterSize(f, 1<<16)
	for _, e := range b.buf {
		w.Write(binary.LittleEndian.AppendUint64(nil, uint64(e)))
	}
	b.buf = b.buf[:0]
	return w.Flush()
}

// close removes the runs.
func (b *indexBuilder) close() {
	for _, f := range b.runs {
		scratch.Remove(f)
	}
	b.runs = nil
}

// finish merges the runs into an index in one more temporary file.
func (b *indexBuilder) finish() (*diskIndex, error) {
	defer b.close()
	if len(b.buf) > 0 {
		if err := b.spill(); err != nil {
			return nil, err
		}
	}
	b.buf = nil
	f, err := b.temp()
	if err != nil {
		return nil, err
	}
	x := &diskIndex{f: f}
	w := bufio.NewWriterSize(f, 1<<16)
	type run struct {
		r   *bufio.Reader
		cur uint64
		ok  bool
	}
	var rs []*run
	next := func(r *run) error {
		var e [8]byte
		_, err := io.ReadFull(r.r, e[:])
		r.cur, r.ok = binary.LittleEndian.Uint64(e[:]), err == nil
		if err == io.EOF {
			err = nil
		}
		return err
	}
	for _, f := range b.runs {
		r := &run{r: bufio.NewReaderSize(io.NewSectionReader(f, 0, 1<<62), 32<<10)}
		if err := next(r); err != nil {
			scratch.Remove(x.f)
			return nil, fmt.Errorf("reading a temporary file of stages: %w", err)
		}
		rs = append(rs, r)
	}
	for {
		var least *run
		for _, r := range rs {
			if r.ok && (least == nil || r.cur < least.cur) {
				least = r
			}
		}
		if least == nil {
			break
		}
		if x.n%indexStride == 0 {
			x.sample = append(x.sample, spillEntry(least.cur))
		}
		x.n++
		w.Write(binary.LittleEndian.AppendUint64(nil, least.cur))
		if err := next(least); err != nil {
			scratch.Remove(x.f)
			return nil, fmt.Errorf("reading a temporary file of stages: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		scratch.Remove(x.f)
		return nil, err
	}
	return x, nil
}

// each calls fn with the position (in sorted order) and offset of every
// entry of hash h, in order, until fn says it is done.
func (x *diskIndex) each(h uint64, fn func(pos int, off int64) (done bool, err error)) error {
	if x == nil || x.n == 0 {
		return nil
	}
	// The last page whose first entry's hash is below h may hold some.
	i, _ := slices.BinarySearchFunc(x.sample, h, func(e spillEntry, h uint64) int { return cmp.Compare(e.hash(), h) })
	var page [8 * indexStride]byte
	for p := max(0, i-1); p < len(x.sample); p++ {
		n := min(indexStride, x.n-p*indexStride)
		if _, err := x.f.ReadAt(page[:8*n], int64(8*p*indexStride)); err != nil {
			return fmt.Errorf("reading a temporary file of stages: %w", err)
		}
		for k := range n {
			e := spillEntry(binary.LittleEndian.Uint64(page[8*k:]))
			switch {
			case e.hash() < h:
				continue
			case e.hash() > h:
				return nil
			}
			if done, err := fn(p*indexStride+k, e.off()); done || err != nil {
				return err
			}
		}
	}
	return nil
}

// scan calls fn with every entry, in order.
func (x *diskIndex) scan(fn func(pos int, e spillEntry) error) error {
	r := bufio.NewReaderSize(io.NewSectionReader(x.f, 0, 8*int64(x.n)), 1<<16)
	var b [8]byte
	for pos := range x.n {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return fmt.Errorf("reading a temporary file of stages: %w", err)
		}
		if err := fn(pos, spillEntry(binary.LittleEndian.Uint64(b[:]))); err != nil {
			return err
		}
	}
	return nil
}

// shared calls fn with each set of entries that share a hash, in order
// of offset.
func (x *diskIndex) shared(fn func([]spillEntry) error) error {
	var group []spillEntry
	flush := func() error {
		if len(group) < 2 {
			return nil
		}
		return fn(group)
	}
	err := x.scan(func(_ int, e spillEntry) error {
		if len(group) > 0 && group[0].hash() != e.hash() {
			if err := flush(); err != nil {
				return err
			}
			group = group[:0]
		}
		group = append(group, e)
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// close removes the index's file.
func (x *diskIndex) close() {
	if x != nil {
		scratch.Remove(x.f)
	}
}
