package pool

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/ragstat/ragstat/internal/idtext"
)

// WriteSummary writes what a pool holds, for people: per system, its top k,
// what was judged before and will be after, and what it alone contributed.
// out names where the queue went.
func (res *Result) WriteSummary(w io.Writer, out string) error {
	depth := res.Depth
	fmt.Fprintf(w, "Pooled %d systems over %d queries at depth %d: %d pairs to judge (%d already judged) -> %s\n\n",
		len(res.Systems), res.Queries, depth, len(res.Queue), res.AlreadyJudged, idtext.Show(out))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "system\tqueries\ttop %d\tjudged before\tto judge\tunique\tjudged after\tranks %d-%d judged after\n", depth, depth+1, 2*depth)
	for _, s := range res.Systems {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d (%s)\t%d\t%d\t%s\t%s\n", idtext.Show(s.System), s.Queries, s.TopK, s.Judged, pct(s.JudgedBefore()),
			s.Pooled, s.Unique, pct(s.JudgedAfter()), deeper(s))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(w, "\nunique: pairs to judge that no other system put in its top k. judged after: once the queue is judged."); err != nil {
		return err
	}
	for _, s := range res.Systems {
		if s.Invalid > 0 {
			fmt.Fprintf(w, "%s: %d pairs of its top %d are not acceptable evidence for their query (out of scope or not in effect at as_of): not pooled, not counted\n", idtext.Show(s.System), s.Invalid, depth)
		}
	}
	return nil
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

func deeper(s SystemStats) string {
	if s.Deeper == 0 {
		return "-"
	}
	return pct(s.DeeperAfter())
}
