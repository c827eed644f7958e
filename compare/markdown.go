package compare

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/internal/idtext"
)

// markdown writes a comment fit for a pull request: alerts first, the
// whole-set table, then slices and the largest moves folded away.
func markdown(w io.Writer, r *Result) error {
	fmt.Fprintf(w, "### ragstat compare: %s vs %s (%d queries)\n\n", idtext.Markdown(r.Base), idtext.Markdown(strings.Join(r.Candidates, ", ")), len(r.Queries))
	for _, a := range r.Alerts {
		fmt.Fprintf(w, "> [!WARNING]\n> %s\n\n", idtext.Markdown(a.Message))
	}
	mdTable(w, append([]string{"candidate", "metric"}, StatHeader...), func(row func(...string)) {
		for _, c := range r.Comparisons {
			row(append([]string{c.Candidate, c.Metric}, c.Cells()...)...)
		}
	})
	skip := map[string]bool{} // the frontier's lines, shown as its table
	if f := r.Frontier; f != nil {
		fmt.Fprintf(w, "\nQuality (mean %s), cost and p90 latency per system; * no other system beats it (see below):\n\n", f.Metric)
		mdTable(w, FrontierHeader, func(row func(...string)) {
			for _, s := range f.Systems {
				row(s.Cells()...)
				skip[s.Line()] = true
			}
		})
	}
	if len(r.Slices) > 0 {
		fmt.Fprintf(w, "\n<details><summary>Slices (%d)</summary>\n\n", len(r.Slices))
		mdTable(w, append([]string{"slice", "n", "candidate", "metric"}, StatHeader...), func(row func(...string)) {
			for _, s := range r.Slices {
				for _, c := range s.Comparisons {
					row(append([]string{s.label(), strconv.Itoa(s.N), c.Candidate, c.Metric}, c.Cells()...)...)
				}
			}
		})
		fmt.Fprintln(w, "\n</details>")
	}
	for _, x := range r.Extremes {
		if len(x.Regressions) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n<details><summary>Largest regressions: %s, %s</summary>\n\n", idtext.Markdown(x.Candidate), idtext.Markdown(x.Metric))
		mdTable(w, []string{"query", "base", "cand", "diff", "base ranks", "cand ranks", "text"}, func(row func(...string)) {
			for _, m := range x.Regressions {
				row(movedCells(m)...)
			}
		})
		fmt.Fprintln(w, "\n</details>")
	}
	fmt.Fprintln(w)
	for _, l := range r.Head()[1:] {
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
