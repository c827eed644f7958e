package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

func table(w io.Writer, r *Eval) error {
	for _, l := range r.policyLines() {
		fmt.Fprintf(w, "# %s\n", l)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "# note: %s\n", n)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	header := []string{"run", "query"}
	for _, m := range r.metrics() {
		header = append(header, r.label(m))
	}
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, x := range r.rows() {
		cells := []string{x.run, x.query}
		for i, m := range r.metrics() {
			cells = append(cells, r.cell(m, x.low, x.high, i, x.perQuery))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

func markdown(w io.Writer, r *Eval) error {
	fmt.Fprintln(w, "| run | query |", strings.Join(r.headers(), " | "), "|")
	fmt.Fprintln(w, "|---|---|"+strings.Repeat("---:|", len(r.metrics())))
	for _, x := range r.rows() {
		cells := []string{x.run, x.query}
		if !x.perQuery {
			cells[1] = "**MEAN**"
		}
		for i, m := range r.metrics() {
			cells = append(cells, r.cell(m, x.low, x.high, i, x.perQuery))
		}
		fmt.Fprintln(w, "|", strings.Join(cells, " | "), "|")
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Policy: "+strings.Join(r.policyLines(), "; ")+".")
	for _, n := range r.Notes {
		fmt.Fprintln(w, "\nNote: "+n)
	}
	return nil
}

func (r *Eval) headers() []string {
	var h []string
	for _, m := range r.metrics() {
		h = append(h, r.label(m))
	}
	return h
}

// delimited writes CSV or TSV: policy as comment lines, then a header and
// one row per query and per mean; under the bounds policy each metric has
// a _low and a _high column.
func delimited(w io.Writer, r *Eval, sep rune) error {
	for _, l := range r.policyLines() {
		fmt.Fprintf(w, "# %s\n", l)
	}
	cw := csv.NewWriter(w)
	cw.Comma = sep
	header := []string{"run", "query"}
	for _, m := range r.metrics() {
		if r.bounds() {
			header = append(header, m.Name()+"_low", m.Name()+"_high")
		} else {
			header = append(header, m.Name())
		}
	}
	cw.Write(header)
	for _, x := range r.rows() {
		cells := []string{x.run, x.query}
		for i, m := range r.metrics() {
			cells = append(cells, value(m, x.low[i], x.perQuery))
			if x.high != nil {
				cells = append(cells, value(m, x.high[i], x.perQuery))
			}
		}
		cw.Write(cells)
	}
	cw.Flush()
	return cw.Error()
}

// trec writes trec_eval's `measure<TAB>qid<TAB>value` rows: per query when
// asked, then "all" with the mean; each run starts with its runid row.
func trec(w io.Writer, r *Eval) error {
	for _, res := range r.Results {
		fmt.Fprintf(w, "%-22s\t%s\t%s\n", "runid", "all", res.Name)
		for _, x := range r.rows() {
			if x.run != res.Name {
				continue
			}
			qid := x.query
			if !x.perQuery {
				qid = "all"
			}
			for i, m := range r.metrics() {
				fmt.Fprintf(w, "%-22s\t%s\t%s\n", m.Name(), qid, value(m, x.low[i], x.perQuery))
				if x.high != nil {
					fmt.Fprintf(w, "%-22s\t%s\t%s\n", m.Name()+"_high", qid, value(m, x.high[i], x.perQuery))
				}
			}
		}
	}
	return nil
}
