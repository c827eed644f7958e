package report

import (
	"errors"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ragstat/ragstat/internal/idtext"
	"github.com/ragstat/ragstat/metric"
)

// table writes the policy as comment lines, then one aligned row per
// query (when asked) and per mean.
func table(w io.Writer, r *Eval) error {
	out := newWriter(w)
	for _, l := range r.policyLines() {
		out.WriteString("# " + l + "\n")
	}
	for _, n := range r.Notes {
		out.WriteString("# note: " + idtext.Line(n) + "\n")
	}
	ms := r.metrics()
	g := newGrid(out, 2+len(ms), 1)
	cells := func() {
		g.text("run")
		g.text("query")
		for _, m := range ms {
			g.text(idtext.Show(r.label(m)))
		}
		for x := range r.rows() {
			g.text(idtext.Show(x.run))
			g.text(idtext.Show(x.query))
			for i, m := range ms {
				g.cell(m, x.low, x.high, i, x.perQuery)
			}
		}
	}
	cells()
	g.start()
	cells()
	if err := g.flush(); err != nil {
		return err
	}
	out.WriteString(r.LLM.Text())
	return out.Flush()
}

func markdown(w io.Writer, r *Eval) error {
	out := newWriter(w)
	out.WriteString("| run | query | " + strings.Join(r.headers(), " | ") + " |\n")
	out.WriteString("|---|---|" + strings.Repeat("---:|", len(r.metrics())) + "\n")
	for x := range r.rows() {
		out.WriteString("| ")
		out.WriteString(idtext.Markdown(x.run))
		out.WriteString(" | ")
		if x.perQuery {
			out.WriteString(idtext.Markdown(x.query))
		} else {
			out.WriteString("**MEAN**")
		}
		for i, m := range r.metrics() {
			out.WriteString(" | ")
			out.num = appendCell(out.num[:0], m, x.low, x.high, i, x.perQuery)
			out.Write(out.num)
		}
		out.WriteString(" |\n")
	}
	out.WriteString("\nPolicy: " + strings.Join(r.policyLines(), "; ") + ".\n")
	for _, n := range r.Notes {
		out.WriteString("\nNote: " + idtext.Markdown(n) + "\n")
	}
	if text := r.LLM.Text(); text != "" {
		out.WriteString("\n```" + text + "```\n")
	}
	return out.Flush()
}

func (r *Eval) headers() []string {
	var h []string
	for _, m := range r.metrics() {
		h = append(h, idtext.Markdown(r.label(m)))
	}
	return h
}

// delimited writes CSV or TSV that loads as it is: a header, then one row
// per query (scope "query") and per mean (scope "mean", query empty); under
// the bounds policy each metric has a _low and a _high column; the last
// column is the policy, as eval.ParsePolicy reads it. With CSVComments the
// policy goes to "#" lines above the header instead, and a mean is a query
// named MEAN. Fields are quoted as encoding/csv quotes them.
func delimited(w io.Writer, r *Eval, sep byte) error {
	out := newWriter(w)
	if r.CSVComments {
		for _, l := range r.policyLines() {
			out.WriteString("# " + l + "\n")
		}
	}
	out.WriteString("run")
	out.WriteByte(sep)
	if !r.CSVComments {
		out.WriteString("scope")
		out.WriteByte(sep)
	}
	out.WriteString("query")
	for _, m := range r.metrics() {
		out.WriteByte(sep)
		if r.bounds() {
			out.csvField(m.Name()+"_low", sep)
			out.WriteByte(sep)
			out.csvField(m.Name()+"_high", sep)
		} else {
			out.csvField(m.Name(), sep)
		}
	}
	policy := ""
	if !r.CSVComments {
		out.WriteByte(sep)
		out.WriteString("policy")
		policy = r.Policy.String()
	}
	out.WriteByte('\n')
	for x := range r.rows() {
		out.csvField(idtext.Cell(x.run), sep)
		out.WriteByte(sep)
		switch {
		case r.CSVComments:
			out.csvField(idtext.Cell(x.query), sep)
		case x.perQuery:
			out.WriteString("query")
			out.WriteByte(sep)
			out.csvField(idtext.Cell(x.query), sep)
		default:
			out.WriteString("mean")
			out.WriteByte(sep)
		}
		for i, m := range r.metrics() {
			// A number never needs quotes.
			out.WriteByte(sep)
			out.value(m, x.low[i], x.perQuery)
			if x.high != nil {
				out.WriteByte(sep)
				out.value(m, x.high[i], x.perQuery)
			}
		}
		if !r.CSVComments {
			out.WriteByte(sep)
			out.csvField(policy, sep)
		}
		out.WriteByte('\n')
	}
	return out.Flush()
}

// trec writes trec_eval's `measure<TAB>qid<TAB>value` rows: per query when
// asked, then "all" with the mean; each run starts with its runid row.
func trec(w io.Writer, r *Eval) error {
	if r.PerQuery {
		for _, res := range r.Results {
			for _, row := range res.Rows {
				if row.Query == "all" {
					return ErrQueryAll
				}
			}
		}
	}
	out := newWriter(w)
	// Each measure's name, padded as trec_eval pads it, with its tab.
	var names, highs []string
	for _, m := range r.metrics() {
		names = append(names, trecName(m.Name()))
		highs = append(highs, trecName(m.Name()+"_high"))
	}
	for _, res := range r.Results {
		out.WriteString(trecName("runid") + "all\t" + idtext.Show(res.Name) + "\n")
		// Runs are named uniquely; were two named alike, each would
		// list the rows of both.
		for _, same := range r.Results {
			if same.Name != res.Name {
				continue
			}
			for x := range r.resultRows(same) {
				qid := idtext.Show(x.query)
				if !x.perQuery {
					qid = "all"
				}
				for i, m := range r.metrics() {
					out.trecRow(names[i], qid, m, x.low[i], x.perQuery)
					if x.high != nil {
						out.trecRow(highs[i], qid, m, x.high[i], x.perQuery)
					}
				}
			}
		}
	}
	return out.Flush()
}

// ErrQueryAll is trec's format refusing a result with a query named "all",
// the name of its mean rows.
var ErrQueryAll = errors.New(`a query is named "all", which the trec format cannot tell from the mean: choose another format`)

// trecName is a measure's name padded to 22 characters, as fmt's %-22s
// pads it, and the tab after it.
func trecName(name string) string {
	if n := utf8.RuneCountInString(name); n < 22 {
		name += blanks[:22-n]
	}
	return name + "\t"
}

func (w *writer) trecRow(name, qid string, m metric.Metric, v float64, perQuery bool) {
	w.WriteString(name)
	w.WriteString(qid)
	w.WriteByte('\t')
	w.value(m, v, perQuery)
	w.WriteByte('\n')
}

// appendCell formats a value, or its [low, high] interval under the
// bounds policy.
func appendCell(dst []byte, m metric.Metric, low, high []float64, i int, perQuery bool) []byte {
	if high == nil {
		return appendValue(dst, m, low[i], perQuery)
	}
	dst = append(dst, '[')
	dst = appendValue(dst, m, low[i], perQuery)
	dst = append(dst, ", "...)
	dst = appendValue(dst, m, high[i], perQuery)
	return append(dst, ']')
}

// cellWidth is the length of appendCell's text.
func cellWidth(m metric.Metric, low, high []float64, i int, perQuery bool) int {
	if high == nil {
		return valueWidth(m, low[i], perQuery)
	}
	return valueWidth(m, low[i], perQuery) + valueWidth(m, high[i], perQuery) + 4
}
