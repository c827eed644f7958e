package comparecmd

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
)

// TestRankingOf: the relevant items come in rank order, so the first is
// the one reciprocal rank reads even when a higher grade sits lower, then
// the unreturned ones, best grade first.
func TestRankingOf(t *testing.T) {
	set, err := judgments.Read(input.FromBytes("qrels.txt", []byte("q 0 best 3\nq 0 good 2\nq 0 fair 1\nq 0 lost3 3\nq 0 lost1 1\nq 0 noise 0\n")), judgments.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rk := rankingOf([]string{"noise", "fair", "x", "best", "good"}, set.Query("q"), 1, 2)
	var got []string
	for _, it := range rk.Relevant {
		got = append(got, fmt.Sprintf("%s %d@%d", it.ID, it.Grade, it.Rank))
	}
	if want := "fair 1@2 best 3@4 good 2@5 lost3 3@0 lost1 1@0"; strings.Join(got, " ") != want {
		t.Errorf("Relevant = %q, want %q", strings.Join(got, " "), want)
	}
	if len(rk.Top) != 2 || rk.Top[0].ID != "noise" || !rk.Top[0].Judged || rk.Top[1].Grade != 1 {
		t.Errorf("Top = %+v", rk.Top)
	}
}
