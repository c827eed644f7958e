package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ragstat/ragstat/internal/idtext"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/stages"
)

// Stages is everything one `ragstat stages` prints.
type Stages struct {
	Tool     string
	Version  string
	Policy   eval.Policy
	Inputs   []Input
	Result   *stages.Result
	PerQuery bool
	// PerQueryOut names the file each trace's record was written to, if
	// any: a summary's listings point there for the rest.
	PerQueryOut string
	Notes       []string
	// Shard marks a partial result (stages --shard): recorded in the JSON
	// manifest for ragstat merge.
	Shard *eval.Shard
	// LLM is the PPI++ means and the LLM's agreement with people, when
	// the judgments hold LLM labels; nil otherwise.
	LLM *LLMLabels
}

// RenderStages writes r as a table, JSON or Markdown-free text.
func RenderStages(w io.Writer, format string, r *Stages) error {
	switch format {
	case "table":
		return stagesTable(w, r)
	case "json":
		return stagesJSON(w, r)
	}
	return fmt.Errorf("unknown format %q for stages: use table or json", format)
}

func (r *Stages) header() *Eval {
	var results []*eval.Result
	for _, s := range r.Result.Systems {
		if len(s.Stages) > 0 {
			results = append(results, s.Stages[0].Eval)
			break
		}
	}
	return &Eval{Policy: r.Policy, Results: results}
}

func cutoff(k int) string {
	if k == 0 {
		return "all"
	}
	return strconv.Itoa(k)
}

func stagesTable(w io.Writer, r *Stages) error {
	out := newWriter(w)
	w = out
	for _, l := range r.header().policyLines() {
		fmt.Fprintf(w, "# %s\n", l)
	}
	tok := r.Result.Tokenizer
	if tok == "" {
		tok = "none (token budgets not checked: give --tokenizer)"
	}
	fmt.Fprintf(w, "# tokenizer: %s\n", idtext.Line(tok))
	for _, n := range r.Notes {
		fmt.Fprintf(w, "# note: %s\n", idtext.Line(n))
	}
	for _, sys := range r.Result.Systems {
		fmt.Fprintf(w, "\n== system %s\n", idtext.Show(sys.Name))
		if sys.ContextOnly {
			fmt.Fprintf(w, "note: its traces record only the context stage: what retrieval found is not known, so evidence missing from the context is %q, never %q\n",
				stages.StatusNotInContext, stages.StatusNotRetrieved)
		}
		loudest(w, sys)
		if err := stageTable(out, sys, r.PerQuery); err != nil {
			return err
		}
		more := "--per-query lists them all"
		if sys.Summary && r.PerQueryOut != "" {
			more = "the per-query file lists them all"
		}
		waterfall(w, "Where relevant evidence stopped (relevant judgments of answerable queries)", sys.Loss, r.PerQuery, more)
		if sys.FactLoss.Total > 0 {
			waterfall(w, "Where required facts stopped", sys.FactLoss, r.PerQuery, more)
			factLines(w, sys, more)
		}
		contextLines(w, sys.Context)
		validityLines(w, sys.Validity)
		answerLines(w, sys.Answers)
		searchLines(w, sys.Search)
		turnLines(w, sys.Turns)
		latencyLines(w, sys)
		if sys.Analyses != nil {
			analysesLines(w, sys.Analyses)
		}
	}
	out.WriteString(r.LLM.Text())
	return out.Flush()
}

// loudest puts permission violations that reached the generator first.
func loudest(w io.Writer, sys *stages.System) {
	if n := sys.Validity.InContext; n > 0 {
		fmt.Fprintf(w, "!! PERMISSION VIOLATION: %d out-of-scope item(s) reached the generator in the packed context:\n", n)
		for _, v := range sys.Validity.OutOfScope {
			if v.Stage == "context" {
				fmt.Fprintf(w, "!!   query %s: item %s (scope %s, query scopes %s)\n", idtext.Show(v.Query), idtext.Show(v.Item), idtext.Show(v.Scope), idtext.Show(strings.Join(v.Scopes, ",")))
			}
		}
	}
}

