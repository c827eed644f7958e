// Package audit tells, before any comparison is run on a test set, which
// of its queries carry information: a query is flagged when its text leaks
// its relevant passages' words (leakage), when lexical search and every
// system already answer it at rank 1 (trivial), when every system scores
// it at a metric's maximum or minimum (saturated), when the cutoff is not
// below what was searched (k too large), when it repeats an earlier query
// (duplicate), when its evidence is missing from the corpus (ungrounded),
// or when it is answerable but has no relevant judgment (no positives). A
// query flagged by nothing is informative; the summary counts them per
// slice and says what difference of each metric a paired test on them
// would detect, the gate power compare works out.
//
// Run takes what is in memory; package auditcmd reads the files the
// command line names and gates the report (Rule).
package audit

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode"

	"gonum.org/v1/gonum/stat"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/baseline"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/internal/analysis"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/idtext"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/runs"
	"github.com/ragstat/ragstat/stages"
	"github.com/ragstat/ragstat/topics"
)

// The reasons a query is flagged for, in the order they are reported.
const (
	Leakage     = "leakage"
	Trivial     = "trivial"
	Saturated   = "saturated"
	KTooLarge   = "k_too_large"
	Duplicate   = "duplicate"
	Ungrounded  = "ungrounded"
	NoPositives = "no_positives"
)

// Reasons lists every reason, in report order.
var Reasons = []string{Leakage, Trivial, Saturated, KTooLarge, Duplicate, Ungrounded, NoPositives}

// Options say when a query is flagged and how the summary is made.
type Options struct {
	// MaxOverlap is the share of a query's content words found in its
	// relevant passages at or above which it leaks them, in (0, 1].
	MaxOverlap float64
	// Shingle and Jaccard are the near-duplicate rule of the stages
	// analyses (analysis.Redundant): Jaccard of Shingle-word shingles.
	Shingle int
	Jaccard float64
	// Level is the confidence level of the resolution, in (0, 1).
	Level float64
	// SliceBy lists the topic fields the summary slices by
	// (topics.Set.Slices); empty: tag.
	SliceBy []string
}

// DefaultOptions are `ragstat audit`'s defaults: leakage at half the
// content words, the stages analyses' near-duplicate rule, 95%.
func DefaultOptions() Options {
	a := stages.DefaultAnalysisOptions()
	return Options{MaxOverlap: 0.5, Shingle: a.Shingle, Jaccard: a.Jaccard, Level: 0.95}
}

// Check refuses options out of range, naming the option.
func (o Options) Check() error {
	switch {
	case !(o.MaxOverlap > 0 && o.MaxOverlap <= 1):
		return &diag.OptionError{Option: "max_overlap", Value: fmt.Sprint(o.MaxOverlap), Msg: "must lie in (0, 1]"}
	case o.Shingle < 1:
		return &diag.OptionError{Option: "shingle", Value: fmt.Sprint(o.Shingle), Msg: "must be 1 or more words"}
	case !(o.Jaccard > 0 && o.Jaccard <= 1):
		return &diag.OptionError{Option: "jaccard", Value: fmt.Sprint(o.Jaccard), Msg: "must lie in (0, 1]"}
	case !(o.Level > 0 && o.Level < 1):
		return &diag.OptionError{Option: "level", Value: fmt.Sprint(o.Level), Msg: "must lie strictly between 0 and 1"}
	}
	return nil
}

// Set is the test set under audit.
type Set struct {
	Evaluator *eval.Evaluator // the judgments, the relevance threshold and the metrics
	Topics    *topics.Set     // required: every query audited is a topic
	Corpus    *corpus.Corpus  // nil: leakage's rank, trivial, ungrounded and the corpus cutoff are not checked
}

// System is one system's ranked lists.
type System struct {
	Name  string
	Lists map[string][]string // by query, items in rank order; a query absent has an empty list
	// Searched is, by query, how many candidates the pipeline searched
	// (a trace's first stage); nil or absent: unknown.
	Searched map[string]int
}

