package settings

import (
	"maps"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
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
		if got := ShardOf(tc.query, 4); got != tc.of4 {
			t.Errorf("Of(%q, 4) = %d, want %d (hash %d)", tc.query, got, tc.of4, tc.hash)
		}
		if got := ShardOf(tc.query, 7); got != tc.of7 {
			t.Errorf("Of(%q, 7) = %d, want %d", tc.query, got, tc.of7)
		}
		if !(Shard{Index: tc.of4, Count: 4}).Has(tc.query) || (Shard{Index: (tc.of4 + 1) % 4, Count: 4}).Has(tc.query) {
			t.Errorf("Has disagrees with Of for %q", tc.query)
		}
	}
}

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		err  string
	}{
		{"0/4", Shard{0, 4}, ""},
		{"6/7", Shard{6, 7}, ""},
		{"0/1", Shard{0, 1}, ""},
		{"4/4", Shard{}, "stays below the count"},
		{"-1/4", Shard{}, "stays below the count"},
		{"1/0", Shard{}, "stays below the count"},
		{"1", Shard{}, "write I/N"},
		{"a/b", Shard{}, "write I/N"},
	} {
		got, err := ParseShard(tc.in)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseShard(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseShard(%q) error %v, want %q", tc.in, err, tc.err)
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
				if (Shard{i, n}).Has(q) {
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
		s := Shard{Index: i, Count: 3}
		part := s.Record(judged)
		if part.Index != i || part.Count != 3 || part.Hash != ShardHash {
			t.Errorf("shard %s: record %+v", s, part)
		}
		for pos, q := range judged {
			if got, ok := part.Positions[q]; ok != s.Has(q) || ok && got != pos {
				t.Errorf("shard %s, query %s: position %d, %v", s, q, got, ok)
			}
		}
	}
}

// TestSelect checks what a selection keeps and records, and that ""
// selects every query.
func TestSelect(t *testing.T) {
	for _, tc := range []struct {
		text string
		keep bool
		err  bool
	}{
		{"", false, false},
		{"0/2", true, false},
		{"2/2", false, true},
	} {
		s, err := Select(tc.text)
		if (err != nil) != tc.err || (s.Keep() != nil) != tc.keep || (s.Part() != nil) != tc.keep {
			t.Errorf("%q: %+v, %v", tc.text, s, err)
		}
		var files Files
		s.Read(&files)
		if (files.Keep != nil) != tc.keep {
			t.Errorf("%q: Keep set: %v", tc.text, files.Keep != nil)
		}
	}
	s, _ := Select("1/3")
	var files Files
	s.Read(&files)
	judged := []string{"a", "b", "c", "d", "e"}
	set, err := judgments.Read(input.FromBytes("qrels.txt", []byte("a 0 x 1\nb 0 x 1\nc 0 x 1\nd 0 x 1\ne 0 x 1\n")), judgments.Options{})
	if err != nil {
		t.Fatal(err)
	}
	keep := files.Keep(set)
	if want := s.spec.Record(judged).Positions; !maps.Equal(s.Part().Positions, want) {
		t.Errorf("positions %v, want %v", s.Part().Positions, want)
	}
	for _, q := range judged {
		if keep(q) != (ShardOf(q, 3) == 1) {
			t.Errorf("%s kept: %v", q, keep(q))
		}
	}
}