// stageTable writes a row per stage (and per query and stage when asked),
// aligned, row by row.
func stageTable(w *writer, sys *stages.System, perQuery bool) error {
	ms := sys.Stages[0].Eval.Metrics
	facts := map[string]stages.QueryFacts{}
	for _, qf := range sys.Facts {
		facts[qf.Query] = qf
	}
	g := newGrid(w, 5+len(ms), 1)
	cells := func() {
		g.text("stage")
		g.text("k")
		g.text("query")
		for _, m := range ms {
			g.text(m.Name())
		}
		g.text("facts")
		g.text("mean_len")
		for si, s := range sys.Stages {
			k := cutoff(s.K)
			if perQuery {
				for _, row := range s.Eval.Rows {
					g.text(idtext.Show(s.Name))
					g.text(k)
					g.text(idtext.Show(row.Query))
					for i, m := range ms {
						g.value(m, row.Values[i], true)
					}
					covered := ""
					if qf, ok := facts[row.Query]; ok {
						covered = strconv.Itoa(qf.Supported[si]) + "/" + strconv.Itoa(qf.Facts)
					}
					g.text(covered)
					g.int(row.Returned)
				}
			}
			g.text(idtext.Show(s.Name))
			g.text(k)
			g.text("MEAN")
			for i, m := range ms {
				g.value(m, s.Eval.Mean[i], false)
			}
			if s.FactQueries > 0 {
				g.fixed(s.FactCoverage, 4)
			} else {
				g.text("-")
			}
			g.fixed(s.MeanLength, 1)
		}
	}
	cells()
	g.start()
	cells()
	return g.flush()
}

func waterfall(w io.Writer, title string, wf stages.Waterfall, perQuery bool, more string) {
	fmt.Fprintf(w, "\n%s: %d\n", title, wf.Total)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, s := range wf.Steps {
		fmt.Fprintf(tw, "  %s\t%d\t%s\n", s.Status, s.Count, bar(s.Count, wf.Total))
	}
	tw.Flush()
	limit := 20
	if perQuery {
		limit = len(wf.Lost)
	}
	shown := 0
	for _, l := range wf.Lost {
		if l.Status == stages.StatusDelivered || shown >= limit {
			continue
		}
		shown++
		reached := "-"
		if l.Reached != "" {
			reached = idtext.Show(l.Reached)
		}
		what := ShownLost(l)
		if l.Grade > 0 {
			what += fmt.Sprintf(" (grade %d)", l.Grade)
		}
		fmt.Fprintf(w, "  - query %s: %s: %s; last reached: %s\n", idtext.Show(l.Query), what, l.Status, reached)
	}
	if lost := wf.Total - delivered(wf); lost > shown {
		fmt.Fprintf(w, "  ... %d more (%s)\n", lost-shown, more)
	}
}

// ShownLost is what was lost as the text formats print it: the item id,
// or "fact " and the fact's id, each as ids are printed.
func ShownLost(l stages.Lost) string {
	if id, ok := strings.CutPrefix(l.What, "fact "); ok {
		return "fact " + idtext.Show(id)
	}
	return idtext.Show(l.What)
}

func delivered(wf stages.Waterfall) int {
	for _, s := range wf.Steps {
		if s.Status == stages.StatusDelivered {
			return s.Count
		}
	}
	return 0
}

// bar draws a proportion as a row of blocks, for the waterfall.
func bar(n, total int) string {
	if total == 0 {
		return ""
	}
	return strings.Repeat("#", (n*30+total-1)/total)
}