// Report is an audit.
type Report struct {
	Settings Settings `json:"settings"`
	Summary  Summary  `json:"summary"`
	Queries  []Query  `json:"queries"`
	Notes    []string `json:"notes"`
}

// Settings say what the audit read and by which rules it flagged.
type Settings struct {
	Metrics  []string `json:"metrics"`
	Cutoff   int      `json:"cutoff"` // the metrics' largest cutoff; 0: none has one
	MinGrade int      `json:"min_grade"`
	Systems  []string `json:"systems"`
	Passages int      `json:"passages"` // corpus items with text, ranked by BM25; 0: no baseline
	// Analysis is how content words are found (stop words, stemming).
	Analysis   string  `json:"analysis"`
	MaxOverlap float64 `json:"max_overlap"`
	Shingle    int     `json:"shingle"`
	Jaccard    float64 `json:"jaccard"`
	Level      float64 `json:"level"`
	Power      float64 `json:"power"`
}

// Query is one query's audit.
type Query struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	// Relevant counts its judgments at or above the threshold.
	Relevant int `json:"relevant"`
	// Terms counts its distinct content words; Overlap is the share of
	// them found in its relevant passages (nil: no relevant passage has
	// text).
	Terms   int      `json:"terms"`
	Overlap *float64 `json:"overlap"`
	// BM25Rank is the best rank of a relevant passage under the BM25
	// baseline over the corpus (0: not matched; nil: no baseline or no
	// relevant passage).
	BM25Rank *int   `json:"bm25_rank"`
	Flags    []Flag `json:"flags"`
}

// Flag is one reason a query is flagged, with the numbers behind it.
type Flag struct {
	Reason string `json:"reason"`
	Detail string `json:"detail"`
}

// Informative reports whether nothing flagged the query.
func (q *Query) Informative() bool { return len(q.Flags) == 0 }

// Has reports whether reason flagged the query.
func (q *Query) Has(reason string) bool {
	return slices.ContainsFunc(q.Flags, func(f Flag) bool { return f.Reason == reason })
}

// Summary is what the set can tell apart.
type Summary struct {
	Queries     int          `json:"queries"`
	Informative int          `json:"informative"`
	Reasons     []Count      `json:"reasons"`
	Slices      []SliceCount `json:"slices"`
	Resolution  []Resolution `json:"resolution"`
}

// Count is how many queries one reason flagged.
type Count struct {
	Reason  string  `json:"reason"`
	Queries int     `json:"queries"`
	Share   float64 `json:"share"`
}

// SliceCount is one slice's queries and how many are informative.
type SliceCount struct {
	Name        string `json:"name"`
	Queries     int    `json:"queries"`
	Informative int    `json:"informative"`
}

// Resolution is the smallest mean difference of a metric between the base
// (the first system) and a candidate that a paired t-test detects at the
// level and power (analysis.ResolveSD at analysis.TargetPower, as compare's gate power), on the whole set and on its
// informative queries.
type Resolution struct {
	Metric      string `json:"metric"`
	Base        string `json:"base"`
	Candidate   string `json:"candidate"`
	All         Power  `json:"all"`
	Informative Power  `json:"informative"`
}

// Power is the resolution of one set of queries.
type Power struct {
	Queries int      `json:"queries"`
	SD      *float64 `json:"sd"`  // of the paired differences; nil under two queries
	MDE     *float64 `json:"mde"` // nil under two queries
}

