// Package htmlreport renders saved results as one self-contained HTML file that
// works offline: inline CSS, inline SVG charts drawn here, and a little
// vanilla JavaScript to sort and filter tables and pick a chart. For a
// comparison it shows the summary with intervals, the per-query difference
// chart, the base-vs-candidate scatter, the slice table and the largest
// regressions with both rankings side by side and grades marked, the
// power of each gate rule and, over traces, every system's quality against
// its cost and p90 latency with the frontier marked; for a stages result,
// every stage and analysis (calibration, redundancy per stage, evidence
// position against correct answers, stale reach, cost); for an evaluation,
// the means and every query's values. It formats what compare, stages and
// eval computed and computes no statistic itself.
package htmlreport

import (
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/idtext"
)

//go:embed assets
var assets embed.FS

// pages returns the templates, grades shaded on the default policy's
// scale, parsed at the first call: a command that renders no page pays
// nothing.
var pages = sync.OnceValue(func() *template.Template { return template.Must(pagesFor(eval.DefaultPolicy())) })

// pagesFor parses the templates with grades shaded on p's scale.
func pagesFor(p eval.Policy) (*template.Template, error) {
	return template.New("").Funcs(template.FuncMap{
		"id":     idtext.Show,
		"f4":     func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) },
		"rate":   report.Rate,
		"signed": func(v float64) string { return fmt.Sprintf("%+.4f", v) },
		"short":  func(s string) string { return s[:min(len(s), 16)] },
		"pct":    func(v float64) float64 { return 100 * v },
		"dict": func(kv ...any) map[string]any {
			m := map[string]any{}
			for i := 0; i+1 < len(kv); i += 2 {
				m[kv[i].(string)] = kv[i+1]
			}
			return m
		},
		"gradeClass": gradeClass(p),
		"level":      report.Level,
		"ranks":      report.Ranks,
		"isFact":     func(what string) bool { return strings.HasPrefix(what, "fact ") },
		"shown":      report.ShownLost,
		"overages":   report.Overages,
		"fits":       report.Fits,
	}).ParseFS(assets, "assets/*.tmpl")
}

// gradeClass shades an item by its grade on the policy's scale: g0 below
// the relevance threshold, then g1 to g3 spread over the relevant grades,
// the top grade always g3.
func gradeClass(p eval.Policy) func(compare.Item) string {
	return func(it compare.Item) string {
		switch {
		case !it.Judged:
			return "g-unjudged"
		case it.Grade < p.MinGrade:
			return "g0"
		case p.Scale.Max <= p.MinGrade:
			return "g3"
		}
		step := float64(min(it.Grade, p.Scale.Max)-p.MinGrade) * 2 / float64(p.Scale.Max-p.MinGrade)
		return "g" + strconv.Itoa(1+int(math.Round(step)))
	}
}

// page is what every page shows around its content.
type page struct {
	Title string
	Head  []string
	// LLM is what the LLM labels add (report.LLMLabels.Text): the PPI++
	// means and the agreement, aligned; "" when there are none.
	LLM      string
	Manifest *eval.Manifest
	CSS      template.CSS
	JS       template.JS
}

func newPage(title string, head []string, m *eval.Manifest) (page, error) {
	css, err := assets.ReadFile("assets/style.css")
	if err != nil {
		return page{}, err
	}
	js, err := assets.ReadFile("assets/script.js")
	return page{Title: title, Head: head, Manifest: m, CSS: template.CSS(css), JS: template.JS(js)}, err
}

// statRow is one line of a comparison table.
type statRow struct {
	Scope, Candidate, Metric string
	N                        int
	TooSmall, Bad            bool
	Cells                    []string
	CI                       template.HTML
}

// panel is the charts and largest moves of one candidate on one metric.
type panel struct {
	ID                        string
	Candidate, Metric         string
	Bars, Scatter             template.HTML
	Regressions, Improvements []compare.Moved
	// Shown is the panel the page opens on: the first whose queries moved.
	Shown bool
}

type compareView struct {
	page
	R        *compare.Result
	Header   []string
	Summary  []statRow
	Slices   []statRow
	Panels   []panel
	Losses   []lossView
	Frontier *frontierView
}

// frontierView is each traced system's quality beside its cost and p90
// latency, as a table and as plots.
type frontierView struct {
	Header []string
	Rows   [][]string
	Plots  []template.HTML
	Legend string
}

// lossView is one traced system's waterfalls.
type lossView struct {
	System          string
	Evidence, Facts template.HTML
}

// Saved renders the saved eval, stages or compare JSON result at path
// ("-": stdin), recognised by the kind its manifest declares, each read
// back strictly.
func Saved(w io.Writer, path string, stdin io.Reader) error {
	f, err := input.Open(path, stdin)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := f.ReadAll()
	if err != nil {
		return err
	}
	kind, err := report.KindOf(data)
	if err == nil && kind == "" {
		err = errors.New("no manifest: not a ragstat JSON result")
	}
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	switch kind {
	case eval.KindEval:
		saved, err := report.Read(f)
		if err != nil {
			return err
		}
		return Eval(w, saved)
	case eval.KindCompare:
		r, err := report.ReadComparison(f)
		if err != nil {
			return err
		}
		return Compare(w, r)
	case eval.KindStages:
		saved, err := report.ReadStages(f)
		if err != nil {
			return err
		}
		return Stages(w, saved)
	}
	return fmt.Errorf("%s: cannot render a %q result", f.Name, kind)
}

