package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/flagname"
	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/idtext"
	"github.com/ragstat/ragstat/internal/jsonenc"
	"github.com/ragstat/ragstat/internal/jsonin"
	"github.com/ragstat/ragstat/metric"
)

// CompareFormats lists the text formats RenderComparison writes.
var CompareFormats = []string{"table", "json", "csv", "markdown"}

// RenderComparison writes the comparison r in format.
func RenderComparison(w io.Writer, format string, r *compare.Result) error {
	switch format {
	case "table":
		return comparisonTable(w, r)
	case "json":
		return comparisonJSON(w, r)
	case "csv":
		return ComparisonCSV(w, r, false)
	case "markdown":
		return comparisonMarkdown(w, r)
	}
	return fmt.Errorf("unknown format %q: use %s", format, strings.Join(CompareFormats, ", "))
}

// ReadComparison reads back a comparison RenderComparison wrote as JSON, strictly: an unknown
// field, a value of the wrong type or a document without a compare
// manifest is an error naming the file.
func ReadComparison(f *input.File) (*compare.Result, error) {
	var r compare.Result
	if err := jsonin.DecodeResult(f.Name, f.ReadAll, eval.KindCompare, &r, func() string {
		if len(r.Candidates) == 0 || r.Manifest == nil {
			return ""
		}
		return r.Manifest.Kind
	}); err != nil {
		return nil, err
	}
	return &r, nil
}

// ComparisonSetup states what was compared and how, one line each,
// without the notes, for a renderer that shows them apart.
func ComparisonSetup(r *compare.Result) []string { return comparisonHead(r, false) }

// Beyond is what a comparison's head says that CSV's columns do not:
// the definitions, the notes and the gate's power, for a caller to show
// apart.
func Beyond(r *compare.Result) []string {
	h := comparisonHead(r, true)
	for i, l := range h {
		if strings.HasPrefix(l, "metrics: ") {
			return h[i+1:]
		}
	}
	return nil
}

// comparisonHead states what was compared and how, one line each, then
// (withNotes) the notes.
func comparisonHead(r *compare.Result, withNotes bool) []string {
	s := r.Settings
	out := []string{
		fmt.Sprintf("base %s vs %s over %d queries", r.Base, strings.Join(r.Candidates, ", "), len(r.Queries)),
		fmt.Sprintf("statistics: seed %d; %s %s bootstrap interval from %d resamples of whole queries; "+
			"sign-flip randomization p from %d sign vectors (exact up to %d queries); paired t-test; effect size d_z",
			s.Seed, Level(r), s.Interval, s.Resamples, s.Randomizations, s.ExactMax),
		fmt.Sprintf("correction: %s, over the %d whole-set comparisons, and separately over the slice comparisons; * significant at %s",
			s.Correction, len(r.Comparisons), Level(r)),
	}
	if m := r.Manifest; m != nil {
		out = append(out, "policy: "+m.Policy.String())
	}
	out = append(out, "metrics: "+strings.Join(r.Metrics, " "))
	out = append(out, comparisonDefinitions(r)...)
	if undefinedEffect(r) {
		out = append(out, "note: d_z is - (null in JSON) where it is undefined: every query of the set moved by the same amount, or the set has one query; t-test p is - with a single query")
	}
	if withNotes {
		for _, n := range r.Notes {
			out = append(out, "note: "+n)
		}
	}
	out = append(out, ppiLines(r)...)
	if r.Agreement != nil {
		out = append(out, (&LLMLabels{Agreement: r.Agreement}).Lines()...)
	}
	for _, g := range r.GatePower {
		out = append(out, gateLine(g, r.Settings.Level))
	}
	if r.Frontier != nil {
		out = append(out, FrontierLines(r.Frontier)...)
	}
	return out
}

// comparisonDefinitions names the definition each metric used, once per metric
// (a traced stage's "stage/nDCG@10" reads as nDCG@10).
func comparisonDefinitions(r *compare.Result) []string {
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
		out = append(out, "definition "+ms[0].Definition(p.MetricPolicy(), flagname.Flag))
	}
	return out
}

// undefinedEffect reports whether any comparison has no d_z.
func undefinedEffect(r *compare.Result) bool {
	for _, c := range r.Comparisons {
		if !finite(c.EffectSize) {
			return true
		}
	}
	for _, s := range r.Slices {
		for _, c := range s.Comparisons {
			if !finite(c.EffectSize) {
				return true
			}
		}
	}
	return false
}

// Level is a comparison's confidence level as a percentage, such as "95%".
func Level(r *compare.Result) string {
	return strconv.FormatFloat(100*r.Settings.Level, 'g', -1, 64) + "%"
}