func factLines(w io.Writer, sys *stages.System, more string) {
	last := len(sys.Stages) - 1
	fmt.Fprintln(w, "\nRequired-fact coverage at the final stage (kept apart from recall):")
	for _, qf := range sys.Facts {
		line := fmt.Sprintf("  %s: %d/%d", idtext.Show(qf.Query), qf.Supported[last], qf.Facts)
		if len(qf.Missing) > 0 {
			missing := make([]string, len(qf.Missing))
			for i, f := range qf.Missing {
				missing[i] = idtext.Show(f)
			}
			line += "; missing: " + strings.Join(missing, ", ")
		}
		fmt.Fprintln(w, line)
	}
	if n := sys.FactLines - len(sys.Facts); sys.Summary && n > 0 {
		fmt.Fprintf(w, "  ... %d more (%s)\n", n, more)
	}
}

func contextLines(w io.Writer, c stages.ContextReport) {
	if c.Traces == 0 {
		return
	}
	fmt.Fprintf(w, "\nPacked context (%d queries):\n", c.Traces)
	if c.Counted {
		fmt.Fprintf(w, "  tokens (instructions + request + context + answer reserve): p50 %.0f, p90 %.0f, max %.0f\n", c.Tokens.P50, c.Tokens.P90, c.Tokens.Max)
		if c.NoText > 0 {
			fmt.Fprintf(w, "  %d context(s) carry no text: their items' texts were counted instead (separators and metadata unknown)\n", c.NoText)
		}
		if len(c.OverBudget) > 0 {
			fmt.Fprintf(w, "  OVER BUDGET: %s\n", strings.Join(Overages(c), "; "))
		} else {
			fmt.Fprintln(w, "  "+Fits(c))
		}
		reportedLines(w, c)
	} else {
		fmt.Fprintln(w, "  tokens not counted (no tokenizer given), so no budget is checked")
	}
	for _, l := range c.TruncatedAway {
		fmt.Fprintf(w, "  truncated away: query %s, item %s lost its answer-bearing span and counts as grade 0 in the context\n", idtext.Show(l.Query), idtext.Show(l.What))
	}
}

// Fits says how the counted contexts stand against their budgets when
// none is over: every one fits, or the budget is not recorded (for some
// or all of them).
func Fits(c stages.ContextReport) string {
	switch {
	case c.Budgeted == 0:
		return "budget not recorded (a trace's context stage records it as budget_tokens)"
	case c.Budgeted == c.Traces:
		return "every context fits its budget"
	}
	return fmt.Sprintf("the %d context(s) with a budget recorded fit it; budget not recorded for %d", c.Budgeted, c.Traces-c.Budgeted)
}

// Overages lists every query over its budget with its total, budget and
// overage ("refund: 9120 tokens, budget 8000, 1120 over"), in query order.
func Overages(c stages.ContextReport) []string {
	var out []string
	for _, b := range c.Budgets {
		if b.Over() {
			out = append(out, fmt.Sprintf("%s: %d tokens, budget %d, %d over", idtext.Show(b.Query), b.Total, b.Limit, b.Total-b.Limit))
		}
	}
	return out
}

// reportedLines sets ragstat's prompt counts beside those the generator
// reported, and lists every query where they disagree.
func reportedLines(w io.Writer, c stages.ContextReport) {
	var differ []string
	for _, b := range c.Budgets {
		if b.Reported != nil && *b.Reported != b.Prompt() {
			differ = append(differ, fmt.Sprintf("%s (counted %d, reported %d, %+d)", idtext.Show(b.Query), b.Prompt(), *b.Reported, *b.Reported-b.Prompt()))
		}
	}
	if c.Reported == 0 {
		return
	}
	fmt.Fprintf(w, "  prompt tokens reported by the generator: %d of %d agree with ragstat's count (chat templates add tokens ragstat cannot see)\n", c.Agree, c.Reported)
	for _, d := range differ {
		fmt.Fprintf(w, "  reported differs: query %s\n", d)
	}
}