// Compare writes the HTML report of a comparison.
func Compare(w io.Writer, r *compare.Result) error {
	p, err := newPage("ragstat compare: "+idtext.Show(r.Base)+" vs "+names(r.Candidates), report.ComparisonSetup(r), r.Manifest)
	if err != nil {
		return err
	}
	v := compareView{page: p, R: r, Header: report.StatHeader}
	span := spanOf(r)
	for _, c := range r.Comparisons {
		v.Summary = append(v.Summary, row("all", len(r.Queries), false, c, span))
	}
	for _, s := range r.Slices {
		for _, c := range s.Comparisons {
			v.Slices = append(v.Slices, row(s.Name, s.N, s.TooSmall, c, span))
		}
	}
	shown := -1
	for i, x := range r.Extremes {
		moves := r.Moves(x.Candidate, x.Metric)
		label := x.Candidate + ", " + x.Metric
		v.Panels = append(v.Panels, panel{ID: "p" + strconv.Itoa(i), Candidate: x.Candidate, Metric: x.Metric,
			Bars: diffBars(moves, "per-query difference, "+label), Scatter: scatter(moves, "base vs candidate, "+label),
			Regressions: x.Regressions, Improvements: x.Improvements})
		if shown < 0 && slices.ContainsFunc(moves, func(m compare.Moved) bool { return m.Diff != 0 }) {
			shown = i
		}
	}
	if len(v.Panels) > 0 {
		v.Panels[max(shown, 0)].Shown = true
	}
	for _, l := range r.Losses {
		v.Losses = append(v.Losses, lossView{System: l.System,
			Evidence: waterfall(steps(l.Evidence), "where relevant evidence stopped, "+l.System),
			Facts:    waterfall(steps(l.Facts), "where required facts stopped, "+l.System)})
	}
	if f := r.Frontier; f != nil {
		fv := &frontierView{Header: report.FrontierHeader, Legend: report.FrontierLines(f)[0]}
		for _, s := range f.Systems {
			fv.Rows = append(fv.Rows, report.FrontierCells(s))
		}
		if f.Costed {
			fv.Plots = append(fv.Plots, frontierPlot(f, "cost per query", func(s compare.FrontierSystem) float64 { return *s.CostPerQuery }))
		}
		if f.Timed {
			fv.Plots = append(fv.Plots, frontierPlot(f, "p90 latency (ms)", func(s compare.FrontierSystem) float64 { return *s.P90Latency }))
		}
		v.Frontier = fv
	}
	t := pages()
	if r.Manifest != nil && r.Manifest.Policy.Validate() == nil {
		if t, err = pagesFor(r.Manifest.Policy); err != nil {
			return err
		}
	}
	return t.ExecuteTemplate(w, "compare.tmpl", v)
}

// names lists systems for a title: up to three, then how many more.
func names(systems []string) string {
	systems = slices.Clone(systems)
	for i, s := range systems {
		systems[i] = idtext.Show(s)
	}
	if len(systems) <= 3 {
		return strings.Join(systems, ", ")
	}
	return strings.Join(systems[:3], ", ") + fmt.Sprintf(" and %d more", len(systems)-3)
}

func row(scope string, n int, tooSmall bool, c compare.Comparison, span float64) statRow {
	return statRow{Scope: scope, N: n, Candidate: c.Candidate, Metric: c.Metric, TooSmall: tooSmall,
		Bad: !tooSmall && c.Regressed(), Cells: report.StatCells(&c.Stat), CI: interval(&c.Stat, span)}
}

// spanOf is the half-width of the shared interval scale: the largest
// interval end or mean difference (a BCa interval need not contain the
// mean), whole set and slices.
func spanOf(r *compare.Result) float64 {
	span := 1e-9
	grow := func(cs []compare.Comparison) {
		for _, c := range cs {
			span = max(span, math.Abs(c.CILow), math.Abs(c.CIHigh), math.Abs(c.MeanDiff))
		}
	}
	grow(r.Comparisons)
	for _, s := range r.Slices {
		grow(s.Comparisons)
	}
	return span
}

// evalRow is one query (or mean) of one run, formatted.
type evalRow struct {
	Run, Query string
	Cells      []string
}

type evalView struct {
	page
	Metrics []string
	Means   []evalRow
	Charts  []template.HTML
	Rows    []evalRow
}

// Eval writes the HTML report of a saved evaluation.
func Eval(w io.Writer, s *report.Saved) error {
	var head []string
	for _, f := range s.Policy.Fields() {
		head = append(head, f[0]+": "+f[1])
	}
	head = append(head, s.Notes...)
	p, err := newPage("ragstat eval", head, s.Manifest)
	if err != nil {
		return err
	}
	p.LLM = strings.TrimLeft(s.LLM.Text(), "\n")
	v := evalView{page: p, Metrics: s.Manifest.Metrics}
	var names []string
	for _, res := range s.Results {
		names = append(names, res.Name)
		v.Means = append(v.Means, evalRow{res.Name, "MEAN", cells(res.Mean, res.MeanHigh)})
		for _, q := range res.Rows {
			v.Rows = append(v.Rows, evalRow{res.Name, q.Query, cells(q.Values, q.High)})
		}
	}
	for m, name := range v.Metrics {
		means := make([]float64, len(s.Results))
		for i, res := range s.Results {
			means[i] = res.Mean[m]
		}
		v.Charts = append(v.Charts, meanBars(names, means, "mean "+name))
	}
	return pages().ExecuteTemplate(w, "eval.tmpl", v)
}

// cells formats values, or [low, high] pairs under the bounds policy.
func cells(low, high []float64) []string {
	out := make([]string, len(low))
	for i, v := range low {
		out[i] = report.Number(v)
		if high != nil {
			out[i] = "[" + out[i] + ", " + report.Number(high[i]) + "]"
		}
	}
	return out
}
