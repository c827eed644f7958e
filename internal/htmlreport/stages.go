package htmlreport

import (
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/report"
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
	Metrics   []string
	Rows      []stageRow
	Evidence  template.HTML
	FactChart template.HTML
	Lost      []stages.Lost
	LastStage int
}

type stagesView struct {
	page
	Systems []systemView
}

// Stages writes the HTML report of a `ragstat stages` result: for every
// system, the metrics of each stage, the waterfall of where relevant
// evidence and required facts stopped, every lost item, the packed
// context's budget, evidence validity and the answers.
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
	v := stagesView{page: p}
	for _, sys := range s.Result.Systems {
		v.Systems = append(v.Systems, systemOf(sys))
	}
	return pages.ExecuteTemplate(w, "stages.tmpl", v)
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
	return sv
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
func steps(ss []stages.Step) stages.Waterfall {
	w := stages.Waterfall{Steps: ss}
	for _, s := range ss {
		w.Total += s.Count
	}
	return w
}