// Run audits the set against the systems (any number; the first is the
// base of the resolution).
func Run(set Set, systems []System, opt Options) (*Report, error) {
	if err := opt.Check(); err != nil {
		return nil, err
	}
	if set.Evaluator == nil || set.Topics == nil {
		return nil, &diag.OptionError{Msg: "an audit needs {judgments} and {topics}"}
	}
	// The near duplicates need only the topics' texts: they are found
	// while the index is built and the queries audited.
	type dups struct {
		of  map[string][]string
		err error
	}
	dupc := make(chan dups, 1)
	go func() {
		of, err := duplicates(set.Topics.Topics, opt)
		dupc <- dups{of, err}
	}()
	a := newAuditor(set, systems, opt)
	rep := &Report{Settings: a.settings(), Notes: a.notes()}
	rep.Queries = make([]Query, len(a.topics))
	values := make([][][]float64, len(systems)) // system, query, metric; nil: not judged
	for i := range values {
		values[i] = make([][]float64, len(a.topics))
	}
	errs := make([]error, len(a.topics))
	var wg sync.WaitGroup
	workers := max(1, runtime.GOMAXPROCS(0))
	for w := range workers {
		wg.Go(func() {
			s := a.scratch()
			for i := w; i < len(a.topics); i += workers {
				rep.Queries[i], errs[i] = a.query(s, a.topics[i], func(k int, v []float64) { values[k][i] = v })
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	d := <-dupc
	if d.err != nil {
		return nil, d.err
	}
	for i := range rep.Queries {
		if what, ok := d.of[rep.Queries[i].ID]; ok {
			rep.Queries[i].addFlag(Flag{Duplicate, strings.Join(what, "; ")})
		}
	}
	var err error
	rep.Summary, err = a.summary(rep.Queries, values)
	return rep, err
}

// auditor is what every query's audit reads.
type auditor struct {
	set      Set
	systems  []System
	opt      Options
	topics   []*topics.Topic
	minGrade int
	cutoff   int
	index    *baseline.Index // nil: no corpus text
	scopes   map[string]int  // corpus items by scope ("": visible to all)
	unjudged []string        // judged queries without a topic
}

func newAuditor(set Set, systems []System, opt Options) *auditor {
	a := &auditor{set: set, systems: systems, opt: opt, topics: set.Topics.Topics, minGrade: set.Evaluator.Policy().MinGrade}
	for _, m := range set.Evaluator.Metrics() {
		a.cutoff = max(a.cutoff, m.K)
	}
	if set.Corpus != nil {
		var docs []baseline.Doc
		a.scopes = map[string]int{}
		for _, it := range set.Corpus.Items {
			a.scopes[it.Scope]++
			if strings.TrimSpace(it.Text) != "" {
				docs = append(docs, baseline.Doc{ID: it.ID, Text: it.Text})
			}
		}
		if len(docs) > 0 {
			a.index = baseline.NewIndex(docs)
		}
	}
	for _, q := range set.Evaluator.Judgments().IDs() {
		if set.Topics.Get(q) == nil {
			a.unjudged = append(a.unjudged, q)
		}
	}
	return a
}

func (a *auditor) settings() Settings {
	s := Settings{Cutoff: a.cutoff, MinGrade: a.minGrade, Analysis: baseline.Analysis, MaxOverlap: a.opt.MaxOverlap,
		Shingle: a.opt.Shingle, Jaccard: a.opt.Jaccard, Level: a.opt.Level, Power: analysis.TargetPower, Metrics: []string{}, Systems: []string{}}
	for _, m := range a.set.Evaluator.Metrics() {
		s.Metrics = append(s.Metrics, m.Name())
	}
	for _, sys := range a.systems {
		s.Systems = append(s.Systems, sys.Name)
	}
	if a.index != nil {
		s.Passages = a.index.Len()
	}
	return s
}

func (a *auditor) notes() []string {
	notes := []string{}
	if n := len(a.unjudged); n > 0 {
		notes = append(notes, fmt.Sprintf("%d judged queries have no topic and are not audited: %s", n, listIDs(a.unjudged)))
	}
	if a.set.Corpus == nil {
		notes = append(notes, "no corpus: the BM25 rank of relevant passages, trivial, ungrounded and the corpus cutoff are not checked")
	} else if a.index == nil {
		notes = append(notes, "the corpus has no text: the BM25 rank of relevant passages and trivial are not checked")
	}
	if len(a.systems) == 0 {
		notes = append(notes, "no systems: saturated is not checked and no resolution is worked out")
	} else if len(a.systems) == 1 {
		notes = append(notes, "one system: a resolution needs a base and a candidate")
	}
	return notes
}

// scratch is one worker's: its analyzer and BM25 scorer.
type scratch struct {
	an     *baseline.Analyzer
	scorer *baseline.Scorer
	terms  []string
}

func (a *auditor) scratch() *scratch {
	s := &scratch{an: baseline.NewAnalyzer()}
	if a.index != nil {
		s.scorer = a.index.Scorer()
	}
	return s
}

// query audits one topic; value receives each system's metric values
// when the query is judged.
func (a *auditor) query(s *scratch, t *topics.Topic, value func(sys int, v []float64)) (Query, error) {
	q := Query{ID: t.ID, Text: t.Text, Flags: []Flag{}}
	jq := a.set.Evaluator.Judgments().Query(t.ID)
	invalid := a.invalid(t, jq)
	// relevant are the query's relevant judgments; valid those that are
	// acceptable evidence for it, which every score reads.
	var relevant, valid []string
	if jq != nil {
		for i := range jq.Len() {
			if jq.GradeAt(i) >= a.minGrade {
				relevant = append(relevant, jq.Key(i))
				if !invalid[jq.Key(i)] {
					valid = append(valid, jq.Key(i))
				}
			}
		}
	}
	q.Relevant = len(valid)
	isRelevant := func(item string) bool {
		g, ok := jq.Grade(item)
		return ok && g >= a.minGrade && !invalid[item]
	}
	a.leakage(s, &q, relevant)
	trivial := false
	if s.scorer != nil && len(valid) > 0 {
		best := s.scorer.BestRank(t.Text, valid)
		q.BM25Rank = &best
		trivial = best == 1
	}
	if q.Overlap != nil && *q.Overlap >= a.opt.MaxOverlap {
		rank := "no baseline"
		switch {
		case s.scorer != nil && len(valid) == 0:
			rank = "no relevant passage is evidence for it, so none is ranked"
		case q.BM25Rank != nil:
			rank = "best relevant passage at BM25 rank " + rankText(*q.BM25Rank)
		}
		q.Flags = append(q.Flags, Flag{Leakage, fmt.Sprintf("%.2f of its %d content words occur in its relevant passages (threshold %.2f); %s",
			*q.Overlap, q.Terms, a.opt.MaxOverlap, rank)})
	}
	if jq != nil && len(valid) > 0 {
		flags, err := a.scored(t, jq.ID, valid, invalid, isRelevant, trivial, value)
		if err != nil {
			return q, err
		}
		q.Flags = append(q.Flags, flags...)
	}
	if f, ok := a.kTooLarge(t); ok {
		q.Flags = append(q.Flags, f)
	}
	if f, ok := a.ungrounded(s, t, relevant); ok {
		q.Flags = append(q.Flags, f)
	}
	if t.Answerable && len(valid) == 0 {
		detail := "answerable, but no judgment reaches grade " + fmt.Sprint(a.minGrade)
		switch {
		case jq == nil:
			detail = "answerable, but not judged"
		case len(relevant) > 0:
			detail = fmt.Sprintf("answerable, but its %d relevant judgments are out of its scopes or not in effect at its as_of date", len(relevant))
		}
		q.Flags = append(q.Flags, Flag{NoPositives, detail})
	}
	return q, nil
}

func rankText(r int) string {
	if r == 0 {
		return "none (not matched)"
	}
	return fmt.Sprint(r)
}

// leakage sets the query's content words and the share of them found in
// its relevant passages (those with text, under the BM25 baseline's
// analysis).
func (a *auditor) leakage(s *scratch, q *Query, relevant []string) {
	if s.scorer == nil {
		s.terms = s.an.Terms(s.terms[:0], q.Text)
		q.Terms = len(distinct(s.terms))
		return
	}
	terms, found, indexed := s.scorer.Overlap(q.Text, relevant)
	q.Terms = terms
	if indexed && terms > 0 {
		share := float64(found) / float64(terms)
		q.Overlap = &share
	}
}

func distinct(words []string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words {
		m[w] = true
	}
	return m
}

// scored scores every system's list of the query and flags it trivial
// (BM25 and every system put a relevant passage first) or saturated
// (every system at a metric's maximum, or all at 0). The judgments in
// invalid are no evidence for the query, as stages and compare score
// traces: grade 0 where a list holds them, and out of the ideal ranking
// and every denominator.
func (a *auditor) scored(t *topics.Topic, id string, relevant []string, invalid map[string]bool, isRelevant func(string) bool, bm25First bool, value func(int, []float64)) ([]Flag, error) {
	ev := a.set.Evaluator
	ideal := slices.Clone(relevant)
	jq := ev.Judgments().Query(id)
	slices.SortStableFunc(ideal, func(x, y string) int {
		gx, _ := jq.Grade(x)
		gy, _ := jq.Grade(y)
		return cmp.Compare(gy, gx)
	})
	var without []int32 // the invalid judgments' grades
	for k := range jq.Len() {
		if invalid[jq.Key(k)] {
			without = append(without, int32(jq.GradeAt(k)))
		}
	}
	score := func(name string, list []string) (eval.Row, error) {
		row, err := ev.Score(name, &runs.Ranking{Query: id, Items: list})
		if err != nil || len(without) == 0 {
			return row, err
		}
		grades := make([]int32, len(list))
		for i, item := range list {
			switch g, ok := jq.Grade(item); {
			case !ok:
				grades[i] = metric.Unjudged // the unjudged policy decides, as Score did
			case !invalid[item]:
				grades[i] = int32(g)
			}
		}
		return ev.ScoreGrades(jq, grades, without), nil
	}
	best, err := score("ideal ranking", ideal)
	if err != nil {
		return nil, err
	}
	allFirst := true
	atMax := make([]bool, len(best.Values))
	atMin := make([]bool, len(best.Values))
	for m := range atMax {
		atMax[m], atMin[m] = true, true
	}
	for k, sys := range a.systems {
		list := sys.Lists[id]
		row, err := score(sys.Name, list)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sys.Name, err)
		}
		value(k, row.Values)
		allFirst = allFirst && len(list) > 0 && isRelevant(list[0])
		for m, v := range row.Values {
			atMax[m] = atMax[m] && math.Abs(v-best.Values[m]) <= 1e-9
			atMin[m] = atMin[m] && math.Abs(v) <= 1e-9
		}
	}
	var flags []Flag
	if bm25First && allFirst {
		detail := "BM25 ranks a relevant passage first"
		if n := len(a.systems); n > 0 {
			detail += fmt.Sprintf(", and so do all %d systems", n)
		}
		flags = append(flags, Flag{Trivial, detail})
	}
	if len(a.systems) > 0 {
		var parts []string
		for m, mt := range ev.Metrics() {
			switch {
			case atMax[m] && best.Values[m] > 0:
				parts = append(parts, fmt.Sprintf("%s at its maximum %.4f", mt.Name(), best.Values[m]))
			case atMin[m]:
				parts = append(parts, mt.Name()+" at 0")
			}
		}
		if len(parts) > 0 {
			flags = append(flags, Flag{Saturated, fmt.Sprintf("all %d systems score %s", len(a.systems), strings.Join(parts, ", "))})
		}
	}
	return flags, nil
}

// invalid lists the query's judged items that are not acceptable evidence
// for it, by the corpus: out of its scopes, or not in effect at its as_of
// date (the rule of stages, corpus.Meta.Validity). Without a corpus, or
// with items folded into documents, there are none.
func (a *auditor) invalid(t *topics.Topic, jq *judgments.Query) map[string]bool {
	if jq == nil || a.set.Corpus == nil || a.set.Evaluator.Policy().Unit != eval.UnitItem || len(t.Scopes) == 0 && t.AsOf.IsZero() {
		return nil
	}
	var out map[string]bool
	for k := range jq.Len() {
		it := a.set.Corpus.Get(jq.Key(k))
		if it == nil {
			continue
		}
		if outOfScope, stale := it.Meta.Validity(t.Scopes, t.AsOf.Time); outOfScope || stale {
			if out == nil {
				out = map[string]bool{}
			}
			out[jq.Key(k)] = true
		}
	}
	return out
}

// kTooLarge flags a cutoff at least the candidates a system searched or
// the corpus items the query may see.
func (a *auditor) kTooLarge(t *topics.Topic) (Flag, bool) {
	if a.cutoff == 0 {
		return Flag{}, false
	}
	var parts []string
	least, who := 0, ""
	for _, sys := range a.systems {
		if n, ok := sys.Searched[t.ID]; ok && (who == "" || n < least) {
			least, who = n, idtext.Show(sys.Name)
		}
	}
	if who != "" && a.cutoff >= least {
		parts = append(parts, fmt.Sprintf("%d candidates searched by %s", least, who))
	}
	if a.scopes != nil {
		visible := a.scopes[""]
		if len(t.Scopes) == 0 {
			visible = len(a.set.Corpus.Items)
		} else {
			seen := map[string]bool{"": true}
			for _, sc := range t.Scopes {
				if !seen[sc] {
					seen[sc] = true
					visible += a.scopes[sc]
				}
			}
		}
		if a.cutoff >= visible {
			parts = append(parts, fmt.Sprintf("%d corpus items visible to the query", visible))
		}
	}
	if len(parts) == 0 {
		return Flag{}, false
	}
	return Flag{KTooLarge, fmt.Sprintf("cutoff %d is not below %s", a.cutoff, strings.Join(parts, ", nor "))}, true
}

// ungrounded flags relevant passages and supporting items missing from
// the corpus, and facts whose text no supporting passage holds.
func (a *auditor) ungrounded(s *scratch, t *topics.Topic, relevant []string) (Flag, bool) {
	c := a.set.Corpus
	if c == nil {
		return Flag{}, false
	}
	var missing []string
	for _, id := range relevant {
		if c.Get(id) == nil {
			missing = append(missing, id)
		}
	}
	var parts []string
	if len(missing) > 0 {
		parts = append(parts, fmt.Sprintf("%d relevant passages missing from the corpus: %s", len(missing), listIDs(missing)))
	}
	for _, f := range t.Facts {
		var absent []string
		held, texts := false, 0
		want := normal(f.Text)
		for _, sup := range f.Support {
			for _, p := range sup {
				it := c.Get(p.Item)
				if it == nil {
					absent = append(absent, p.Item)
					continue
				}
				if it.HasText {
					texts++
					held = held || strings.Contains(normal(it.Text), want)
				}
			}
		}
		if len(absent) > 0 {
			parts = append(parts, fmt.Sprintf("fact %s: %d supporting items missing from the corpus: %s", idtext.Show(f.ID), len(absent), listIDs(absent)))
		}
		if want != "" && texts > 0 && !held {
			parts = append(parts, fmt.Sprintf("fact %s: its text occurs in none of its %d supporting passages", idtext.Show(f.ID), texts))
		}
	}
	if len(parts) == 0 {
		return Flag{}, false
	}
	return Flag{Ungrounded, strings.Join(parts, "; ")}, true
}

// normal is text in lower case, its words (letters and digits) joined by
// single spaces, for finding a fact in a passage.
func normal(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}), " ")
}

