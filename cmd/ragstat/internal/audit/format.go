package audit

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/idtext"
)

// Output writes a report in one format: table, json, markdown or html.
type Output struct {
	Format string
	// HTML renders the html format (the command passes the HTML report's
	// renderer); nil refuses it.
	HTML func(io.Writer, *Report) error
	// MarkdownRows is the most flagged queries the markdown lists (0: 100).
	MarkdownRows int
}

// Write writes rep to w.
func (o Output) Write(w io.Writer, rep *Report) error {
	switch o.Format {
	case "", "table":
		return writeTable(w, rep)
	case "json":
		data, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(data, '\n'))
		return err
	case "markdown":
		return writeMarkdown(w, rep, o.MarkdownRows)
	case "html":
		if o.HTML != nil {
			return o.HTML(w, rep)
		}
	}
	return &diag.OptionError{Option: "format", Value: o.Format, Msg: "is not table, json, markdown or html"}
}

// Rules says in one line by which rules the queries were flagged.
func (s Settings) Rules() string {
	base := "no BM25 baseline (no corpus text)"
	if s.Passages > 0 {
		base = fmt.Sprintf("BM25 baseline over %d passages", s.Passages)
	}
	systems := "no systems"
	if len(s.Systems) > 0 {
		names := make([]string, len(s.Systems))
		for i, name := range s.Systems {
			names[i] = idtext.Show(name)
		}
		systems = "systems " + strings.Join(names, ", ")
	}
	cutoff := "no cutoff"
	if s.Cutoff > 0 {
		cutoff = fmt.Sprintf("cutoff %d", s.Cutoff)
	}
	return fmt.Sprintf("leakage at a content-word overlap >= %.2f (content words: %s); near duplicates at Jaccard >= %g of %d-word shingles; metrics %s, relevant from grade %d, %s; %s; %s",
		s.MaxOverlap, s.Analysis, s.Jaccard, s.Shingle, strings.Join(s.Metrics, ", "), s.MinGrade, cutoff, base, systems)
}

// Headline is the summary's first line.
func (s Summary) Headline() string {
	share := 0.0
	if s.Queries > 0 {
		share = float64(s.Informative) / float64(s.Queries)
	}
	return fmt.Sprintf("%d of %d queries are informative (%.4f): flagged by nothing", s.Informative, s.Queries, share)
}

// Text is the minimum detectable effect, or why there is none.
func (p Power) Text() string {
	if p.MDE == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.4f", *p.MDE)
}

// Reasons lists the reasons of a query's flags, comma-separated.
func (q *Query) Reasons() string {
	rs := make([]string, len(q.Flags))
	for i, f := range q.Flags {
		rs[i] = f.Reason
	}
	return strings.Join(rs, ", ")
}

func writeTable(w io.Writer, rep *Report) error {
	s := rep.Summary
	fmt.Fprintln(w, "Audit:", s.Headline())
	fmt.Fprintln(w, "Rules:", idtext.Line(rep.Settings.Rules()))
	fmt.Fprintln(w, "\nFlagged by:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  reason\tqueries\tshare")
	for _, c := range s.Reasons {
		fmt.Fprintf(tw, "  %s\t%d\t%.4f\n", c.Reason, c.Queries, c.Share)
	}
	tw.Flush()
	if len(s.Slices) > 0 {
		fmt.Fprintln(w, "\nSlices:")
		fmt.Fprintln(tw, "  slice\tqueries\tinformative")
		for _, c := range s.Slices {
			fmt.Fprintf(tw, "  %s\t%d\t%d\n", idtext.Show(c.Name), c.Queries, c.Informative)
		}
		tw.Flush()
	}
	if len(s.Resolution) > 0 {
		fmt.Fprintf(w, "\nSmallest difference a paired t-test detects (%g%% confidence, %g%% power):\n", rep.Settings.Level*100, rep.Settings.Power*100)
		fmt.Fprintln(tw, "  metric\tbase\tcandidate\tall queries\tMDE\tinformative\tMDE")
		for _, r := range s.Resolution {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\t%d\t%s\n", idtext.Show(r.Metric), idtext.Show(r.Base), idtext.Show(r.Candidate), r.All.Queries, r.All.Text(), r.Informative.Queries, r.Informative.Text())
		}
		tw.Flush()
	}
	flagged := 0
	for i := range rep.Queries {
		q := &rep.Queries[i]
		if q.Informative() {
			continue
		}
		if flagged == 0 {
			fmt.Fprintln(w, "\nFlagged queries:")
		}
		flagged++
		fmt.Fprintf(w, "  %s: %s\n", idtext.Show(q.ID), q.Reasons())
		for _, f := range q.Flags {
			fmt.Fprintf(w, "    %s: %s\n", f.Reason, idtext.Line(f.Detail))
		}
	}
	for _, n := range rep.Notes {
		fmt.Fprintln(w, "Note:", idtext.Line(n))
	}
	return nil
}

func writeMarkdown(w io.Writer, rep *Report, rows int) error {
	if rows <= 0 {
		rows = 100
	}
	s := rep.Summary
	fmt.Fprintf(w, "### Test set audit\n\n**%s**\n\n%s\n\n", s.Headline(), idtext.MarkdownLine(rep.Settings.Rules()))
	fmt.Fprintln(w, "| reason | queries | share |\n|---|---:|---:|")
	for _, c := range s.Reasons {
		fmt.Fprintf(w, "| %s | %d | %.4f |\n", c.Reason, c.Queries, c.Share)
	}
	if len(s.Slices) > 0 {
		fmt.Fprintln(w, "\n| slice | queries | informative |\n|---|---:|---:|")
		for _, c := range s.Slices {
			fmt.Fprintf(w, "| %s | %d | %d |\n", idtext.Markdown(c.Name), c.Queries, c.Informative)
		}
	}
	if len(s.Resolution) > 0 {
		fmt.Fprintf(w, "\nSmallest difference a paired t-test detects (%g%% confidence, %g%% power):\n\n", rep.Settings.Level*100, rep.Settings.Power*100)
		fmt.Fprintln(w, "| metric | base | candidate | all queries | MDE | informative | MDE |\n|---|---|---|---:|---:|---:|---:|")
		for _, r := range s.Resolution {
			fmt.Fprintf(w, "| %s | %s | %s | %d | %s | %d | %s |\n", idtext.Markdown(r.Metric), idtext.Markdown(r.Base), idtext.Markdown(r.Candidate), r.All.Queries, r.All.Text(), r.Informative.Queries, r.Informative.Text())
		}
	}
	shown, flagged := 0, 0
	for i := range rep.Queries {
		q := &rep.Queries[i]
		if q.Informative() {
			continue
		}
		flagged++
		if shown == rows {
			continue
		}
		if shown == 0 {
			fmt.Fprintln(w, "\n| query | reasons | details |\n|---|---|---|")
		}
		shown++
		details := make([]string, len(q.Flags))
		for k, f := range q.Flags {
			details[k] = f.Reason + ": " + f.Detail
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", idtext.Markdown(q.ID), q.Reasons(), idtext.MarkdownLine(strings.Join(details, "; ")))
	}
	if flagged > shown {
		fmt.Fprintf(w, "\n%d more flagged queries are not listed.\n", flagged-shown)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "\n> %s\n", idtext.MarkdownLine(n))
	}
	return nil
}
