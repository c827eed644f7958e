package report

import (
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/internal/idtext"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/internal/diag"
)

// Notes are the facts printed with an evaluation's results: what a --like
// preset set (preset, as eval.Policy.SetLike returned it), what was left
// out, scored as zero or folded, and a summary that has no value. folded
// counts the judgments folded into their document under the doc unit; p is
// the policy the results were computed under.
func Notes(folded int, p eval.Policy, preset []string, results []*eval.Result) []string {
	out := PresetNotes(p.Like, preset)
	if n := folded; n > 0 {
		out = append(out, fmt.Sprintf("%d judgments folded into their document (grade = the highest)", n))
	}
	for _, r := range results {
		if len(r.Excluded) > 0 {
			out = append(out, fmt.Sprintf("%s: %d unanswerable queries excluded from the means (the abstention slice): %s", idtext.Show(r.Name), len(r.Excluded), list(r.Excluded)))
		}
		if len(r.ScoredUnanswerable) > 0 {
			out = append(out, fmt.Sprintf("%s: %d queries without a relevant judgment scored and kept in the means (unanswerable zero): %s", idtext.Show(r.Name), len(r.ScoredUnanswerable), list(r.ScoredUnanswerable)))
		}
		if len(r.Rows) == 0 {
			out = append(out, fmt.Sprintf("%s: no query was evaluated, so every summary is undefined (printed as - or null)", idtext.Show(r.Name)))
		}
		if r.Folded > 0 {
			out = append(out, fmt.Sprintf("%s: %d items folded into an earlier item of the same document", idtext.Show(r.Name), r.Folded))
		}
		if r.Unjudged > 0 {
			out = append(out, fmt.Sprintf("%s: %d returned items have no judgment (--unjudged %s)", idtext.Show(r.Name), r.Unjudged, p.Unjudged))
		}
	}
	return out
}

// PresetNotes tell what the preset of the tool like set (preset, as
// eval.Policy.SetLike returned it) in one note, "--like TOOL set: ...";
// none when it set nothing.
func PresetNotes(like string, preset []string) []string {
	if len(preset) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("--like %s set: %s", like, strings.Join(preset, "; "))}
}

// Warnings say, one a line, which queries were not evaluated or scored as
// empty lists under the queries policies judged, run and both, and which
// runs had no query to average over: the command line prints them on
// standard error.
func Warnings(results []*eval.Result) []string {
	var out []string
	for _, r := range results {
		if len(r.Rows) == 0 {
			out = append(out, fmt.Sprintf("%s: no query was evaluated: every mean is undefined", idtext.Show(r.Name)))
		}
		if len(r.Ignored) > 0 {
			out = append(out, fmt.Sprintf("%s: %d queries not evaluated (present on one side only): %s", idtext.Show(r.Name), len(r.Ignored), list(r.Ignored)))
		}
		missing := 0
		for _, row := range r.Rows {
			if row.Missing {
				missing++
			}
		}
		if missing > 0 {
			out = append(out, fmt.Sprintf("%s: %d judged queries absent from the run scored as empty lists", idtext.Show(r.Name), missing))
		}
	}
	return out
}

// list names ids, the first ten, each as idtext.Show prints it.
func list(ids []string) string {
	shown := make([]string, min(len(ids), 10))
	for i := range shown {
		shown[i] = idtext.Show(ids[i])
	}
	if len(ids) > 10 {
		return strings.Join(shown, ", ") + fmt.Sprintf(" and %d more", len(ids)-10)
	}
	return strings.Join(shown, ", ")
}

// Beside lists, one a line, what format leaves out of r, for standard
// error: the notes, as "note: ...", where it prints none (table, markdown and json print them);
// the definitions, in CSV and TSV without comments; the warnings.
func (r *Eval) Beside(format string) []string {
	var out []string
	if !printsNotes(format) {
		for _, n := range r.Notes {
			out = append(out, "note: "+n)
		}
	}
	if (format == "csv" || format == "tsv") && !r.CSVComments {
		out = append(out, r.Definitions()...)
	}
	if !printsNotes(format) {
		out = append(out, r.LLM.Lines()...)
	}
	return append(out, Warnings(r.Results)...)
}

// PerQueryMax is how many queries a result may have and still print a row
// each when neither rows nor a summary were asked for.
const PerQueryMax = 50

// CheckRows refuses rows per query and the means only at once:
// ChoosePerQuery's two choices exclude each other.
func CheckRows(perQuery, summary bool) error {
	if perQuery && summary {
		return &diag.OptionError{Msg: "{per_query} and {summary} exclude each other"}
	}
	return nil
}

// ChoosePerQuery sets r.PerQuery: rows when perQuery asks for them, none
// when summary does, else rows for at most PerQueryMax queries.
func (r *Eval) ChoosePerQuery(perQuery, summary bool) {
	r.PerQuery = perQuery || !summary && len(r.Results) > 0 && len(r.Results[0].Rows) <= PerQueryMax
}
