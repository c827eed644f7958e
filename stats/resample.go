package stats

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
)

// resampled is the outcome of the shared resampling pass.
type resampled struct {
	// boot holds, row-major, the column sums of each bootstrap resample.
	boot []float64
	// extreme counts, per column, the random sign vectors whose sum is at
	// least as far from zero as the observed one.
	extreme []int64
}

// chunk is the number of resamples drawn from one random stream. Work is
// handed out a chunk at a time, and each chunk's stream depends only on the
// seed and the chunk's index, so results do not depend on the number of
// goroutines.
const chunk = 128

// listBytes bounds the memory a worker spends on the row lists of one
// batch of resamples.
const listBytes = 1 << 20

// Stream kinds, mixed into the seed of each chunk's stream.
const (
	kindBootstrap = 1
	kindSignFlip  = 2
)

// resample draws the bootstrap resamples and, unless the sign-flip test
// enumerates, the random sign vectors, spreading chunks over GOMAXPROCS
// goroutines.
func resample(m matrix, o Options, exact bool) resampled {
	rs := resampled{boot: make([]float64, o.Resamples*m.width), extreme: make([]int64, m.width)}
	nb := chunks(o.Resamples)
	jobs := nb
	if !exact {
		jobs += chunks(o.Randomizations)
	}
	var next atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), jobs) {
		wg.Go(func() {
			wk := newWorker(m)
			for j := int(next.Add(1) - 1); j < jobs; j = int(next.Add(1) - 1) {
				if j < nb {
					wk.bootstrap(o.Seed, j, o.Resamples, rs.boot)
				} else {
					wk.signFlip(o.Seed, j-nb, o.Randomizations)
				}
			}
			mu.Lock()
			for c, e := range wk.extreme {
				rs.extreme[c] += e
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	return rs
}

func chunks(total int) int { return (total + chunk - 1) / chunk }

// worker holds one goroutine's scratch space. Resamples are processed in
// batches: first every row list of the batch is drawn, then batchSums adds
// them all while a block of the matrix is in cache.
type worker struct {
	m       matrix
	batch   int
	counts  []int32
	buf     []int32   // batch lists of up to n+unroll rows each
	lists   [][]int32 // the lists of the current batch, within buf
	sums    []float64 // batch rows of column sums
	extreme []int64
}

func newWorker(m matrix) *worker {
	batch := max(1, min(chunk, listBytes/(4*(m.n+unroll))))
	return &worker{
		m:       m,
		batch:   batch,
		counts:  make([]int32, m.n),
		buf:     make([]int32, batch*(m.n+unroll)),
		lists:   make([][]int32, 0, batch),
		sums:    make([]float64, batch*m.width),
		extreme: make([]int64, m.width),
	}
}

// list returns the storage of list k of a batch.
func (wk *worker) list(k int) []int32 {
	size := wk.m.n + unroll
	return wk.buf[k*size : (k+1)*size]
}

// bootstrap draws the resamples of chunk j, n queries with replacement
// each, and stores their column sums in boot.
func (wk *worker) bootstrap(seed uint64, j, total int, boot []float64) {
	s := newStream(seed, kindBootstrap, j)
	n, w := wk.m.n, wk.m.width
	end := min(total, (j+1)*chunk)
	for r0 := j * chunk; r0 < end; r0 += wk.batch {
		wk.lists = wk.lists[:0]
		for k := range min(wk.batch, end-r0) {
			clear(wk.counts)
			for range n {
				wk.counts[s.intN(uint32(n))]++
			}
			wk.lists = append(wk.lists, expand(wk.counts, wk.list(k)))
		}
		wk.m.batchSums(wk.lists, boot[r0*w:(r0+len(wk.lists))*w])
	}
}

// expand lists every query i counts[i] times, in query order, into rows,
// which has room for unroll more than the total count. It writes unroll
// copies of each query unconditionally and advances by its count, which
// avoids a mispredicted branch per query; counts above unroll are rare and
// take a loop.
func expand(counts, rows []int32) []int32 {
	pos := 0
	for i, k := range counts {
		q := int32(i)
		r := rows[pos : pos+unroll : pos+unroll]
		r[0], r[1], r[2], r[3] = q, q, q, q
		for j := pos + unroll; j < pos+int(k); j++ {
			rows[j] = q
		}
		pos += int(k)
	}
	return rows[:pos]
}

// unroll is the number of copies expand writes without a loop.
const unroll = 4

// signFlip draws the sign vectors of chunk j, 64 signs per random word, and
// counts the extreme ones. With P the sum over the queries whose sign is
// kept and T the observed sum, the flipped sum is 2P - T, so only the kept
// rows need adding.
func (wk *worker) signFlip(seed uint64, j, total int) {
	s := newStream(seed, kindSignFlip, j)
	m := wk.m
	end := min(total, (j+1)*chunk)
	for r0 := j * chunk; r0 < end; r0 += wk.batch {
		wk.lists = wk.lists[:0]
		for k := range min(wk.batch, end-r0) {
			wk.lists = append(wk.lists, keptRows(s, m.n, wk.list(k)[:0]))
		}
		sums := wk.sums[:len(wk.lists)*m.width]
		m.batchSums(wk.lists, sums)
		for i, p := range sums {
			c := i % m.width
			if atLeastAsExtreme(2*p-m.sum[c], m.sum[c], m.tol[c]) {
				wk.extreme[c]++
			}
		}
	}
}

// keptRows draws a sign for each of n queries and appends to rows, in
// order, the queries whose sign is kept.
func keptRows(s *stream, n int, rows []int32) []int32 {
	for base := 0; base < n; base += 64 {
		word := s.src.Uint64()
		if n-base < 64 {
			word &= 1<<(n-base) - 1
		}
		for ; word != 0; word &= word - 1 {
			rows = append(rows, int32(base+bits.TrailingZeros64(word)))
		}
	}
	return rows
}

// stream is a PCG stream with a 32-bit buffer for bounded integers.
type stream struct {
	src   *rand.PCG
	spare uint64
	have  bool
}

// newStream returns the stream of one chunk of one kind. Its state is
// derived from the seed, the kind and the chunk by a SplitMix64 finalizer,
// so neighbouring chunks get unrelated states.
func newStream(seed uint64, kind, j int) *stream {
	hi := mix(seed ^ mix(uint64(kind)<<32|uint64(j)))
	return &stream{src: rand.NewPCG(hi, mix(hi^0x9e3779b97f4a7c15))}
}

func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (s *stream) uint32() uint32 {
	if s.have {
		s.have = false
		return uint32(s.spare >> 32)
	}
	s.spare, s.have = s.src.Uint64(), true
	return uint32(s.spare)
}

// intN returns a uniform integer in [0, n) by Lemire's multiply-and-reject
// method, which is exact.
func (s *stream) intN(n uint32) uint32 {
	p := uint64(s.uint32()) * uint64(n)
	if uint32(p) < n {
		for floor := -n % n; uint32(p) < floor; {
			p = uint64(s.uint32()) * uint64(n)
		}
	}
	return uint32(p >> 32)
}

// atLeastAsExtreme reports whether the sum s lies at least as far from zero
// as the observed sum t, with slack tol.
func atLeastAsExtreme(s, t, tol float64) bool {
	return math.Abs(s) >= math.Abs(t)-tol
}