// duplicates says, for each topic whose text repeats an earlier topic's,
// exactly or nearly (analysis.Redundant, the stages analyses' rule), which
// earlier ones it repeats.
func duplicates(ts []*topics.Topic, opt Options) (map[string][]string, error) {
	ps := make([]analysis.Passage, len(ts))
	for i, t := range ts {
		ps[i] = analysis.Passage{ID: t.ID, Text: t.Text}
	}
	red, err := analysis.Redundant(ps, opt.Shingle, opt.Jaccard)
	if err != nil {
		return nil, err
	}
	of := map[string][]string{}
	for _, d := range red.Duplicates {
		if d.Exact {
			of[d.Second] = append(of[d.Second], "exact duplicate of "+idtext.Show(d.First))
		} else {
			of[d.Second] = append(of[d.Second], fmt.Sprintf("near duplicate of %s (Jaccard %.2f of %d-word shingles, threshold %g)", idtext.Show(d.First), d.Jaccard, opt.Shingle, opt.Jaccard))
		}
	}
	return of, nil
}

// addFlag adds f in the report order of reasons.
func (q *Query) addFlag(f Flag) {
	at := slices.Index(Reasons, f.Reason)
	k := len(q.Flags)
	for k > 0 && slices.Index(Reasons, q.Flags[k-1].Reason) > at {
		k--
	}
	q.Flags = slices.Insert(q.Flags, k, f)
}