func validityLines(w io.Writer, v stages.ValidityReport) {
	fmt.Fprintf(w, "\nEvidence validity: %d out-of-scope appearance(s) (%d in the context), %d stale, %d revision conflict(s)\n",
		len(v.OutOfScope), v.InContext, len(v.Stale), len(v.Conflicts))
	for _, x := range v.OutOfScope {
		fmt.Fprintf(w, "  out of scope: query %s, stage %s, item %s (scope %s; query scopes %s)\n", idtext.Show(x.Query), idtext.Show(x.Stage), idtext.Show(x.Item), idtext.Show(x.Scope), idtext.Show(strings.Join(x.Scopes, ",")))
	}
	for _, x := range v.Stale {
		fmt.Fprintf(w, "  stale: query %s (as of %s), stage %s, item %s valid %s..%s\n", idtext.Show(x.Query), idtext.Show(x.AsOf), idtext.Show(x.Stage), idtext.Show(x.Item), orDash(x.From), orDash(x.To))
	}
	for _, c := range v.Conflicts {
		fmt.Fprintf(w, "  conflict: query %s, document %s in revisions %s (items %s)\n", idtext.Show(c.Query), idtext.Show(c.Doc), idtext.Show(strings.Join(c.Revisions, ", ")), idtext.Show(strings.Join(c.Items, ", ")))
	}
}

