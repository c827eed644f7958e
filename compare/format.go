package compare

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/idtext"
	"github.com/ragstat/ragstat/internal/manifest"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/report"
)

// Formats lists the text formats Render writes; the HTML report is rendered
// by the renderer passed in Output.HTML.
var Formats = []string{"table", "json", "csv", "markdown"}

// Render writes r in format.
func Render(w io.Writer, format string, r *Result) error {
	switch format {
	case "table":
		return table(w, r)
	case "json":
		return writeJSON(w, r)
	case "csv":
		return CSV(w, r, false)
	case "markdown":
		return markdown(w, r)
	}
	return fmt.Errorf("unknown format %q: use %s", format, strings.Join(Formats, ", "))
}

// Output says how Write renders a comparison.
type Output struct {
	// Format is one of Formats, or "html" when HTML is set.
	Format string
	// CSVComments puts the settings, policy and notes as # lines above
	// CSV's header.
	CSVComments bool
	// HTML renders the "html" format; it is passed in because the HTML
	// renderer imports this package.
	HTML func(io.Writer, *Result) error
}

// Write renders r to w in o.Format. It returns the lines the format has
// no place for (CSV without comments: Beyond), for the caller to show
// apart.
func (o Output) Write(w io.Writer, r *Result) (apart []string, err error) {
	switch {
	case o.Format == "html" && o.HTML != nil:
		return nil, o.HTML(w, r)
	case o.Format == "csv" && !o.CSVComments:
		return r.Beyond(), CSV(w, r, false)
	case o.Format == "csv":
		return nil, CSV(w, r, true)
	}
	return nil, Render(w, o.Format, r)
}

// Read reads back a result Render wrote as JSON, strictly: an unknown
// field, a value of the wrong type or a document without a compare
// manifest is an error naming the file.
func Read(f *input.File) (*Result, error) {
	var r Result
	if err := manifest.Decode(f, manifest.KindCompare, &r, func() *manifest.Manifest {
		if len(r.Candidates) == 0 {
			return nil
		}
		return r.Manifest
	}); err != nil {
		return nil, err
	}
	return &r, nil
}

// Head states what was compared and how, one line each, then the notes.
func (r *Result) Head() []string { return r.head(true) }

// Setup states what was compared and how, one line each: Head without the
// notes, for a renderer that shows them apart.
func (r *Result) Setup() []string { return r.head(false) }

// Beyond is what Head says that CSV's columns do not: the definitions,
// the notes and the gate's power, for a caller to show apart.
func (r *Result) Beyond() []string {
	h := r.Head()
	for i, l := range h {
		if strings.HasPrefix(l, "metrics: ") {
			return h[i+1:]
		}
	}
	return nil
}

func (r *Result) head(withNotes bool) []string {
	s := r.Settings
	out := []string{
		fmt.Sprintf("base %s vs %s over %d queries", r.Base, strings.Join(r.Candidates, ", "), len(r.Queries)),
		fmt.Sprintf("statistics: seed %d; %s %s bootstrap interval from %d resamples of whole queries; "+
			"sign-flip randomization p from %d sign vectors (exact up to %d queries); paired t-test; effect size d_z",
			s.Seed, r.Level(), s.Interval, s.Resamples, s.Randomizations, s.ExactMax),
		fmt.Sprintf("correction: %s, over the %d whole-set comparisons, and separately over the slice comparisons; * significant at %s",
			s.Correction, len(r.Comparisons), r.Level()),
	}
	if m := r.Manifest; m != nil {
		out = append(out, "policy: "+m.Policy.String())
	}
	out = append(out, "metrics: "+strings.Join(r.Metrics, " "))
	out = append(out, r.definitions()...)
	if r.undefinedEffect() {
		out = append(out, "note: d_z is - (null in JSON) where it is undefined: every query of the set moved by the same amount, or the set has one query; t-test p is - with a single query")
	}
	if withNotes {
		for _, n := range r.Notes {
			out = append(out, "note: "+n)
		}
	}
	out = append(out, r.ppiLines()...)
	if r.Agreement != nil {
		out = append(out, (&report.LLMLabels{Agreement: r.Agreement}).Lines()...)
	}
	for _, g := range r.GatePower {
		out = append(out, g.Line(r.Settings.Level))
	}
	if r.Frontier != nil {
		out = append(out, r.Frontier.Lines()...)
	}
	return out
}

// definitions names the definition each metric used, once per metric
// (a traced stage's "stage/nDCG@10" reads as nDCG@10).
func (r *Result) definitions() []string {
	if r.Manifest == nil {
		return nil
	}
	p := r.Manifest.Policy
	var out []string
	seen := map[string]bool{}
	for _, name := range r.Metrics {
		name = name[strings.LastIndex(name, "/")+1:]
		ms, err := metric.ParseLike(name, p.Like)
		if err != nil || len(ms) != 1 || seen[ms[0].Name()] {
			continue // a stage's fact coverage, say
		}
		seen[ms[0].Name()] = true
		out = append(out, "definition "+ms[0].Definition(p.MetricPolicy()))
	}
	return out
}

