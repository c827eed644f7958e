// Package shard splits one evaluation across processes by query, so that
// the partial results merge into exactly what one process would have
// computed. Shard I of N (0 <= I < N) holds the queries whose id hashes to
// I: the 64-bit FNV-1a hash of the id's bytes, modulo N. The hash depends on
// nothing but the id, so every machine, version and run agrees on it.
package shard

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/manifest"
)

// Hash names the hash that assigns queries to shards, as recorded in a
// partial result's manifest.
const Hash = "fnv1a-64"

// Spec is one shard: Index of Count.
type Spec struct {
	Index int `json:"index"`
	Count int `json:"count"`
}

// Parse reads "I/N", with 0 <= I < N.
func Parse(s string) (Spec, error) {
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(strings.TrimSpace(i))
	count, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil {
		return Spec{}, fmt.Errorf("--shard %q: write I/N, e.g. 0/4 for the first of four shards", s)
	}
	sp := Spec{Index: index, Count: count}
	return sp, sp.Check()
}

// Check reports a shard that cannot exist.
func (s Spec) Check() error {
	if s.Count < 1 || s.Index < 0 || s.Index >= s.Count {
		return fmt.Errorf("shard %d/%d: the index counts from 0 and stays below the count (0/%d ... %d/%d)",
			s.Index, s.Count, max(s.Count, 1), max(s.Count, 1)-1, max(s.Count, 1))
	}
	return nil
}

// Of returns the shard, out of n, that query belongs to.
func Of(query string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(query))
	return int(h.Sum64() % uint64(n))
}

// Has reports whether query belongs to the shard.
func (s Spec) Has(query string) bool { return Of(query, s.Count) == s.Index }

func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Cover checks that parts, named by names (file names, for messages), are
// every shard of one split exactly once: the same count everywhere, no
// index twice, none missing.
func Cover(names []string, parts []Spec) error {
	if len(parts) == 0 {
		return fmt.Errorf("no partial results to merge")
	}
	var problems []string
	n := parts[0].Count
	seen := map[int]string{}
	for i, p := range parts {
		switch {
		case p.Count != n:
			problems = append(problems, fmt.Sprintf("%s is shard %s but %s is shard %s: every part must come from one split", names[i], p, names[0], parts[0]))
		case seen[p.Index] != "":
			problems = append(problems, fmt.Sprintf("%s and %s are both shard %s (overlap)", seen[p.Index], names[i], p))
		default:
			seen[p.Index] = names[i]
		}
	}
	if len(problems) == 0 {
		var gaps []string
		for i := range n {
			if seen[i] == "" {
				gaps = append(gaps, Spec{i, n}.String())
			}
		}
		if len(gaps) > 0 {
			problems = append(problems, fmt.Sprintf("shard(s) %s missing (gap): give every shard of the %d", strings.Join(gaps, ", "), n))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("cannot merge: %s", strings.Join(problems, "; "))
	}
	return nil
}

// KindOf says what kind of result a saved JSON result is (manifest.KindEval,
// KindStages, ...), from its manifest; "" when it has none.
func KindOf(f *input.File) (string, error) {
	data, err := f.ReadAll()
	if err != nil {
		return "", err
	}
	var doc struct {
		Manifest struct {
			Kind string `json:"kind"`
		} `json:"manifest"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return "", &diag.Error{File: f.Name, Msg: err.Error(), Hint: "give partial results written with --shard I/N --format json"}
	}
	return doc.Manifest.Kind, nil
}

// Record is what a partial result of shard s carries for the merge: the
// position of each of its queries among judged, every query judged, in
// order. The caller adds the judgments folded.
func (s Spec) Record(judged []string) *manifest.Shard {
	part := &manifest.Shard{Index: s.Index, Count: s.Count, Hash: Hash, Positions: map[string]int{}}
	for i, q := range judged {
		if s.Has(q) {
			part.Positions[q] = i
		}
	}
	return part
}

// OneKind returns the kind of result every part is (KindOf), refusing
// parts of different kinds, named by names, since one merge combines the
// parts of one command.
func OneKind(names, kinds []string) (string, error) {
	for i, k := range kinds {
		if k != kinds[0] {
			return "", fmt.Errorf("cannot merge: %s is %s result but %s is %s result: give the parts of one command", names[0], kindName(kinds[0]), names[i], kindName(k))
		}
	}
	return kinds[0], nil
}

func kindName(k string) string {
	if k == "" {
		return "no ragstat"
	}
	if strings.ContainsAny(k[:1], "aeiou") {
		return "an " + k
	}
	return "a " + k
}