// summary counts the flags and works out the resolution.
func (a *auditor) summary(qs []Query, values [][][]float64) (Summary, error) {
	s := Summary{Queries: len(qs), Reasons: []Count{}, Slices: []SliceCount{}, Resolution: []Resolution{}}
	counts := map[string]int{}
	ids := make([]string, len(qs))
	for i, q := range qs {
		ids[i] = q.ID
		if q.Informative() {
			s.Informative++
		}
		for _, f := range q.Flags {
			counts[f.Reason]++
		}
	}
	for _, r := range Reasons {
		c := Count{Reason: r, Queries: counts[r]}
		if len(qs) > 0 {
			c.Share = float64(c.Queries) / float64(len(qs))
		}
		s.Reasons = append(s.Reasons, c)
	}
	by := a.opt.SliceBy
	if len(by) == 0 {
		by = []string{"tag"}
	}
	sl, err := a.set.Topics.Slices(ids, by)
	if err != nil {
		return s, &diag.OptionError{Option: "slice_by", Err: err}
	}
	for _, x := range sl {
		c := SliceCount{Name: x.Name, Queries: len(x.Queries)}
		for _, i := range x.Queries {
			if qs[i].Informative() {
				c.Informative++
			}
		}
		s.Slices = append(s.Slices, c)
	}
	for m, mt := range a.set.Evaluator.Metrics() {
		for k := 1; k < len(a.systems); k++ {
			r := Resolution{Metric: mt.Name(), Base: a.systems[0].Name, Candidate: a.systems[k].Name}
			var all, informative []float64
			for i, q := range qs {
				base, cand := values[0][i], values[k][i]
				if base == nil || cand == nil {
					continue
				}
				d := cand[m] - base[m]
				all = append(all, d)
				if q.Informative() {
					informative = append(informative, d)
				}
			}
			if r.All, err = power(all, a.opt.Level); err != nil {
				return s, err
			}
			if r.Informative, err = power(informative, a.opt.Level); err != nil {
				return s, err
			}
			s.Resolution = append(s.Resolution, r)
		}
	}
	return s, nil
}

// power is the resolution of paired differences (analysis.ResolveSD at analysis.TargetPower, as compare's gate power).
func power(diffs []float64, level float64) (Power, error) {
	p := Power{Queries: len(diffs)}
	if len(diffs) < 2 {
		return p, nil
	}
	sd := stat.StdDev(diffs, nil)
	res, err := analysis.ResolveSD(len(diffs), sd, 1-level, analysis.TargetPower)
	if err != nil {
		return p, err
	}
	p.SD, p.MDE = &sd, &res.MDE
	return p, nil
}

// listIDs joins the first ten ids, each shown by the rule for ids
// (idtext.Show), and counts the rest.
func listIDs(ids []string) string {
	n := min(len(ids), 10)
	shown := make([]string, n)
	for i, id := range ids[:n] {
		shown[i] = idtext.Show(id)
	}
	if len(ids) > n {
		return strings.Join(shown, ", ") + fmt.Sprintf(" and %d more", len(ids)-n)
	}
	return strings.Join(shown, ", ")
}
