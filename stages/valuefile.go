package stages

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
)

// valueFile keeps one series of values (latencies, prompt tokens) in a
// temporary file instead of memory, for exact percentiles: nearest-rank,
// as percentiles computes them over the values held, found by a radix
// selection that reads the file four times and holds 2 MiB of counts.
type valueFile struct {
	f *os.File
	w *bufio.Writer
	n int
}

func newValueFile(f *os.File) *valueFile { return &valueFile{f: f, w: bufio.NewWriterSize(f, 1<<16)} }

func (v *valueFile) add(x float64) error {
	v.n++
	_, err := v.w.Write(binary.LittleEndian.AppendUint64(nil, orderedBits(x)))
	return err
}

// orderedBits maps x to an integer in the order of the floats (negative
// zero just below zero).
func orderedBits(x float64) uint64 {
	b := math.Float64bits(x)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

func fromOrderedBits(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// percentiles computes the series' percentiles from the file (a nil
// valueFile holds no values).
func (v *valueFile) percentiles(name string) (Percentiles, error) {
	if v == nil || v.n == 0 {
		return Percentiles{Name: name}, nil
	}
	p := Percentiles{Name: name, N: v.n}
	if err := v.w.Flush(); err != nil {
		return p, err
	}
	at := func(q float64) int { return max(0, int(math.Ceil(q*float64(v.n)))-1) }
	ranks := []int{at(0.5), at(0.9), at(0.99), v.n - 1}
	keys, err := v.nth(ranks)
	if err != nil {
		return p, err
	}
	p.P50, p.P90, p.P99, p.Max = fromOrderedBits(keys[0]), fromOrderedBits(keys[1]), fromOrderedBits(keys[2]), fromOrderedBits(keys[3])
	return p, nil
}

// nth finds the keys at ranks (counting from 0 in ascending order),
// sixteen bits a pass.
func (v *valueFile) nth(ranks []int) ([]uint64, error) {
	prefix := make([]uint64, len(ranks))
	left := append([]int(nil), ranks...)
	counts := make([][]uint32, len(ranks))
	for i := range counts {
		counts[i] = make([]uint32, 1<<16)
	}
	buf := make([]byte, 8<<10)
	for shift := 48; shift >= 0; shift -= 16 {
		for i := range counts {
			clear(counts[i])
		}
		r := io.NewSectionReader(v.f, 0, int64(8*v.n))
		for {
			n, err := io.ReadFull(r, buf)
			for b := buf[:n-n%8]; len(b) > 0; b = b[8:] {
				k := binary.LittleEndian.Uint64(b)
				for i := range ranks {
					if shift == 48 || k>>(shift+16) == prefix[i]>>(shift+16) {
						counts[i][k>>shift&0xffff]++
					}
				}
			}
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			if err != nil {
				return nil, fmt.Errorf("reading the values spilled: %w", err)
			}
		}
		for i := range ranks {
			for d, c := range counts[i] {
				if left[i] < int(c) {
					prefix[i] |= uint64(d) << shift
					break
				}
				left[i] -= int(c)
			}
		}
	}
	return prefix, nil
}