// undefinedEffect reports whether any comparison has no d_z.
func (r *Result) undefinedEffect() bool {
	for _, c := range r.Comparisons {
		if !c.EffectSize.finite() {
			return true
		}
	}
	for _, s := range r.Slices {
		for _, c := range s.Comparisons {
			if !c.EffectSize.finite() {
				return true
			}
		}
	}
	return false
}

// Level is the confidence level as a percentage, such as "95%".
func (r *Result) Level() string {
	return strconv.FormatFloat(100*r.Settings.Level, 'g', -1, 64) + "%"
}

// Cells formats the numbers of s for people: base, cand, diff, interval,
// win/tie/loss, p, adjusted p with a star when significant, t-test p, d_z.
func (s *Stat) Cells() []string {
	adj := "-"
	if s.PAdjusted != nil {
		adj = fmt.Sprintf("%.4f", *s.PAdjusted)
		if s.Significant {
			adj += " *"
		}
	}
	tp := "-"
	if s.TTest != nil {
		tp = fmt.Sprintf("%.4f", s.TTest.P)
	}
	return []string{f4(s.BaseMean), f4(s.CandMean), signed(s.MeanDiff), s.Interval(),
		fmt.Sprintf("%d/%d/%d", s.Wins, s.Ties, s.Losses), fmt.Sprintf("%.4f", s.P), adj, tp, effect(s.EffectSize)}
}

// StatHeader names the columns of Stat.Cells.
var StatHeader = []string{"base", "cand", "diff", "CI", "win/tie/loss", "p", "p adj", "t-test p", "d_z"}

// Interval writes the bootstrap interval as [lo, hi].
func (s *Stat) Interval() string { return "[" + signed(s.CILow) + ", " + signed(s.CIHigh) + "]" }

func f4(v float64) string     { return strconv.FormatFloat(v, 'f', 4, 64) }
func signed(v float64) string { return fmt.Sprintf("%+.4f", v) }

// effect writes d_z, or "-" where it is undefined (every query moved by
// the same amount, or a single query): no output prints an infinity.
func effect(f Float) string {
	if !f.finite() {
		return "-"
	}
	return fmt.Sprintf("%+.3g", float64(f))
}

// Ranks writes where the relevant items sit as grade@rank, in rank order,
// "-" for an item not returned: "1@2 3@7 2@-", at most n of them. The first
// is the first relevant item, the one reciprocal rank reads.
func (rk *Ranking) Ranks(n int) string {
	if rk == nil {
		return "?"
	}
	var parts []string
	for i, it := range rk.Relevant {
		if i == n {
			parts = append(parts, fmt.Sprintf("(+%d)", len(rk.Relevant)-n))
			break
		}
		rank := "-"
		if it.Rank > 0 {
			rank = strconv.Itoa(it.Rank)
		}
		parts = append(parts, fmt.Sprintf("%d@%s", it.Grade, rank))
	}
	return strings.Join(parts, " ")
}

// tested counts the slices large enough to be tested.
func (r *Result) tested() int {
	n := 0
	for _, s := range r.Slices {
		if !s.TooSmall {
			n++
		}
	}
	return n
}

