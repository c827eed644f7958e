package split

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/ragstat/ragstat/diag"
	"github.com/ragstat/ragstat/judgments"
)

// Judgments divides the judgments of s as r divides their topics. A judged
// query without a topic is an error: it would belong to neither side.
func (r *Result) Judgments(s *judgments.Set) (dev, heldOut []judgments.Judgment, err error) {
	var errs diag.List
	for _, id := range s.IDs() {
		js := s.Judgments(id)
		held, known := r.held[id]
		switch {
		case !known:
			errs.Add(&diag.Error{File: s.File, Line: js[0].Line, Query: id, Msg: "judged query has no topic",
				Hint: "add the topic, or remove its judgments; split places queries by their topics"})
		case held:
			heldOut = append(heldOut, js...)
		default:
			dev = append(dev, js...)
		}
	}
	return dev, heldOut, errs.Err()
}

// WriteSummary prints the size of each side and each slice's topics on
// either side.
func (r *Result) WriteSummary(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	n := len(r.Dev) + len(r.HeldOut)
	fmt.Fprintf(tw, "side\ttopics\tgroups\tshare\n")
	fmt.Fprintf(tw, "dev\t%d\t%d\t%.2f\n", len(r.Dev), r.DevGroups, float64(len(r.Dev))/float64(n))
	fmt.Fprintf(tw, "held-out\t%d\t%d\t%.2f\n", len(r.HeldOut), r.HeldOutGroups, float64(len(r.HeldOut))/float64(n))
	if len(r.Slices) > 0 {
		fmt.Fprintf(tw, "\nslice\tdev\theld-out\theld-out share\n")
		for _, s := range r.Slices {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\n", s.Tag, s.Dev, s.HeldOut, float64(s.HeldOut)/float64(s.Dev+s.HeldOut))
		}
	}
	return tw.Flush()
}