// StatCells formats the numbers of s for people: base, cand, diff, interval,
// win/tie/loss, p, adjusted p with a star when significant, t-test p, d_z.
func StatCells(s *compare.Stat) []string {
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
	return []string{f4(s.BaseMean), f4(s.CandMean), signed(s.MeanDiff), intervalText(s),
		fmt.Sprintf("%d/%d/%d", s.Wins, s.Ties, s.Losses), fmt.Sprintf("%.4f", s.P), adj, tp, effect(s.EffectSize)}
}

// StatHeader names the columns of StatCells.
var StatHeader = []string{"base", "cand", "diff", "CI", "win/tie/loss", "p", "p adj", "t-test p", "d_z"}

// intervalText writes the bootstrap interval as [lo, hi].
func intervalText(s *compare.Stat) string {
	return "[" + signed(s.CILow) + ", " + signed(s.CIHigh) + "]"
}

func f4(v float64) string     { return strconv.FormatFloat(v, 'f', 4, 64) }
func signed(v float64) string { return fmt.Sprintf("%+.4f", v) }

// effect writes d_z, or "-" where it is undefined (every query moved by
// the same amount, or a single query): no output prints an infinity.
func effect(f compare.Float) string {
	if !finite(f) {
		return "-"
	}
	return fmt.Sprintf("%+.3g", float64(f))
}

