package shard

import (
	"strings"
	"testing"
)

// TestOfIsFNV1a pins the assignment: FNV-1a 64 of the id's bytes, modulo
// the count (values computed independently of Go's hash/fnv).
func TestOfIsFNV1a(t *testing.T) {
	for _, tc := range []struct {
		query    string
		of4, of7 int
		hash     uint64
	}{
		{"q1", 3, 1, 635591421242561687},
		{"915593", 1, 1, 4532641432036224753},
		{"refund", 3, 0, 14687579914102260543},
	} {
		if got := Of(tc.query, 4); got != tc.of4 {
			t.Errorf("Of(%q, 4) = %d, want %d (hash %d)", tc.query, got, tc.of4, tc.hash)
		}
		if got := Of(tc.query, 7); got != tc.of7 {
			t.Errorf("Of(%q, 7) = %d, want %d", tc.query, got, tc.of7)
		}
		if !(Spec{Index: tc.of4, Count: 4}).Has(tc.query) || (Spec{Index: (tc.of4 + 1) % 4, Count: 4}).Has(tc.query) {
			t.Errorf("Has disagrees with Of for %q", tc.query)
		}
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Spec
		err  string
	}{
		{"0/4", Spec{0, 4}, ""},
		{"6/7", Spec{6, 7}, ""},
		{"0/1", Spec{0, 1}, ""},
		{"4/4", Spec{}, "stays below the count"},
		{"-1/4", Spec{}, "stays below the count"},
		{"1/0", Spec{}, "stays below the count"},
		{"1", Spec{}, "write I/N"},
		{"a/b", Spec{}, "write I/N"},
	} {
		got, err := Parse(tc.in)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Parse(%q) error %v, want %q", tc.in, err, tc.err)
		}
	}
}

func TestCover(t *testing.T) {
	for _, tc := range []struct {
		parts []Spec
		err   string
	}{
		{[]Spec{{0, 3}, {2, 3}, {1, 3}}, ""},
		{[]Spec{{0, 1}}, ""},
		{[]Spec{{0, 3}, {1, 3}, {1, 3}, {2, 3}}, "p1 and p2 are both shard 1/3 (overlap)"},
		{[]Spec{{0, 3}, {2, 3}}, "shard(s) 1/3 missing (gap)"},
		{[]Spec{{0, 2}, {1, 3}}, "p1 is shard 1/3 but p0 is shard 0/2"},
		{nil, "no partial results"},
	} {
		names := make([]string, len(tc.parts))
		for i := range names {
			names[i] = "p" + string(rune('0'+i))
		}
		err := Cover(names, tc.parts)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("Cover(%v) = %v, want %q", tc.parts, err, tc.err)
		}
	}
}

// TestEveryQueryInOneShard checks that the shards of a split partition the
// queries.
func TestEveryQueryInOneShard(t *testing.T) {
	for _, q := range []string{"", "a", "q000001", "日本", "915593"} {
		for _, n := range []int{1, 2, 4, 7} {
			in := 0
			for i := range n {
				if (Spec{i, n}).Has(q) {
					in++
				}
			}
			if in != 1 {
				t.Errorf("query %q is in %d of %d shards", q, in, n)
			}
		}
	}
}

// Record keeps the position of each of the shard's queries among all.
func TestRecord(t *testing.T) {
	judged := []string{"a", "b", "c", "d", "e", "f"}
	for i := range 3 {
		s := Spec{Index: i, Count: 3}
		part := s.Record(judged)
		if part.Index != i || part.Count != 3 || part.Hash != Hash {
			t.Errorf("shard %s: record %+v", s, part)
		}
		for pos, q := range judged {
			if got, ok := part.Positions[q]; ok != s.Has(q) || ok && got != pos {
				t.Errorf("shard %s, query %s: position %d, %v", s, q, got, ok)
			}
		}
	}
}

func TestContiguous(t *testing.T) {
	for _, c := range []struct {
		positions map[string]int
		want      string
	}{
		{map[string]int{"a": 0, "b": 1, "c": 2}, ""},
		{map[string]int{}, ""},
		{map[string]int{"a": 0, "c": 2}, "past the 2 judged queries"},
		{map[string]int{"a": 0, "b": 2, "c": 2}, "no part holds judged position 1"},
	} {
		err := contiguous(c.positions)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%v: %v, want %q", c.positions, err, c.want)
		}
	}
}