// Rate writes a rate with four decimals, or "-" for a rate over nothing
// (nil).
func Rate(r *float64) string {
	if r == nil {
		return "-"
	}
	return strconv.FormatFloat(*r, 'f', 4, 64)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func answerLines(w io.Writer, a stages.AnswerReport) {
	fmt.Fprintf(w, "\nAnswers: %d answerable, %d unanswerable queries", a.Answerable, a.Unanswerable)
	if len(a.NoAnswer) > 0 {
		fmt.Fprintf(w, "; no answer recorded for %d: %s", len(a.NoAnswer), idtext.Show(strings.Join(a.NoAnswer, ", ")))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  abstention on unanswerable: %d (rate %s); false abstention on answerable: %d (rate %s)\n",
		a.Abstained, Rate(a.AbstentionRate), a.FalseAbstentions, Rate(a.FalseAbstentionRate))
	if len(a.NoAbstention) > 0 {
		fmt.Fprintf(w, "  abstention not recorded for %d (left out of both rates): %s\n", len(a.NoAbstention), idtext.Show(strings.Join(a.NoAbstention, ", ")))
	}
	facts := Rate(a.FactsCited)
	if a.FactsCited == nil {
		facts += " (no answered query has required facts)"
	}
	fmt.Fprintf(w, "  citations: %d, supported %d (%s), facts cited %s\n", a.Cited, a.Supported, Rate(a.CitationSupport), facts)
	if n := a.Nuggets; n != nil {
		answers := "answers"
		if n.Answers == 1 {
			answers = "answer"
		}
		fmt.Fprintf(w, "  nugget scores over %d %s: strict vital %.4f, vital %.4f, strict all %.4f, all %.4f\n", n.Answers, answers, n.StrictVital, n.Vital, n.StrictAll, n.All)
	}
	for _, c := range a.NotShown {
		fmt.Fprintf(w, "  cited but not in the context: query %s, item %s\n", idtext.Show(c.Query), idtext.Show(c.Item))
	}
	if a.Graded > 0 {
		fmt.Fprintf(w, "  correctness over %d answers with references: exact match %.4f, token F1 %.4f\n", a.Graded, a.ExactMatch, a.F1)
	}
}

func latencyLines(w io.Writer, sys *stages.System) {
	if len(sys.Latency) == 0 {
		return
	}
	fmt.Fprintln(w, "\nLatency (ms):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  stage\tn\tp50\tp90\tp99\tmax")
	for _, p := range sys.Latency {
		fmt.Fprintf(tw, "  %s\t%d\t%.1f\t%.1f\t%.1f\t%.1f\n", idtext.Show(p.Name), p.N, p.P50, p.P90, p.P99, p.Max)
	}
	tw.Flush()
}

type stagesDoc struct {
	Tool    string        `json:"tool"`
	Version string        `json:"version"`
	Kind    string        `json:"kind"`
	Policy  jsonPolicy    `json:"policy"`
	Inputs  []Input       `json:"inputs"`
	Result  *stagesResult `json:"result"`
	LLMLabels
	Notes    []string       `json:"notes,omitempty"`
	Manifest *eval.Manifest `json:"manifest"`
}

type stagesResult struct {
	Tokenizer string      `json:"tokenizer,omitempty"`
	Systems   []stagesSys `json:"systems"`
}

type stagesSys struct {
	*stages.System
	Stages []stageJSON `json:"stages"`
}

type stageJSON struct {
	*stages.StageResult
	Run jsonRun `json:"eval"`
}

// stageHead is a stage's object before its evaluation, which is streamed.
type stageHead struct {
	*stages.StageResult
	Eval *jsonRun `json:"eval"`
}

// stagesJSON writes the document: each system's reports with
// encoding/json, and each stage's evaluation with its per-query rows
// streamed as they are formatted.
func stagesJSON(w io.Writer, r *Stages) error {
	h := r.header()
	jm := h.jsonMetrics()
	j, head, err := startDoc(w, r.Tool, r.Version, eval.KindStages, h.jsonPolicy(), r.Inputs, r.manifest(), r.LLM)
	if err != nil {
		return err
	}
	j.key(`"result":`)
	j.open('{')
	if r.Result.Tokenizer != "" {
		j.key(`"tokenizer":`)
		j.string(r.Result.Tokenizer)
	}
	j.key(`"systems":`)
	if err := j.list(len(r.Result.Systems), func(i int) error { return j.system(jm, r.Result.Systems[i]) }); err != nil {
		return err
	}
	j.close('}')
	return j.endDoc(r.LLM, r.Notes, head)
}

// system writes one system's object: its reports, then its stages, each
// stage's evaluation streamed.
func (j *jsonWriter) system(jm jsonMetrics, sys *stages.System) error {
	j.open('{')
	err := j.members(stagesSys{System: sys}, map[string]func() error{"stages": func() error {
		return j.list(len(sys.Stages), func(i int) error {
			j.open('{')
			err := j.members(stageHead{StageResult: sys.Stages[i]}, map[string]func() error{"eval": func() error {
				j.run(jm, sys.Stages[i].Eval)
				return nil
			}})
			j.close('}')
			return err
		})
	}})
	j.close('}')
	return err
}

// Saved is r as ReadStages reads it back from its JSON, for renderers of
// saved results (an HTML report made at once).
func (r *Stages) Saved() *SavedStages { return &SavedStages{Stages: r, Manifest: r.manifest()} }

// ManifestSHA256 is the SHA-256 of the manifest the JSON report records
// (its JSON encoding): what tells one evaluation from another.
func (r *Stages) ManifestSHA256() (string, error) {
	b, err := json.Marshal(r.manifest())
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// manifest records the inputs by digest, the policy, metrics and cutoffs,
// the tokenizer, each system's configuration and the query set.
func (r *Stages) manifest() *eval.Manifest {
	m := &eval.Manifest{Kind: eval.KindStages, Version: r.Version, Policy: r.Policy,
		Tokenizer: r.Result.Tokenizer}
	for _, in := range r.Inputs {
		f := eval.FileRecord{Role: in.Role, Path: in.Path, SHA256: in.SHA256}
		switch in.Role {
		case "judgments":
			m.Judgments = &f
		case "topics":
			m.Topics = &f
		case "corpus":
			m.Corpus = &f
		default:
			m.Inputs = append(m.Inputs, f)
		}
	}
	for i, sys := range r.Result.Systems {
		for _, s := range sys.Stages {
			for _, met := range s.Eval.Metrics {
				if i == 0 {
					m.Metrics = append(m.Metrics, s.Name+"@"+cutoff(s.K)+"/"+met.Name())
				}
			}
		}
		if len(sys.Configs) > 0 {
			if m.Configs == nil {
				m.Configs = map[string]json.RawMessage{}
			}
			m.Configs[sys.Name] = json.RawMessage(sys.Configs[0])
		}
	}
	if len(r.Result.Systems) > 0 && len(r.Result.Systems[0].Stages) > 0 {
		m.Queries = eval.DigestQueries(queryIDs(r.Result.Systems[0].Stages[0].Eval))
	}
	if r.Shard != nil {
		sh := *r.Shard
		sh.Values = eval.DigestResults(StageResults(r.Result))
		m.Shard = &sh
	}
	return m
}

// StageResults lists every stage's evaluation of every system, in order:
// what a partial result's values digest covers.
func StageResults(r *stages.Result) []*eval.Result {
	var out []*eval.Result
	for _, sys := range r.Systems {
		for _, st := range sys.Stages {
			out = append(out, st.Eval)
		}
	}
	return out
}

// StagesRecords writes each trace's record (stages.QueryRecord) to w as
// one JSON object a line, as stages hands them over.
func StagesRecords(w io.Writer) func(*stages.QueryRecord) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return func(r *stages.QueryRecord) error { return enc.Encode(r) }
}

// searchLines writes every search step of several calls: call by call,
// what it added and the recall of the union so far, then the union
// against the context and the citations.
func searchLines(w io.Writer, steps []stages.SearchStep) {
	if len(steps) == 0 {
		return
	}
	fmt.Fprintf(w, "\nSearch steps (calls of one search, not stages):\n")
	for _, s := range steps {
		fmt.Fprintf(w, "  query %s, %s: %d calls, %d relevant judged\n", idtext.Show(s.Query), idtext.Show(s.Stage), len(s.Calls), s.Relevant)
		for i, c := range s.Calls {
			recall := "-"
			if c.Recall != nil {
				recall = strconv.FormatFloat(*c.Recall, 'f', 4, 64)
			}
			q := ""
			if c.Query != "" {
				q = " " + strconv.Quote(c.Query)
			}
			fmt.Fprintf(w, "    call %d%s: %d items, %d new (%d relevant), %d duplicates; recall so far %s\n",
				i+1, q, c.Items, c.New, c.NewRelevant, c.Duplicates, recall)
		}
		first := "none relevant"
		if s.FirstRelevant > 0 {
			first = fmt.Sprintf("first relevant at call %d", s.FirstRelevant)
		}
		fmt.Fprintf(w, "    %s; union %d items (%d duplicate returns), %d relevant; in the context %d (%d relevant); cited %d (%d relevant)\n",
			first, s.Union, s.Duplicates, s.UnionRelevant, s.InContext, s.RelevantInContext, s.Cited, s.RelevantCited)
	}
}

// turnLines writes each stage's means by conversation turn.
func turnLines(w io.Writer, turns []stages.TurnSlice) {
	if len(turns) == 0 {
		return
	}
	fmt.Fprintf(w, "\nBy conversation turn (each stage's means over the turn's scored traces):\n")
	for _, t := range turns {
		fmt.Fprintf(w, "  turn %d: %d traces, %d scored\n", t.Turn, t.Traces, t.Scored)
		if t.Scored == 0 {
			continue
		}
		for _, st := range t.Stages {
			var parts []string
			for _, v := range st.Values {
				mean := "-"
				if v.Value != nil {
					mean = strconv.FormatFloat(*v.Value, 'f', 4, 64)
				}
				parts = append(parts, v.Metric+" "+mean)
			}
			fmt.Fprintf(w, "    %s: %s\n", idtext.Show(st.Name), strings.Join(parts, ", "))
		}
	}
}
