package report

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/internal/idtext"
)

// LLMLabels is what an evaluation of judgments with LLM labels adds to its
// results: each run's PPI++ means (under ppi) and the agreement between
// the LLM and people. Every number was computed by package eval.
type LLMLabels struct {
	PPI       []*eval.PPIResult `json:"ppi,omitempty"`
	Agreement *eval.Agreement   `json:"agreement,omitempty"`
}

// empty reports whether there is nothing to print.
func (l *LLMLabels) empty() bool { return l == nil || len(l.PPI) == 0 && l.Agreement == nil }

// Text writes the label sections for people, as aligned lines: the PPI++
// means run by run beside the human-only bounds and the LLM-filled mean,
// the agreement's kappa and confusion matrix, and Kendall's tau between
// the systems' rankings. Nothing when there is nothing to say.
func (l *LLMLabels) Text() string {
	if l.empty() {
		return ""
	}
	var b strings.Builder
	if len(l.PPI) > 0 {
		p := l.PPI[0]
		level := strconv.FormatFloat(100*p.Level, 'f', -1, 64) + "%"
		fmt.Fprintf(&b, "\nPPI++ means (labels ppi): %s intervals; %d of the %d queries with LLM labels audited, %d without LLM labels exact\n",
			level, p.Audited, p.Labelled, p.Queries-p.Labelled)
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "run\tmetric\tppi mean\t%s interval\tlambda\tLLM-filled mean\taudit alone\thuman-only bounds\n", level)
		for _, r := range l.PPI {
			for _, m := range r.Metrics {
				bounds := "-"
				if m.HumanLow != nil {
					bounds = interval(*m.HumanLow, *m.HumanHigh)
				}
				fmt.Fprintf(tw, "%s\t%s\t%.4f\t%s\t%.2f\t%.4f\t%.4f %s\t%s\n", idtext.Show(r.Run), idtext.Show(m.Metric), m.Mean,
					interval(m.Low, m.High), m.Lambda, m.Filled, m.Audit, interval(m.AuditLow, m.AuditHigh), bounds)
			}
		}
		tw.Flush()
		var flat []string
		for _, r := range l.PPI {
			for _, m := range r.Metrics {
				if m.NoWidth {
					flat = append(flat, idtext.Show(r.Run)+" "+idtext.Show(m.Metric))
				}
			}
		}
		if len(flat) > 0 {
			fmt.Fprintf(&b, "intervals of no width (%s): the audited queries showed no disagreement there, which does not show there is none in the others; audit more queries\n",
				strings.Join(flat, ", "))
		}
		for _, r := range l.PPI {
			if r.BoundsError != "" {
				fmt.Fprintf(&b, "%s: no human-only bounds: %s\n", idtext.Show(r.Run), idtext.Line(r.BoundsError))
				break
			}
		}
	}
	if a := l.Agreement; a != nil {
		kappa := "undefined (" + a.KappaNote + ")"
		if a.Kappa != nil {
			kappa = fmt.Sprintf("%.3f", *a.Kappa)
		}
		fmt.Fprintf(&b, "\nAgreement of the LLM with people on the %d pairs both graded: Cohen's weighted kappa (quadratic) %s\n", a.Pairs, kappa)
		b.WriteString("confusion: rows are people's grades, columns the LLM's\n")
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
		tw.Write([]byte("\t"))
		for g := range a.Confusion {
			fmt.Fprintf(tw, "%d\t", a.Grades.Min+g)
		}
		tw.Write([]byte("\n"))
		for g, row := range a.Confusion {
			fmt.Fprintf(tw, "%d\t", a.Grades.Min+g)
			for _, n := range row {
				fmt.Fprintf(tw, "%d\t", n)
			}
			tw.Write([]byte("\n"))
		}
		tw.Flush()
		for _, r := range a.Rankings {
			tau := "undefined (every system tied)"
			if r.Tau != nil {
				tau = fmt.Sprintf("%.3f", *r.Tau)
			}
			fmt.Fprintf(&b, "Kendall's tau between the %d systems' rankings by %s over the audited queries, people's grades vs LLM-filled: %s\n",
				r.Systems, idtext.Show(r.Metric), tau)
		}
	}
	return b.String()
}

// Lines is Text as lines without the blank ones: notes for formats that
// have no place for the sections (CSV, TSV, JSON Lines, trec).
func (l *LLMLabels) Lines() []string {
	var out []string
	for line := range strings.SplitSeq(l.Text(), "\n") {
		if strings.TrimSpace(line) != "" {
			out = append(out, strings.TrimRight(line, " "))
		}
	}
	return out
}

func interval(lo, hi float64) string { return fmt.Sprintf("[%.4f, %.4f]", lo, hi) }
