package htmlreport

import (
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/stages"
)

// stageRow is one stage's means.
type stageRow struct {
	Name, K, Facts, Length string
	Cells                  []string
}

// systemView is one system of a stages result.
type systemView struct {
	*stages.System
	Metrics     []string
	Rows        []stageRow
	Evidence    template.HTML
	FactChart   template.HTML
	Lost        []stages.Lost
	LastStage   int
	Calibration []calibrationView
	// Repeats charts each stage's share spent on repeats; Correct each
	// position bucket's share of correct answers (nil without analyses).
	Repeats, Correct template.HTML
}

// calibrationView is one stage's reliability table and diagram.
type calibrationView struct {
	stages.StageCalibration
	Summary string
	Diagram template.HTML
}

type stagesView struct {
	page
	Systems []systemView
}

// Stages writes the HTML report of a `ragstat stages` result: for every
// system, the metrics of each stage, the waterfall of where relevant
// evidence and required facts stopped, every lost item, the packed
// context's budget, evidence validity and the answers, and with analyses
// each scored stage's reliability diagram, the repeats of every stage,
// evidence position beside correct answers, stale items by reach and cost.
func Stages(w io.Writer, s *report.SavedStages) error {
	var head []string
	for _, f := range s.Policy.Fields() {
		head = append(head, f[0]+": "+f[1])
	}
	if s.Result.Tokenizer != "" {
		head = append(head, "tokenizer: "+s.Result.Tokenizer)
	}
	p, err := newPage("ragstat stages: "+strconv.Itoa(len(s.Result.Systems))+" system(s)", head, s.Manifest)
	if err != nil {
		return err
	}
	p.LLM = strings.TrimLeft(s.LLM.Text(), "\n")
	v := stagesView{page: p}
	for _, sys := range s.Result.Systems {
		v.Systems = append(v.Systems, systemOf(sys))
	}
	return pages().ExecuteTemplate(w, "stages.tmpl", v)
}

func systemOf(sys *stages.System) systemView {
	sv := systemView{System: sys, LastStage: len(sys.Stages) - 1,
		Evidence:  waterfall(sys.Loss, "where relevant evidence stopped, "+sys.Name),
		FactChart: waterfall(sys.FactLoss, "where required facts stopped, "+sys.Name)}
	for _, m := range sys.Stages[0].Eval.Metrics {
		sv.Metrics = append(sv.Metrics, m.Name())
	}
	for _, st := range sys.Stages {
		r := stageRow{Name: st.Name, K: "all", Facts: "-", Length: strconv.FormatFloat(st.MeanLength, 'f', 1, 64)}
		if st.K > 0 {
			r.K = strconv.Itoa(st.K)
		}
		if st.FactQueries > 0 {
			r.Facts = strconv.FormatFloat(st.FactCoverage, 'f', 4, 64)
		}
		for _, v := range st.Eval.Mean {
			r.Cells = append(r.Cells, report.Number(v))
		}
		sv.Rows = append(sv.Rows, r)
	}
	for _, l := range append(sys.Loss.Lost, sys.FactLoss.Lost...) {
		if l.Status != stages.StatusDelivered {
			sv.Lost = append(sv.Lost, l)
		}
	}
	if a := sys.Analyses; a != nil {
		for _, c := range a.Calibration {
			sv.Calibration = append(sv.Calibration, calibrationView{StageCalibration: c, Summary: calibrationSummary(c), Diagram: reliability(c)})
		}
		var names []string
		var shares []float64
		for _, r := range a.Redundancy.Stages {
			names, shares = append(names, r.Stage), append(shares, r.RepeatShare)
		}
		sv.Repeats = meanBars(names, shares, "share of each stage spent on repeats, "+sys.Name)
		names, shares = nil, nil
		for _, b := range append(a.Position.Buckets, a.Position.NoEvidence) {
			names = append(names, b.Bucket)
			if b.Queries == 0 {
				shares = append(shares, math.NaN()) // no graded query: no bar
			} else {
				shares = append(shares, b.Correct)
			}
		}
		sv.Correct = meanBars(names, shares, "share of answers correct by where the evidence sat, "+sys.Name)
	}
	return sv
}