// Ranks writes where the relevant items sit as grade@rank, in rank order,
// "-" for an item not returned: "1@2 3@7 2@-", at most n of them. The first
// is the first relevant item, the one reciprocal rank reads.
func Ranks(rk *compare.Ranking, n int) string {
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
func tested(r *compare.Result) int {
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
func tooSmallLine(r *compare.Result) string {
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

func comparisonTable(w io.Writer, r *compare.Result) error {
	for _, l := range comparisonHead(r, true) {
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
		row(append([]string{c.Candidate, c.Metric}, StatCells(&c.Stat)...)...)
	}
	if len(r.Slices) > 0 {
		fmt.Fprintf(tw, "\nslices (at least %d queries to be tested)\n", r.Settings.MinSlice)
		if tested(r) > 0 {
			row(append([]string{"slice", "n", "candidate", "metric"}, StatHeader...)...)
		}
		for _, s := range r.Slices {
			for _, c := range s.Comparisons {
				if !s.TooSmall {
					row(append([]string{s.Name, strconv.Itoa(s.N), c.Candidate, c.Metric}, StatCells(&c.Stat)...)...)
				}
			}
		}
		if l := tooSmallLine(r); l != "" {
			fmt.Fprintln(tw, l)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return comparisonExtremes(w, r)
}

// comparisonExtremes lists the largest moves of every candidate and metric.
func comparisonExtremes(w io.Writer, r *compare.Result) error {
	for _, x := range r.Extremes {
		for _, part := range []struct {
			what  string
			moved []compare.Moved
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
func movedCells(m compare.Moved, ranked bool) []string {
	if !ranked {
		return []string{m.Query, f4(m.Base), f4(m.Cand), signed(m.Diff), clip(m.Text, 60)}
	}
	return []string{m.Query, f4(m.Base), f4(m.Cand), signed(m.Diff), Ranks(m.BaseRanking, 5), Ranks(m.CandRanking, 5), clip(m.Text, 60)}
}

// shown passes each cell through idtext.Show, in place.
func shown(cells []string) []string {
	for i, c := range cells {
		cells[i] = idtext.Show(c)
	}
	return cells
}

// movedHeader names the columns of movedCells for moved.
func movedHeader(moved []compare.Moved) []string {
	if !ranked(moved) {
		return []string{"query", "base", "cand", "diff", "text"}
	}
	return []string{"query", "base", "cand", "diff", "base ranks", "cand ranks", "text"}
}

// ranked reports whether any moved query knows where its relevant items
// sit: a comparison of saved results or of traces' stages does not, and
// then the rank columns are left out rather than filled with "?".
func ranked(moved []compare.Moved) bool {
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

// ComparisonCSV writes one row per comparison, whole set (scope "all") then slices,
// that loads as it is: a header, nothing above it, and on every row the
// base and the settings (level, interval, resamples, randomizations, seed,
// correction) and the policy on one line, as eval.ParsePolicy reads it. The
// notes have no column. With comments, the head (settings, policy, notes)
// goes to "#" lines above the header instead, as before.
func ComparisonCSV(w io.Writer, r *compare.Result, comments bool) error {
	header := []string{"scope", "n", "too_small", "candidate", "metric", "base_mean", "cand_mean", "mean_diff",
		"ci_low", "ci_high", "wins", "ties", "losses", "p", "p_exact", "p_adjusted", "significant", "t_test_p", "effect_size"}
	var settings []string
	if comments {
		for _, l := range comparisonHead(r, true) {
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
	write := func(scope string, tooSmall bool, c compare.Comparison) {
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
func finiteOrEmpty(f compare.Float) string {
	if !finite(f) {
		return ""
	}
	return g(float64(f))
}

// comparisonMarkdown writes a comment fit for a pull request: alerts first, the
// whole-set table, then slices and the largest moves folded away.
func comparisonMarkdown(w io.Writer, r *compare.Result) error {
	fmt.Fprintf(w, "### ragstat compare: %s vs %s (%d queries)\n\n", idtext.Markdown(r.Base), idtext.Markdown(strings.Join(r.Candidates, ", ")), len(r.Queries))
	for _, a := range r.Alerts {
		fmt.Fprintf(w, "> [!WARNING]\n> %s\n\n", idtext.Markdown(a.Message))
	}
	mdTable(w, append([]string{"candidate", "metric"}, StatHeader...), func(row func(...string)) {
		for _, c := range r.Comparisons {
			row(append([]string{c.Candidate, c.Metric}, StatCells(&c.Stat)...)...)
		}
	})
	skip := map[string]bool{} // the frontier's lines, shown as its table
	if f := r.Frontier; f != nil {
		fmt.Fprintf(w, "\nQuality (mean %s), cost and p90 latency per system; * no other system beats it (see below):\n\n", f.Metric)
		mdTable(w, FrontierHeader, func(row func(...string)) {
			for _, s := range f.Systems {
				row(FrontierCells(s)...)
				skip[frontierLine(s)] = true
			}
		})
	}
	if len(r.Slices) > 0 {
		fmt.Fprintf(w, "\n<details><summary>Slices (%d)</summary>\n\n", len(r.Slices))
		if tested(r) > 0 {
			mdTable(w, append([]string{"slice", "n", "candidate", "metric"}, StatHeader...), func(row func(...string)) {
				for _, s := range r.Slices {
					for _, c := range s.Comparisons {
						if !s.TooSmall {
							row(append([]string{s.Name, strconv.Itoa(s.N), c.Candidate, c.Metric}, StatCells(&c.Stat)...)...)
						}
					}
				}
			})
		}
		if l := tooSmallLine(r); l != "" {
			fmt.Fprintf(w, "\n%s\n", l)
		}
		fmt.Fprintln(w, "\n</details>")
	}
	for _, x := range r.Extremes {
		if len(x.Regressions) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n<details><summary>Largest regressions: %s, %s</summary>\n\n", idtext.Markdown(x.Candidate), idtext.Markdown(x.Metric))
		mdTable(w, movedHeader(x.Regressions), func(row func(...string)) {
			for _, m := range x.Regressions {
				row(movedCells(m, ranked(x.Regressions))...)
			}
		})
		fmt.Fprintln(w, "\n</details>")
	}
	fmt.Fprintln(w)
	for _, l := range comparisonHead(r, true)[1:] {
		if !skip[l] {
			fmt.Fprintf(w, "<sub>%s</sub><br>\n", idtext.Markdown(l))
		}
	}
	return nil
}

// mdTable writes a Markdown table, each cell as idtext.Markdown writes it.
func mdTable(w io.Writer, header []string, rows func(row func(...string))) {
	line := func(cells ...string) {
		for i, c := range cells {
			cells[i] = idtext.Markdown(c)
		}
		fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
	}
	line(header...)
	fmt.Fprintln(w, "|"+strings.Repeat("---|", len(header)))
	rows(line)
}

// FrontierLines states the frontier: how each dimension is measured and what
// beats means, then one line per system.
func FrontierLines(f *compare.Frontier) []string {
	cost := "cost: not priced (give --price-in and --price-out with --tokenizer)"
	if f.Costed {
		cost = fmt.Sprintf("cost per query: each traced query's prompt and answer tokens (%s) at %g USD per 1M input and %g USD per 1M output tokens",
			f.Tokenizer, f.PriceIn, f.PriceOut)
	}
	dims := []string{"quality"}
	if f.Costed {
		dims = append(dims, "cost")
	}
	if f.Timed {
		dims = append(dims, "p90 latency")
	}
	out := []string{fmt.Sprintf("frontier: quality is the mean of %s over the %d compared queries; %s; p90 latency: nearest-rank 90th percentile of each traced query's summed stage and generation latency_ms; "+
		"a system beats another when it is at least as good on %s, and strictly better on one; * marks the systems no other system beats",
		f.Metric, f.Queries, cost, and(dims))}
	for _, s := range f.Systems {
		out = append(out, frontierLine(s))
	}
	return out
}

// frontierLine states one system's point and whether it is beaten.
func frontierLine(s compare.FrontierSystem) string {
	c := FrontierCells(s)
	cost, lat := "cost not priced", "no latency recorded"
	if s.CostPerQuery != nil {
		cost = fmt.Sprintf("cost %s USD per query (%d queries)", c[2], s.CostQueries)
	}
	if s.P90Latency != nil {
		lat = fmt.Sprintf("p90 latency %s ms (%d queries)", c[3], s.Timed)
	}
	verdict := "on the frontier *"
	if !s.OnFrontier {
		verdict = c[4]
	}
	return fmt.Sprintf("frontier %s: quality %s, %s, %s; %s", s.System, c[1], cost, lat, verdict)
}

// FrontierHeader names the columns of FrontierCells.
var FrontierHeader = []string{"system", "quality", "USD/query", "p90 ms", "frontier"}

// FrontierCells formats a system's point: name, quality, cost per query, p90
// latency ("-" where unknown) and "*" on the frontier, else who beats it.
func FrontierCells(s compare.FrontierSystem) []string {
	cost, lat := "-", "-"
	if s.CostPerQuery != nil {
		cost = fmt.Sprintf("%.6f", *s.CostPerQuery)
	}
	if s.P90Latency != nil {
		lat = fmt.Sprintf("%.1f", *s.P90Latency)
	}
	mark := "*"
	if !s.OnFrontier {
		mark = "beaten by " + strings.Join(s.BeatenBy, ", ")
	}
	quality := "-"
	if finite(s.Quality) {
		quality = f4(float64(s.Quality))
	}
	return []string{s.System, quality, cost, lat, mark}
}

// and joins words as a sentence does: "a", "a and b", "a, b and c".
func and(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// gateLine says what the gate can and cannot see.
func gateLine(g compare.GatePower, level float64) string {
	who := g.Candidate + where(g.Slice)
	if g.MDE == nil {
		return fmt.Sprintf("gate %q on %s: %d queries cannot resolve any difference", g.Rule, who, g.Queries)
	}
	verdict := "it can catch that"
	if !g.Protects {
		verdict = fmt.Sprintf("a change of %.4f cannot be told from noise: the gate does not protect the release", math.Abs(g.Threshold))
	}
	return fmt.Sprintf("gate %q on %s: %d queries resolve differences of %.4f (%g%% confidence, %g%% power); %s",
		g.Rule, who, g.Queries, *g.MDE, level*100, g.Power*100, verdict)
}

// comparisonJSON writes r as encoding/json's Encoder indented by two
// spaces writes it, byte for byte, but streams the per-query parts (the
// query ids, their texts and every system's values) without reflection.
func comparisonJSON(w io.Writer, r *compare.Result) error {
	for _, byMetric := range r.Values {
		for _, values := range byMetric {
			if err := jsonenc.Finite(values); err != nil {
				return err
			}
		}
	}
	j := &jsonWriter{writer: newWriter(w), indent: true}
	j.open('{')
	err := j.members(r, map[string]func() error{
		"queries": func() error { j.strings(r.Queries); return nil },
		"text":    func() error { j.strings(r.Text); return nil },
		"values":  func() error { j.floatsBy(r.Values); return nil },
	})
	if err != nil {
		return err
	}
	j.close('}')
	j.WriteByte('\n')
	return j.Flush()
}

// finite reports whether f is a number: not NaN, not an infinity.
func finite(f compare.Float) bool { return !math.IsInf(float64(f), 0) && !math.IsNaN(float64(f)) }

// where names a slice in a line, or nothing for the whole set.
func where(slice string) string {
	if slice == "" {
		return ""
	}
	return " in slice " + slice
}

// ppiLines are the PPI++ differences for a table's reader.
func ppiLines(r *compare.Result) []string {
	if len(r.PPI) == 0 {
		return nil
	}
	d0 := r.PPI[0]
	out := []string{fmt.Sprintf("labels ppi: the gate reads these PPI++ mean differences (%s intervals; %d of the %d queries with LLM labels audited, %d without exact), not the LLM-filled statistics above",
		Level(r), d0.Audited, d0.Labelled, d0.N-d0.Labelled)}
	for _, d := range r.PPI {
		if d.Missing != "" {
			out = append(out, fmt.Sprintf("ppi %s %s%s: no estimate: %s", d.Candidate, d.Metric, where(d.Slice), d.Missing))
			continue
		}
		adj := "-"
		if d.PAdjusted != nil {
			adj = fmt.Sprintf("%.4g", *d.PAdjusted)
		}
		flat := ""
		if d.NoWidth {
			flat = " (PPI++ gave an interval of no width: the audited queries showed no disagreement, which does not show there is none in the others; the audit alone's estimate stands in)"
		}
		out = append(out, fmt.Sprintf("ppi %s %s%s: %+.4f %s, lambda %.2f, LLM-filled %+.4f, adjusted p %s%s",
			d.Candidate, d.Metric, where(d.Slice), d.Mean, d.Interval(), d.Lambda, d.Filled, adj, flat))
	}
	return out
}