// tooSmallLine names, on one line, the slices too small to be tested,
// with their sizes ("" when there is none): their rows would only repeat
// that they are untested.
func (r *Result) tooSmallLine() string {
	var names []string
	for _, s := range r.Slices {
		if s.TooSmall {
			names = append(names, fmt.Sprintf("%s (%d)", s.Name, s.N))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("too small to be tested (fewer than %d queries; every value in the JSON and CSV output): %d slice(s): %s",
		r.Settings.MinSlice, len(names), strings.Join(names, ", "))
}

func table(w io.Writer, r *Result) error {
	for _, l := range r.Head() {
		fmt.Fprintf(w, "# %s\n", idtext.Line(l))
	}
	for _, a := range r.Alerts {
		fmt.Fprintf(w, "ALERT: %s\n", idtext.Line(a.Message))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(cells ...string) { fmt.Fprintln(tw, strings.Join(shown(cells), "\t")) }
	fmt.Fprintln(tw)
	row(append([]string{"candidate", "metric"}, StatHeader...)...)
	for _, c := range r.Comparisons {
		row(append([]string{c.Candidate, c.Metric}, c.Cells()...)...)
	}
	if len(r.Slices) > 0 {
		fmt.Fprintf(tw, "\nslices (at least %d queries to be tested)\n", r.Settings.MinSlice)
		if r.tested() > 0 {
			row(append([]string{"slice", "n", "candidate", "metric"}, StatHeader...)...)
		}
		for _, s := range r.Slices {
			for _, c := range s.Comparisons {
				if !s.TooSmall {
					row(append([]string{s.Name, strconv.Itoa(s.N), c.Candidate, c.Metric}, c.Cells()...)...)
				}
			}
		}
		if l := r.tooSmallLine(); l != "" {
			fmt.Fprintln(tw, l)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return r.tableExtremes(w)
}

// tableExtremes lists the largest moves of every candidate and metric.
func (r *Result) tableExtremes(w io.Writer) error {
	for _, x := range r.Extremes {
		for _, part := range []struct {
			what  string
			moved []Moved
		}{{"regressions", x.Regressions}, {"improvements", x.Improvements}} {
			if len(part.moved) == 0 {
				continue
			}
			how := " (relevant items as grade@rank, in rank order)"
			if !ranked(part.moved) {
				how = ""
			}
			fmt.Fprintf(w, "\nlargest %s: %s, %s%s\n", part.what, idtext.Show(x.Candidate), idtext.Show(x.Metric), how)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, strings.Join(movedHeader(part.moved), "\t"))
			for _, m := range part.moved {
				fmt.Fprintln(tw, strings.Join(shown(movedCells(m, ranked(part.moved))), "\t"))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// movedCells formats a moved query: id, values, both rankings' relevant
// ranks (when ranks, see ranked) and the start of its text.
func movedCells(m Moved, ranks bool) []string {
	if !ranks {
		return []string{m.Query, f4(m.Base), f4(m.Cand), signed(m.Diff), clip(m.Text, 60)}
	}
	return []string{m.Query, f4(m.Base), f4(m.Cand), signed(m.Diff), m.BaseRanking.Ranks(5), m.CandRanking.Ranks(5), clip(m.Text, 60)}
}

// shown passes each cell through idtext.Show, in place.
func shown(cells []string) []string {
	for i, c := range cells {
		cells[i] = idtext.Show(c)
	}
	return cells
}

// movedHeader names the columns of movedCells for moved.
func movedHeader(moved []Moved) []string {
	if !ranked(moved) {
		return []string{"query", "base", "cand", "diff", "text"}
	}
	return []string{"query", "base", "cand", "diff", "base ranks", "cand ranks", "text"}
}

// ranked reports whether any moved query knows where its relevant items
// sit: a comparison of saved results or of traces' stages does not, and
// then the rank columns are left out rather than filled with "?".
func ranked(moved []Moved) bool {
	for _, m := range moved {
		if m.BaseRanking != nil || m.CandRanking != nil {
			return true
		}
	}
	return false
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// CSV writes one row per comparison, whole set (scope "all") then slices,
// that loads as it is: a header, nothing above it, and on every row the
// base and the settings (level, interval, resamples, randomizations, seed,
// correction) and the policy on one line, as eval.ParsePolicy reads it. The
// notes have no column. With comments, the head (settings, policy, notes)
// goes to "#" lines above the header instead, as before.
func CSV(w io.Writer, r *Result, comments bool) error {
	header := []string{"scope", "n", "too_small", "candidate", "metric", "base_mean", "cand_mean", "mean_diff",
		"ci_low", "ci_high", "wins", "ties", "losses", "p", "p_exact", "p_adjusted", "significant", "t_test_p", "effect_size"}
	var settings []string
	if comments {
		for _, l := range r.Head() {
			fmt.Fprintf(w, "# %s\n", idtext.Line(l))
		}
	} else {
		s := r.Settings
		header = append(header, "base", "level", "interval", "resamples", "randomizations", "seed", "correction", "policy")
		settings = []string{idtext.Cell(r.Base), g(s.Level), s.Interval, strconv.Itoa(s.Resamples), strconv.Itoa(s.Randomizations),
			strconv.FormatUint(s.Seed, 10), s.Correction, ""}
		if r.Manifest != nil {
			settings[len(settings)-1] = r.Manifest.Policy.String()
		}
	}
	cw := csv.NewWriter(w)
	cw.Write(header)
	write := func(scope string, tooSmall bool, c Comparison) {
		adj, tp := "", ""
		if c.PAdjusted != nil {
			adj = g(*c.PAdjusted)
		}
		if c.TTest != nil {
			tp = g(c.TTest.P)
		}
		cw.Write(append([]string{idtext.Cell(scope), strconv.Itoa(c.N), strconv.FormatBool(tooSmall), idtext.Cell(c.Candidate), idtext.Cell(c.Metric),
			g(c.BaseMean), g(c.CandMean), g(c.MeanDiff), g(c.CILow), g(c.CIHigh), strconv.Itoa(c.Wins),
			strconv.Itoa(c.Ties), strconv.Itoa(c.Losses), g(c.P), strconv.FormatBool(c.PExact), adj,
			strconv.FormatBool(c.Significant), tp, finiteOrEmpty(c.EffectSize)}, settings...))
	}
	for _, c := range r.Comparisons {
		write("all", false, c)
	}
	for _, s := range r.Slices {
		for _, c := range s.Comparisons {
			write(s.Name, s.TooSmall, c)
		}
	}
	cw.Flush()
	return cw.Error()
}

func g(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// finiteOrEmpty writes f, or an empty cell where it is undefined.
func finiteOrEmpty(f Float) string {
	if !f.finite() {
		return ""
	}
	return g(float64(f))
}
