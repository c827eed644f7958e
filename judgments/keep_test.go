package judgments

import (
	"slices"
	"testing"

	"github.com/ragstat/ragstat/input"
)

// TestKeep reads one shard's judgments: the other queries are checked but
// not held, the kept queries' first lines keep the file's order, and a
// shard with no judged query is no error.
func TestKeep(t *testing.T) {
	data := "q1 0 a 1\nq2 0 b 1\nq1 0 c 0\nq3 0 d 2\nq2 0 e 0\n"
	for _, tc := range []struct {
		keep  func(string) bool
		ids   []string
		lines []int
		n     int
	}{
		{nil, []string{"q1", "q2", "q3"}, []int{1, 2, 4}, 5},
		{func(q string) bool { return q != "q1" }, []string{"q2", "q3"}, []int{2, 4}, 3},
		{func(string) bool { return false }, nil, nil, 0},
	} {
		s, err := Read(input.FromBytes("qrels", []byte(data)), Options{Keep: tc.keep})
		if err != nil {
			t.Fatal(err)
		}
		var lines []int
		for _, q := range s.IDs() {
			lines = append(lines, s.Query(q).FirstLine())
		}
		if !slices.Equal(s.IDs(), tc.ids) || !slices.Equal(lines, tc.lines) || s.Len() != tc.n {
			t.Errorf("kept %v at lines %v, %d judgments; want %v at %v, %d", s.IDs(), lines, s.Len(), tc.ids, tc.lines, tc.n)
		}
	}
	if _, err := Read(input.FromBytes("qrels", []byte("q1 0 a 1\nq2 0 b 9\n")), Options{Keep: func(q string) bool { return q == "q1" }}); err == nil {
		t.Error("a bad grade in a query of another shard was accepted")
	}
}
