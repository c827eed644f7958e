package mergecmd

import (
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
)

func TestCover(t *testing.T) {
	for _, tc := range []struct {
		parts []settings.Shard
		err   string
	}{
		{[]settings.Shard{{Index: 0, Count: 3}, {Index: 2, Count: 3}, {Index: 1, Count: 3}}, ""},
		{[]settings.Shard{{Index: 0, Count: 1}}, ""},
		{[]settings.Shard{{Index: 0, Count: 3}, {Index: 1, Count: 3}, {Index: 1, Count: 3}, {Index: 2, Count: 3}}, "p1 and p2 are both shard 1/3 (overlap)"},
		{[]settings.Shard{{Index: 0, Count: 3}, {Index: 2, Count: 3}}, "shard(s) 1/3 missing (gap)"},
		{[]settings.Shard{{Index: 0, Count: 2}, {Index: 1, Count: 3}}, "p1 is shard 1/3 but p0 is shard 0/2"},
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
