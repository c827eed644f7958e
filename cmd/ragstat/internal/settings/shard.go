package settings

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/judgments"
)

// A split by query (--shard I/N) runs one evaluation across processes, so
// that the partial results merge into exactly what one process computes.
// Shard I of N (0 <= I < N) holds the queries whose id hashes to I: the
// 64-bit FNV-1a hash of the id's bytes, modulo N. The hash depends on
// nothing but the id, so every machine, version and run agrees on it.

// ShardHash names the hash that assigns queries to shards, as recorded in a
// partial result's manifest.
const ShardHash = "fnv1a-64"

// Shard is one shard of a split by query: Index of Count.
type Shard struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// ParseShard reads "I/N", with 0 <= I < N.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(strings.TrimSpace(i))
	count, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("--shard %q: write I/N, e.g. 0/4 for the first of four shards", s)
	}
	sp := Shard{Index: index, Count: count}
	return sp, sp.Check()
}

// Check reports a shard that cannot exist.
func (s Shard) Check() error {
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d/%d: the index counts from 0 and stays below the count (0/%d ... %d/%d)",
			s.Index, s.Count, max(s.Count, 1), max(s.Count, 1)-1, max(s.Count, 1))
	}
	return nil
}

// ShardOf returns the shard, out of n, that query belongs to.
func ShardOf(query string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(query))
	return int(h.Sum64() % uint64(n))
}

// Has reports whether query belongs to the shard.
func (s Shard) Has(query string) bool { return ShardOf(query, s.Count) == s.Index }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Record is what a partial result of shard s carries for the merge: the
// position of each of its queries among judged, every query judged, in
// order. The caller adds the judgments folded.
func (s Shard) Record(judged []string) *eval.Shard {
	part := &eval.Shard{Index: s.Index, Count: s.Count, Hash: ShardHash, Positions: map[string]int{}}
	for i, q := range judged {
		if s.Has(q) {
			part.Positions[q] = i
		}
	}
	return part
}

// Selection is the queries a command reads under --shard I/N and the
// record its partial result carries. A nil Selection reads every query.
type Selection struct {
	spec Shard
	part *eval.Shard
}

// Select parses text ("I/N", ParseShard); "" selects every query and
// returns nil.
func Select(text string) (*Selection, error) {
	if text == "" {
		return nil, nil
	}
	s, err := ParseShard(text)
	if err != nil {
		return nil, err
	}
	return &Selection{spec: s, part: &eval.Shard{Index: s.Index, Count: s.Count, Hash: ShardHash}}, nil
}

// Keep reports whether a query is in the shard; nil for every query.
func (s *Selection) Keep() func(query string) bool {
	if s == nil {
		return nil
	}
	return s.spec.Has
}

// Read makes files keep the shard's queries only, recording in Part
// each one's position among the judged queries as the judgments are read.
func (s *Selection) Read(files *Files) {
	if s == nil {
		return
	}
	files.Keep = func(q *judgments.Set) func(string) bool {
		s.part.Positions = s.spec.Record(q.IDs()).Positions
		return s.spec.Has
	}
}

// Part is the record a partial result carries (the caller adds what it
// counts itself); nil for every query.
func (s *Selection) Part() *eval.Shard {
	if s == nil {
		return nil
	}
	return s.part
}