// calibrationSummary states a stage's calibration error and threshold.
func calibrationSummary(c stages.StageCalibration) string {
	s := fmt.Sprintf("%d queries, %d judged items; expected calibration error ", c.Queries, c.Judged)
	if c.ECE != nil {
		s += strconv.FormatFloat(*c.ECE, 'f', 4, 64) + "."
	} else {
		s += "n/a (scores outside [0, 1])."
	}
	var target []string
	if c.TargetPrecision > 0 {
		target = append(target, fmt.Sprintf("precision %g", c.TargetPrecision))
	}
	if c.TargetRecall > 0 {
		target = append(target, fmt.Sprintf("recall %g", c.TargetRecall))
	}
	switch {
	case len(target) == 0:
	case c.Threshold == nil:
		s += " No score threshold keeps " + strings.Join(target, " and ") + "."
	default:
		s += fmt.Sprintf(" Score >= %g keeps %s (precision %.4f, recall %.4f) and leaves %d of %d queries empty.",
			*c.Threshold, strings.Join(target, " and "), c.Precision, c.Recall, c.EmptyQueries, c.Queries)
	}
	return s
}

// reliability draws one bar per score bin, as high as the bin's share of
// relevant items, with the bin's mean score as a tick when scores are
// probabilities (a calibrated stage's bars reach their ticks).
func reliability(c stages.StageCalibration) template.HTML {
	const w, h, pad = 480, 160, 20
	var b strings.Builder
	fmt.Fprintf(&b, `<svg viewBox="0 0 %d %d" role="img" aria-label="reliability diagram, stage %s">`, w, h+pad, escID(c.Stage))
	bw := float64(w) / float64(max(len(c.Bins), 1))
	for i, bin := range c.Bins {
		x := float64(i) * bw
		bh := bin.Relevant * h
		fmt.Fprintf(&b, `<rect class="pos" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%.4g to %.4g: %d items, %.4f relevant</title></rect>`,
			x+2, h-bh, bw-4, bh, bin.Low, bin.High, bin.Count, bin.Relevant)
		if c.ECE != nil && bin.Count > 0 {
			y := h - bin.MeanScore*h
			fmt.Fprintf(&b, `<line class="neg" x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke-width="2"><title>mean score %.4f</title></line>`, x+2, x+bw-2, y, y, bin.MeanScore)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" font-size="10">%.3g</text>`, x+2, h+pad-4, bin.Low)
	}
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// waterfall draws one horizontal bar per status, longest for the most
// pieces of evidence, delivered in green and losses in red.
func waterfall(w stages.Waterfall, label string) template.HTML {
	if w.Total == 0 {
		return ""
	}
	const rowH, labelW = 26.0, 300.0
	h := rowH*float64(len(w.Steps)) + 8
	var b strings.Builder
	svgOpen(&b, chartW, h, label)
	plot := chartW - labelW - 60
	for i, s := range w.Steps {
		y := 4 + rowH*float64(i)
		class := "neg"
		if s.Status == stages.StatusDelivered {
			class = "pos"
		}
		width := plot * float64(s.Count) / float64(w.Total)
		fmt.Fprintf(&b, `<text x="%g" y="%.1f" text-anchor="end">%s</text>`, labelW-8, y+rowH/2+4, template.HTMLEscapeString(s.Status))
		fmt.Fprintf(&b, `<rect class="%s" x="%g" y="%.1f" width="%.2f" height="%.1f"><title>%s: %d of %d</title></rect>`,
			class, labelW, y+3, width, rowH-6, template.HTMLEscapeString(s.Status), s.Count, w.Total)
		fmt.Fprintf(&b, `<text x="%.2f" y="%.1f">%d (%.0f%%)</text>`, labelW+width+6, y+rowH/2+4, s.Count, 100*float64(s.Count)/float64(w.Total))
	}
	b.WriteString("</svg>")
	return template.HTML(b.String())
}

// steps rebuilds a waterfall from its counts alone.
func steps(ss []compare.Step) stages.Waterfall {
	var w stages.Waterfall
	for _, s := range ss {
		w.Steps = append(w.Steps, stages.Step{Status: s.Status, Count: s.Count})
		w.Total += s.Count
	}
	return w
}
