package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ragstat/ragstat/internal/idtext"

	"github.com/ragstat/ragstat/intervene"
)

// Intervention is everything one `ragstat intervene` prints.
type Intervention struct {
	Tool    string
	Version string
	Inputs  []Input
	Result  *intervene.Result
	Notes   []string
}

// InterventionFormats lists the names RenderIntervention accepts.
var InterventionFormats = []string{"table", "json", "markdown"}

// RenderIntervention writes r in format.
func RenderIntervention(w io.Writer, format string, r *Intervention) error {
	switch format {
	case "table":
		return interventionText(w, r, false)
	case "markdown":
		return interventionText(w, r, true)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Tool    string            `json:"tool"`
			Version string            `json:"version,omitempty"`
			Inputs  []Input           `json:"inputs,omitempty"`
			Notes   []string          `json:"notes,omitempty"`
			Result  *intervene.Result `json:"intervention"`
		}{r.Tool, r.Version, r.Inputs, r.Notes, r.Result})
	}
	return fmt.Errorf("unknown format %q for intervene: use %s", format, strings.Join(InterventionFormats, ", "))
}

// verdictOrder is the order verdicts are counted in.
var verdictOrder = []intervene.Verdict{intervene.ContextContributed, intervene.NotTheContext,
	intervene.EvidenceInsufficient, intervene.OriginalPasses, intervene.NotRun}

func interventionText(w io.Writer, r *Intervention, md bool) error {
	res := r.Result
	pass := "exact match with a reference"
	if res.PassF1 > 0 {
		pass = "token F1 >= " + strconv.FormatFloat(res.PassF1, 'f', -1, 64) + " with a reference"
	}
	abstain := "not recorded (no pattern)"
	if res.Abstain != "" {
		abstain = res.Abstain
	}
	head := []string{
		"queries: " + res.Chosen,
		"tokenizer: " + res.Tokenizer,
		"min-grade: " + strconv.Itoa(res.MinGrade),
		"an answer passes on: " + pass + ", every required fact cited, no abstention",
		"citation pattern: " + res.Citation,
		"abstention: " + abstain,
	}
	head = append(head, r.Notes...)
	prefix, rowStart, sep, rowEnd := "# ", "", "\t", "\n"
	if md {
		prefix, rowStart, sep, rowEnd = "- ", "| ", " | ", " |\n"
	}
	// id shows an id and text a line naming ids (a message, a note) by
	// the rule for ids, in the format's way.
	id, text := idtext.Show, idtext.Line
	if md {
		id, text = idtext.Markdown, idtext.MarkdownLine
	}
	for _, l := range head {
		fmt.Fprintf(w, "%s%s\n", prefix, text(l))
	}
	if md {
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	out := tw
	row := func(cells ...string) {
		fmt.Fprint(out, rowStart+strings.Join(cells, sep)+rowEnd)
	}
	cols := []string{"system", "query", "verified items", "original", "verified", "tokens orig→verified", "verdict"}
	row(cols...)
	if md {
		row(slices.Repeat([]string{"---"}, len(cols))...)
	}
	for _, c := range res.Cases {
		var items []string
		for _, it := range c.Verified.IDs() {
			items = append(items, id(it))
		}
		row(id(c.System), id(c.Query), strings.Join(items, " "), armCell(c.Original), armCell(c.Fixed),
			tokens(c), string(c.Verdict))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	var counts []string
	for _, v := range verdictOrder {
		if n := res.Verdicts[v]; n > 0 {
			counts = append(counts, fmt.Sprintf("%s %d", v, n))
		}
	}
	if len(counts) == 0 {
		counts = []string{"no query intervened on"}
	}
	fmt.Fprintf(w, "%sverdicts: %s\n", prefix, strings.Join(counts, ", "))
	for _, c := range res.Cases {
		who := id(c.System) + "/" + id(c.Query)
		for _, m := range c.Verified.Missing {
			fmt.Fprintf(w, "%s%s: verified set lacks %s\n", prefix, who, text(m))
		}
		for _, a := range []struct {
			name string
			arm  intervene.Arm
		}{{"original", c.Original}, {"verified", c.Fixed}} {
			if a.arm.Error != "" {
				fmt.Fprintf(w, "%s%s: %s arm not run: %s\n", prefix, who, a.name, text(a.arm.Error))
			}
		}
		if c.Note != "" {
			fmt.Fprintf(w, "%s%s: %s\n", prefix, who, text(c.Note))
		}
		if c.Layout != "trace" {
			fmt.Fprintf(w, "%s%s: context layout %s\n", prefix, who, text(c.Layout))
		}
	}
	for _, s := range res.Skipped {
		who := id(s.Query)
		if s.System != "" {
			who = id(s.System) + "/" + who
		}
		fmt.Fprintf(w, "%sleft out %s: %s\n", prefix, who, text(s.Why))
	}
	return nil
}

// armCell is "PASS" or "fail", with EM/F1 and facts cited.
func armCell(a intervene.Arm) string {
	if a.Error != "" {
		return "not run"
	}
	if a.Answer == "" && !a.Pass {
		return "-"
	}
	s := "fail"
	if a.Pass {
		s = "PASS"
	}
	var parts []string
	if a.F1 != nil {
		parts = append(parts, "F1 "+strconv.FormatFloat(*a.F1, 'f', 2, 64))
	}
	if a.FactsCited != nil {
		parts = append(parts, "facts "+strconv.FormatFloat(*a.FactsCited, 'f', 2, 64))
	}
	if a.Abstained != nil && *a.Abstained {
		parts = append(parts, "abstained")
	}
	if len(parts) > 0 {
		s += " (" + strings.Join(parts, ", ") + ")"
	}
	return s
}

func tokens(c intervene.Case) string {
	s := strconv.Itoa(c.Original.Total) + "→" + strconv.Itoa(c.Fixed.Total)
	if c.Budget > 0 {
		s += " of " + strconv.Itoa(c.Budget)
	}
	if c.Fixed.OverBy > 0 {
		s += " OVER BUDGET by " + strconv.Itoa(c.Fixed.OverBy)
	}
	return s
}
