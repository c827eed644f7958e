package remap

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// WriteCounts prints counts as a table with a TOTAL row; what names the
// counted unit ("judgments", "pieces") and key the rows ("query", "topic").
func WriteCounts(w io.Writer, key, what string, counts []Counts) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\t%s\tmapped\tambiguous\tunmapped\tconflicting\n", key, what)
	total := Counts{ID: "TOTAL"}
	for _, c := range counts {
		row(tw, c)
		total.Total += c.Total
		total.Mapped += c.Mapped
		total.Ambiguous += c.Ambiguous
		total.Unmapped += c.Unmapped
		total.Conflicting += c.Conflicting
	}
	row(tw, total)
	return tw.Flush()
}

func row(w io.Writer, c Counts) {
	fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%d\n", c.ID, c.Total, c.Mapped, c.Ambiguous, c.Unmapped, c.Conflicting)
}

// WriteReview writes review lines as JSON Lines.
func WriteReview(w io.Writer, rs []Review) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, r := range rs {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return bw.Flush()
}
