package htmlreport

import (
	"html/template"
	"io"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/audit"
)

type auditView struct {
	page
	R       *audit.Report
	Chart   template.HTML
	Queries []auditQuery
}

// auditQuery is one flagged query as the page shows it.
type auditQuery struct {
	ID, Text, Reasons string
	Flags             []audit.Flag
}

// Audit writes the HTML report of a test set's audit: the summary, the
// share each reason flags as bars, the slices, the resolution and every
// flagged query with all its reasons.
func Audit(w io.Writer, r *audit.Report) error {
	p, err := newPage("ragstat audit: "+r.Summary.Headline(), append([]string{r.Settings.Rules()}, r.Notes...), nil)
	if err != nil {
		return err
	}
	v := auditView{page: p, R: r}
	var names []string
	var shares []float64
	for _, c := range r.Summary.Reasons {
		names = append(names, c.Reason)
		shares = append(shares, c.Share)
	}
	v.Chart = meanBars(names, shares, "share of queries flagged, by reason")
	for i := range r.Queries {
		q := &r.Queries[i]
		if !q.Informative() {
			v.Queries = append(v.Queries, auditQuery{ID: q.ID, Text: q.Text, Reasons: q.Reasons(), Flags: q.Flags})
		}
	}
	return pages().ExecuteTemplate(w, "audit.tmpl", v)
}
