package report

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/ragstat/ragstat/internal/idtext"
	"github.com/ragstat/ragstat/stages"
)

// analysesLines prints one system's analyses of the evidence boundary.
func analysesLines(w io.Writer, a *stages.Analyses) {
	fmt.Fprintln(w, "\nAnalyses:")
	for _, c := range a.Calibration {
		calibrationLines(w, c)
	}
	if len(a.Calibration) == 0 {
		fmt.Fprintln(w, "  calibration: no stage recorded scores")
	}
	redundancyLines(w, a.Redundancy)
	fmt.Fprintf(w, "  relevant evidence by position in the packed context (thirds of its tokens), and correct answers (correct: %s):\n", a.Position.Rule)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "    position\tpassages\tmean rank\tqueries\tcorrect")
	for _, b := range append(a.Position.Buckets, a.Position.NoEvidence) {
		fmt.Fprintf(tw, "    %s\t%d\t%s\t%d\t%s\n", b.Bucket, b.Passages, over(b.Passages, b.MeanRank, 2), b.Queries, over(b.Queries, b.Correct, 4))
	}
	tw.Flush()
	for _, s := range a.Stale {
		fmt.Fprintf(w, "  stale item %s: in %d context(s), cited by %d answer(s)\n", idtext.Show(s.Item), s.Contexts, s.Answers)
	}
	if c := a.Cost; c != nil {
		fmt.Fprintf(w, "  cost over %d queries at %g USD per 1M input and %g USD per 1M output tokens: %.6f USD per query, %.6f USD in all\n", c.Queries, c.PriceIn, c.PriceOut, c.PerQuery, c.Total)
		for _, p := range c.Parts {
			fmt.Fprintf(w, "    %s: %.1f tokens, %.6f USD per query\n", p.Part, p.MeanTokens, p.PerQuery)
		}
	}
}

// over writes a mean over n things with prec decimals, or "-" over none.
func over(n int, v float64, prec int) string {
	if n == 0 {
		return "-"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

func calibrationLines(w io.Writer, c stages.StageCalibration) {
	ece := "n/a (scores outside [0, 1])"
	if c.ECE != nil {
		ece = fmt.Sprintf("%.4f", *c.ECE)
	}
	fmt.Fprintf(w, "  calibration of stage %s over %d queries, %d judged items: ECE %s\n", idtext.Show(c.Stage), c.Queries, c.Judged, ece)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "    score from\tto\titems\tmean score\trelevant\tmean grade")
	for _, b := range c.Bins {
		fmt.Fprintf(tw, "    %.4g\t%.4g\t%d\t%s\t%s\t%s\n", b.Low, b.High, b.Count, over(b.Count, b.MeanScore, 4), over(b.Count, b.Relevant, 4), over(b.Count, b.MeanGrade, 4))
	}
	tw.Flush()
	target := ""
	switch {
	case c.TargetPrecision > 0 && c.TargetRecall > 0:
		target = fmt.Sprintf("precision %g and recall %g", c.TargetPrecision, c.TargetRecall)
	case c.TargetPrecision > 0:
		target = fmt.Sprintf("precision %g", c.TargetPrecision)
	case c.TargetRecall > 0:
		target = fmt.Sprintf("recall %g", c.TargetRecall)
	default:
		return
	}
	if c.Threshold == nil {
		fmt.Fprintf(w, "    no score threshold keeps %s\n", target)
		return
	}
	fmt.Fprintf(w, "    threshold for %s: score >= %g keeps precision %.4f, recall %.4f; leaves %d of %d queries empty\n",
		target, *c.Threshold, c.Precision, c.Recall, c.EmptyQueries, c.Queries)
}

// redundancyLines prints each stage's repeats, then its documents' shares.
func redundancyLines(w io.Writer, r stages.RedundancyReport) {
	fmt.Fprintf(w, "  redundancy per stage (%d-word shingles, near duplicate at Jaccard >= %g; sizes in %s):\n", r.Shingle, r.Threshold, r.Unit)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "    stage\tlists\titems\twithout text\texact pairs\tnear pairs\tlists with repeats\trepeat %s\tof\tshare\tunique relevant\tof relevant\n", r.Unit)
	for _, s := range r.Stages {
		fmt.Fprintf(tw, "    %s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t%d\n", idtext.Show(s.Stage), s.Lists, s.Items, s.NoText,
			s.ExactPairs, s.NearPairs, s.WithRepeats, s.RepeatTokens, s.Tokens, over(s.Tokens, s.RepeatShare, 4), s.UniqueRelevant, s.RelevantItems)
	}
	tw.Flush()
	for _, s := range r.Stages {
		if len(s.DocShare) == 0 {
			continue
		}
		fmt.Fprintf(w, "  documents' share of stage %s (%d documents, largest first, by %s):", idtext.Show(s.Stage), s.Docs, r.Unit)
		for _, d := range s.DocShare {
			fmt.Fprintf(w, " %s %.4f", idtext.Show(d.Doc), d.Share)
		}
		fmt.Fprintln(w)
	}
}
