package fill

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/pool"
	"github.com/ragstat/ragstat/internal/idtext"
)

// maxListed is how many unparseable or failed pairs the report lists.
const maxListed = 20

// Report is what a fill did, for people.
type Report struct {
	Pool     *pool.Result
	Pairs    int // holes to grade
	Template Template
	Model    string
	// Temperature and Seed are the settings sent (nil: not sent).
	Temperature *float64
	Seed        *int64
	Notes       []string // where the answers came from
	Outcome     *Outcome
	Audit       *Drawn
	// Out is the judgments file written, AuditQueue the audit's queue;
	// BatchFile the Batch API input file, when the requests were written
	// instead of sent.
	Out, AuditQueue, BatchFile string
}

// Write writes the report, one "judge fill:" line a fact, the unparseable
// and failed pairs listed (the first 20 of each).
func (r *Report) Write(w io.Writer) error {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, "judge fill: "+format+"\n", args...) }
	for _, n := range r.Notes {
		line("%s", n)
	}
	line("prompt %s (sha256 %s), model %s, temperature %s, sampling seed %s", idtext.Show(r.Template.Name), r.Template.SHA256, idtext.Show(r.Model),
		orUnset(r.Temperature, func(t float64) string { return strconv.FormatFloat(t, 'g', -1, 64) }),
		orUnset(r.Seed, func(s int64) string { return strconv.FormatInt(s, 10) }))
	p := r.Pool
	line("%d systems over %d queries at depth %d: %d pairs to grade (%d already judged or labelled)", len(p.Systems), p.Queries, p.Depth, r.Pairs, p.AlreadyJudged)
	o := r.Outcome
	if r.BatchFile != "" {
		line("%d requests written to %s: send it as a Batch API job, then rerun with --read-batch OUTPUT", o.Batched, idtext.Show(r.BatchFile))
		_, err := io.WriteString(w, b.String())
		return err
	}
	line("%d pairs asked: %d labelled, %d unparseable (left holes), %d failed (left holes); %d answered by the endpoint, %d from the cache",
		r.Pairs, len(o.Labels), len(o.Unparseable), len(o.Failed), o.Sent, o.Cached)
	line("tokens: %d prompt, %d completion (those of cached answers included; they cost nothing now)", o.PromptTokens, o.OutputTokens)
	list := func(what string, ps []Problem) {
		for i, pr := range ps {
			if i == maxListed {
				line("%s: %d more", what, len(ps)-maxListed)
				break
			}
			line("%s: %s", what, idtext.Line(pr.Describe()))
		}
	}
	list("unparseable", o.Unparseable)
	list("failed", o.Failed)
	if a := r.Audit; a != nil {
		if a.Earlier > 0 {
			line("audit: the earlier draw of %d queries is replaced", a.Earlier)
		}
		shown := make([]string, len(a.Queries))
		for i, q := range a.Queries {
			shown[i] = idtext.Show(q)
		}
		line("audit: %d of the %d queries with LLM labels drawn uniformly at random (seed %d): %s", len(a.Queries), a.Of, a.Seed, strings.Join(shown, " "))
		line("audit: %d pairs of theirs for people to grade, blind -> %s", len(a.Queue), idtext.Show(r.AuditQueue))
	}
	if r.Out != "" {
		line("judgments and LLM labels -> %s", idtext.Show(r.Out))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func orUnset[T any](v *T, show func(T) string) string {
	if v == nil {
		return "none sent"
	}
	return show(*v)
}
