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
	slots   int // lists per batch
	counts  []int32
	buf     []int32   // slots lists of up to n+unroll rows
	lists   [][]int32 // the lists of the current batch, within buf
	sums    []float64 // slots rows of column sums
	extreme []int64
}

func newWorker(m matrix) *worker {
	slots := max(2, min(chunk, listBytes/(4*(m.n+unroll))))
	return &worker{
		m:       m,
		slots:   slots,
		counts:  make([]int32, m.n),
		buf:     make([]int32, slots*(m.n+unroll)),
		lists:   make([][]int32, 0, slots),
		sums:    make([]float64, slots*m.width),
		extreme: make([]int64, m.width),
	}
}

// list returns the storage of list k of a batch.
func (wk *worker) list(k int) []int32 {
	size := wk.m.n + unroll
	return wk.buf[k*size : (k+1)*size]
}

// bootstrap draws the resamples of chunk j, n queries with replacement
// each, and stores their column sums in boot. With k_i the number of times
// query i is drawn, a resample's sum is T + Σ (k_i - 1) d_i, so only the
// queries not drawn once are added: on average 0.74 n rows instead of n.
func (wk *worker) bootstrap(seed uint64, j, total int, boot []float64) {
	s := newStream(seed, kindBootstrap, j)
	m := wk.m
	w := m.width
	end := min(total, (j+1)*chunk)
	for r0 := j * chunk; r0 < end; r0 += wk.slots / 2 {
		b := min(wk.slots/2, end-r0)
		wk.lists = wk.lists[:2*b]
		for k := range b {
			clear(wk.counts)
			drawCounts(s, wk.counts)
			wk.lists[k], wk.lists[b+k] = split(wk.counts, wk.list(k), wk.list(b+k))
		}
		sums := wk.sums[:2*b*w]
		m.batchSums(wk.lists, sums)
		extra, missing := sums[:b*w], sums[b*w:]
		out := boot[r0*w : (r0+b)*w]
		for i := range out {
			out[i] = m.sum[i%w] + (extra[i] - missing[i])
		}
	}
}

// split lists, in query order, each query drawn k >= 2 times k-1 times in
// extra and each query not drawn in missing; both have room for unroll more
// rows than they receive. It writes without branches: unroll copies of each
// query go to extra unconditionally, and the positions advance by the
// count; counts above unroll are rare and take a loop.
func split(counts, extra, missing []int32) ([]int32, []int32) {
	ne, nm := 0, 0
	for i, k := range counts {
		q := int32(i)
		missing[nm] = q
		nm += int((uint32(k) - 1) >> 31) // 1 when k == 0
		r := extra[ne : ne+unroll : ne+unroll]
		r[0], r[1], r[2], r[3] = q, q, q, q
		for e := ne + unroll; e < ne+int(k)-1; e++ {
			extra[e] = q
		}
		ne += max(int(k)-1, 0)
	}
	return extra[:ne], missing[:nm]
}

// unroll is the number of copies split writes without a loop.
const unroll = 4

// signFlip draws the sign vectors of chunk j, 64 signs per random word, and
// counts the extreme ones. With P the sum over the queries whose sign is
// kept and T the observed sum, the flipped sum is 2P - T, so only the kept
// rows need adding.
func (wk *worker) signFlip(seed uint64, j, total int) {
	s := newStream(seed, kindSignFlip, j)
	m := wk.m
	end := min(total, (j+1)*chunk)
	for r0 := j * chunk; r0 < end; r0 += wk.slots {
		wk.lists = wk.lists[:0]
		for k := range min(wk.slots, end-r0) {
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
func keptRows(s *rand.PCG, n int, rows []int32) []int32 {
	for base := 0; base < n; base += 64 {
		word := s.Uint64()
		if n-base < 64 {
			word &= 1<<(n-base) - 1
		}
		for ; word != 0; word &= word - 1 {
			rows = append(rows, int32(base+bits.TrailingZeros64(word)))
		}
	}
	return rows
}

// newStream returns the PCG stream of one chunk of one kind. Its state is
// derived from the seed, the kind and the chunk by a SplitMix64 finalizer,
// so neighbouring chunks get unrelated states.
func newStream(seed uint64, kind, j int) *rand.PCG {
	hi := mix(seed ^ mix(uint64(kind)<<32|uint64(j)))
	return rand.NewPCG(hi, mix(hi^0x9e3779b97f4a7c15))
}

func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// drawCounts adds len(counts) uniform draws of a query to counts, two
// draws from each 64 random bits.
func drawCounts(s *rand.PCG, counts []int32) {
	floor := -uint32(len(counts)) % uint32(len(counts))
	for left := len(counts); left > 0; {
		x := s.Uint64()
		left -= tally(counts, uint32(x), floor)
		if left > 0 {
			left -= tally(counts, uint32(x>>32), floor)
		}
	}
}

// tally counts the query that the random bits h select among len(counts),
// by Lemire's multiply-and-reject method, which is exact: it rejects h,
// returning 0, when the low half of the product is below floor, 2^32 mod
// len(counts).
func tally(counts []int32, h, floor uint32) int {
	p := uint64(h) * uint64(len(counts))
	if uint32(p) < floor {
		return 0
	}
	counts[p>>32]++
	return 1
}

// atLeastAsExtreme reports whether the sum s lies at least as far from zero
// as the observed sum t, with slack tol.
func atLeastAsExtreme(s, t, tol float64) bool {
	return math.Abs(s) >= math.Abs(t)-tol
}
