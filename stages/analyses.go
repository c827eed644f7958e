package stages

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/internal/analysis"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

// AnalysisOptions turn on the analyses of the evidence boundary.
type AnalysisOptions struct {
	Target analysis.Target // the score threshold's target
	Bins   int             // reliability-table bins
	// Shingle words per shingle and the Jaccard at or above which two
	// context passages are near duplicates.
	Shingle int
	Jaccard float64
	// Price per million input and output tokens; nil: no cost. Cost needs
	// a tokenizer.
	Price *analysis.Cost
	// PassF1 is the token F1 with a reference answer at which an answer
	// counts as correct beside evidence position; 0 asks for an exact
	// match (see topics.AnswerGrade.Correct).
	PassF1 float64
	// CostOnly computes the cost alone, a running sum, and leaves every
	// other analysis empty (compare's frontier needs nothing else).
	CostOnly bool
}

// DefaultAnalysisOptions are the analyses' defaults.
func DefaultAnalysisOptions() AnalysisOptions {
	return AnalysisOptions{Bins: 10, Shingle: 3, Jaccard: 0.8}
}

func (o AnalysisOptions) check(tok Tokenizer) error {
	if o.Bins < 1 {
		return fmt.Errorf("stages: %d calibration bins: give 1 or more", o.Bins)
	}
	if o.PassF1 < 0 || o.PassF1 > 1 || math.IsNaN(o.PassF1) {
		return fmt.Errorf("stages: a passing F1 of %g: give a value in [0, 1]", o.PassF1)
	}
	if o.Shingle < 1 || o.Jaccard <= 0 || o.Jaccard > 1 {
		return fmt.Errorf("stages: shingles of %d words at Jaccard %g: give 1 or more words and a threshold in (0, 1]", o.Shingle, o.Jaccard)
	}
	t := o.Target
	if t.Precision < 0 || t.Precision > 1 || t.Recall < 0 || t.Recall > 1 {
		return fmt.Errorf("stages: a target precision or recall lies in [0, 1]")
	}
	if o.Price != nil && (o.Price.Input < 0 || o.Price.Output < 0 || math.IsNaN(o.Price.Input) || math.IsNaN(o.Price.Output)) {
		return fmt.Errorf("stages: prices per token are 0 or more")
	}
	if o.Price != nil && tok == nil {
		return &diag.OptionError{Msg: "stages: a cost needs the generator's tokenizer: give {tokenizer} with the prices"}
	}
	return nil
}

// Analyses are one system's analyses of the evidence boundary.
type Analyses struct {
	// Calibration has one entry per stage whose items carry scores;
	// scores of different stages (and systems) are never pooled.
	Calibration []StageCalibration `json:"calibration"`
	Redundancy  RedundancyReport   `json:"redundancy"`
	Position    EvidencePosition   `json:"position"`
	Stale       []analysis.Reach   `json:"stale_reach"`
	Cost        *CostReport        `json:"cost,omitempty"`
}

// StageCalibration is one stage's reliability table over the answerable,
// judged queries, with relevance at the policy's minimum grade.
type StageCalibration struct {
	Stage   string           `json:"stage"`
	Queries int              `json:"queries"`
	Judged  int              `json:"judged_items"`
	Bins    []CalibrationBin `json:"bins"`
	// ECE is nil when a score lies outside [0, 1]: such scores are not
	// probabilities and have no calibration error.
	ECE *float64 `json:"ece"`
	// Target and the lowest score threshold that keeps it (nil: none
	// does, or no target), the precision and recall kept there, and the
	// queries whose whole list falls below it.
	TargetPrecision float64  `json:"target_precision,omitempty"`
	TargetRecall    float64  `json:"target_recall,omitempty"`
	Threshold       *float64 `json:"threshold"`
	Precision       float64  `json:"precision"`
	Recall          float64  `json:"recall"`
	EmptyQueries    int      `json:"empty_queries"`
}

// CalibrationBin is one row of a reliability table.
type CalibrationBin struct {
	Low       float64 `json:"low"`
	High      float64 `json:"high"`
	Count     int     `json:"count"`
	MeanScore float64 `json:"mean_score"`
	Relevant  float64 `json:"relevant"`
	MeanGrade float64 `json:"mean_grade"`
}

// RedundancyReport is how much each stage's lists repeat themselves: a
// passage repeated ten times covers a fact once.
type RedundancyReport struct {
	Shingle   int     `json:"shingle_words"`
	Threshold float64 `json:"jaccard_threshold"`
	Unit      string  `json:"unit"` // tokens (the tokenizer's) or words
	// Stages in pipeline order: candidates, reranked, the packed context.
	Stages []StageRedundancy `json:"stages"`
}

// StageRedundancy sums one stage's repeats over its lists (one a trace,
// at the stage's cutoff).
type StageRedundancy struct {
	Stage  string `json:"stage"`
	Lists  int    `json:"lists"`
	Items  int    `json:"items"`
	NoText int    `json:"items_without_text"` // no text in the trace or the corpus: compared with nothing
	// Exact and near-duplicate pairs, and lists with any.
	ExactPairs     int `json:"exact_pairs"`
	NearPairs      int `json:"near_pairs"`
	WithRepeats    int `json:"lists_with_repeats"`
	Tokens         int `json:"tokens"`
	RepeatTokens   int `json:"repeat_tokens"`
	RelevantItems  int `json:"relevant_items"`
	UniqueRelevant int `json:"unique_relevant"`
	// RepeatShare is RepeatTokens over Tokens: the share of the stage spent
	// on repeats; DocShare each document's share of all the stage's
	// tokens, largest first (at most 10), of Docs (items of no known
	// document pooled as NoDocument).
	RepeatShare float64          `json:"repeat_share"`
	Docs        int              `json:"documents"`
	DocShare    []analysis.Share `json:"document_share"`
}

// EvidencePosition is where relevant evidence sat in the packed contexts
// (the thirds of each context's tokens) and how often those queries were
// answered correctly; NoEvidence is the queries with a graded answer and
// no relevant passage in the context.
type EvidencePosition struct {
	// Rule states when an answer is correct (topics.AnswerGrade.Correct).
	Rule       string           `json:"correct_rule"`
	Buckets    []PositionBucket `json:"buckets"`
	NoEvidence PositionBucket   `json:"no_evidence"`
}

// PositionBucket is one third of the context.
type PositionBucket struct {
	Bucket   string  `json:"bucket"`
	Passages int     `json:"passages"`
	MeanRank float64 `json:"mean_rank"`
	// Queries with a graded answer (an answer or abstention recorded for
	// an answerable query with reference answers or required facts) and
	// evidence here; Correct their share answered correctly (see
	// EvidencePosition.Rule).
	Queries int     `json:"queries"`
	Correct float64 `json:"correct"`
	right   int
	ranks   int
}

// CostReport prices each query's prompt and answer.
type CostReport struct {
	PriceIn  float64 `json:"price_in_per_million"`
	PriceOut float64 `json:"price_out_per_million"`
	Queries  int     `json:"queries"`
	// Mean tokens per query of each part of the prompt and of the answer,
	// and their cost per query.
	Parts    []CostPart `json:"parts"`
	PerQuery float64    `json:"cost_per_query"`
	Total    float64    `json:"cost_total"`
}

// CostPart is one part of the generation request.
type CostPart struct {
	Part       string  `json:"part"`
	MeanTokens float64 `json:"mean_tokens"`
	PerQuery   float64 `json:"cost_per_query"`
}

// traceAnalyses is one trace's contribution to the analyses.
type traceAnalyses struct {
	lists      []*analysis.List // per stage; nil: no scores or not judged
	redundancy []stageRepeats   // per stage
	effects    []analysis.PositionEffect
	ranks      []int // summed per bucket
	correct    bool  // graded and answered correctly (topics.AnswerGrade.Correct)
	noEvidence bool  // graded, with no relevant passage in the context
	stale      map[string]*analysis.Reach
	parts      []int // instructions, request, context, answer tokens; nil: not counted
}

// stageRepeats is one list's contribution to its stage's redundancy.
type stageRepeats struct {
	analysis.Redundancy
	items, noText, relevant int
	docTokens               map[string]int
}

var costParts = []string{"instructions", "request", "context", "answer"}

// analyze computes one trace's contribution.
func (j *joiner) analyze(v *view, names []string, budget *Budget) (*traceAnalyses, error) {
	o := j.opt.Analyses
	a := &traceAnalyses{lists: make([]*analysis.List, len(names)), stale: map[string]*analysis.Reach{}}
	if o.CostOnly {
		a.parts = j.costParts(v, budget)
		return a, nil
	}
	scored := v.topic.Answerable && v.q != nil
	staleIDs := map[string]bool{}
	for i := range names {
		if scored {
			a.lists[i] = scoredList(v.t.Query, v.t.Stages[i].Items, v.stages[i])
		}
		for _, p := range v.stages[i] {
			if p.stale {
				staleIDs[p.id] = true
			}
		}
	}
	ans := v.t.Answer
	answered := ans != nil && (ans.Abstained == nil || !*ans.Abstained)
	if answered {
		for _, id := range ans.Citations {
			if staleIDs[id] {
				reach(a.stale, id).Answers++
			}
		}
	}
	ci := slices.Index(names, trace.ContextStage)
	var ps []analysis.Passage
	for i := range names {
		var items []int
		if i == ci && budget != nil {
			for _, it := range budget.Items {
				items = append(items, it.Tokens)
			}
		}
		stage, rep := j.passages(v, i, items)
		r, err := analysis.Redundant(stage, o.Shingle, o.Jaccard)
		if err != nil {
			return nil, err
		}
		rep.Redundancy = r
		a.redundancy = append(a.redundancy, rep)
		if i == ci {
			ps = stage
		}
	}
	if ci < 0 {
		return a, nil
	}
	for k, p := range v.stages[ci] {
		if p.stale && !slices.ContainsFunc(v.stages[ci][:k], func(q placed) bool { return q.id == p.id }) {
			reach(a.stale, p.id).Contexts++
		}
	}
	placements := analysis.Positions(v.t.Query, ps)
	correct := map[string]bool{}
	if ans != nil && v.topic.Answerable {
		abstained := ans.Abstained != nil && *ans.Abstained
		ok, graded := topics.GradeAnswer(v.topic, ans.Text, ans.Citations, abstained).Correct(o.PassF1)
		if graded {
			a.correct, a.noEvidence = ok, len(placements) == 0
			correct[v.t.Query] = ok
		}
	}
	a.effects = analysis.Effects(placements, correct)
	a.ranks = make([]int, len(analysis.Buckets))
	for _, pl := range placements {
		a.ranks[slices.Index(analysis.Buckets, pl.Bucket)] += pl.Rank
	}
	a.parts = j.costParts(v, budget)
	return a, nil
}

// costParts counts a trace's instructions, request, context and answer
// tokens when it is priced; nil when not, or without a packed context.
func (j *joiner) costParts(v *view, budget *Budget) []int {
	if j.opt.Analyses.Price == nil || budget == nil {
		return nil
	}
	out := 0
	if ans := v.t.Answer; ans != nil && (ans.Abstained == nil || !*ans.Abstained) {
		out = j.opt.Tokenizer.Count(ans.Text)
	}
	return []int{budget.Instructions, budget.Request, budget.Context, out}
}

// noDocument is the share of the items whose document is unknown (no doc
// in the trace or the corpus): pooled, so that the per-document sums stay
// bounded by the corpus's documents, not its items.
const noDocument = "(no document)"

// passages lays out stage i's list for the redundancy analysis: each
// item's text as packed (context) or as the trace or corpus has it, its
// size in the packed context's counted tokens (tokens, when given), else
// by the tokenizer, else in words, and whether it is valid relevant
// evidence.
func (j *joiner) passages(v *view, i int, tokens []int) ([]analysis.Passage, stageRepeats) {
	minGrade := int32(j.opt.Policy.MinGrade)
	rep := stageRepeats{docTokens: map[string]int{}}
	ps := make([]analysis.Passage, len(v.stages[i]))
	for k, p := range v.stages[i] {
		text, has := p.text, p.has
		if v.t.Stages[i].Name != trace.ContextStage {
			text, has = j.packedText(v.t.Stages[i].Items[k])
		}
		var n int
		switch {
		case k < len(tokens):
			n = tokens[k]
		case j.opt.Tokenizer != nil:
			n = j.opt.Tokenizer.Count(text)
		default:
			n = len(strings.Fields(text))
		}
		ps[k] = analysis.Passage{ID: p.id, Doc: p.meta.Doc, Text: text, Tokens: n,
			Relevant: p.state == evidence && p.grade != metric.Unjudged && p.grade >= minGrade}
		rep.items++
		if !has {
			rep.noText++
		}
		if ps[k].Relevant {
			rep.relevant++
		}
		rep.docTokens[cmp.Or(p.meta.Doc, noDocument)] += n
	}
	return ps, rep
}

func reach(m map[string]*analysis.Reach, id string) *analysis.Reach {
	if m[id] == nil {
		m[id] = &analysis.Reach{Item: id}
	}
	return m[id]
}

// scoredList reduces one stage's list to what calibration needs: its
// judged scored items and, as one unjudged item, its highest score (which
// alone decides whether a threshold leaves the query empty). Nil when no
// item carries a score.
func scoredList(query string, items []trace.Item, ps []placed) *analysis.List {
	l := &analysis.List{Query: query}
	top, any := math.Inf(-1), false
	for k, p := range ps {
		s := items[k].Score
		if s == nil {
			continue
		}
		any = true
		top = max(top, *s)
		if p.grade != metric.Unjudged {
			l.Items = append(l.Items, analysis.Scored{Score: *s, Grade: int(p.grade), Judged: true})
		}
	}
	if !any {
		return nil
	}
	l.Items = append(l.Items, analysis.Scored{Score: top})
	return l
}

// analysesTally adds up one system's contributions.
type analysesTally struct {
	lists      [][]analysis.List
	red        []StageRedundancy // per stage position
	docTokens  []map[string]int  // per stage position
	pos        []PositionBucket
	noEvidence PositionBucket
	stale      map[string]*analysis.Reach
	parts      []int
	costed     int
}

func (t *analysesTally) add(a *traceAnalyses) {
	if t.stale == nil {
		t.stale = map[string]*analysis.Reach{}
		t.pos = make([]PositionBucket, len(analysis.Buckets))
		t.parts = make([]int, len(costParts))
	}
	for len(t.lists) < len(a.lists) {
		t.lists = append(t.lists, nil)
		t.red = append(t.red, StageRedundancy{})
		t.docTokens = append(t.docTokens, map[string]int{})
	}
	for i, l := range a.lists {
		if l != nil {
			t.lists[i] = append(t.lists[i], *l)
		}
	}
	for id, r := range a.stale {
		s := reach(t.stale, id)
		s.Contexts += r.Contexts
		s.Answers += r.Answers
	}
	for i, r := range a.redundancy {
		red := &t.red[i]
		red.Lists++
		red.Items += r.items
		red.NoText += r.noText
		for _, d := range r.Duplicates {
			if d.Exact {
				red.ExactPairs++
			} else {
				red.NearPairs++
			}
		}
		if len(r.Duplicates) > 0 {
			red.WithRepeats++
		}
		for d, n := range r.docTokens {
			red.Tokens += n
			t.docTokens[i][d] += n
		}
		red.RepeatTokens += r.RepeatTokens
		red.RelevantItems += r.relevant
		red.UniqueRelevant += r.UniqueRelevant
	}
	if a.parts != nil {
		t.costed++
		for i, n := range a.parts {
			t.parts[i] += n
		}
	}
	if a.effects == nil { // no packed context
		return
	}
	for i, e := range a.effects {
		b := &t.pos[i]
		b.Passages += e.Passages
		b.Queries += e.Queries
		b.ranks += a.ranks[i]
		if a.correct {
			b.right += e.Queries // one query a trace: 0 or 1
		}
	}
	if a.noEvidence {
		t.noEvidence.Queries++
		if a.correct {
			t.noEvidence.right++
		}
	}
}

// finish computes the analyses; lists are taken in query order so that
// the result does not depend on the order traces arrived in.
func (t *analysesTally) finish(o AnalysisOptions, names []string, minGrade int, unit string) (*Analyses, error) {
	a := &Analyses{Calibration: []StageCalibration{}, Stale: []analysis.Reach{}}
	for i, name := range names {
		if i >= len(t.lists) || len(t.lists[i]) == 0 {
			continue
		}
		lists := byQuery(t.lists[i], func(l analysis.List) string { return l.Query })
		c, err := analysis.Calibrate(lists, minGrade, o.Bins, o.Target)
		if err != nil {
			return nil, fmt.Errorf("stage %q: %w", name, err)
		}
		sc := StageCalibration{Stage: name, Queries: len(lists), Judged: c.Judged, Bins: []CalibrationBin{},
			TargetPrecision: o.Target.Precision, TargetRecall: o.Target.Recall,
			Precision: c.Precision, Recall: c.Recall, EmptyQueries: c.EmptyQueries}
		for _, b := range c.Bins {
			sc.Bins = append(sc.Bins, CalibrationBin(b))
		}
		if c.Probabilistic && !math.IsNaN(c.ECE) {
			sc.ECE = &c.ECE
		}
		if c.ThresholdOK {
			sc.Threshold = &c.Threshold
		} else {
			sc.Precision, sc.Recall = 0, 0
		}
		a.Calibration = append(a.Calibration, sc)
	}
	a.Redundancy = RedundancyReport{Shingle: o.Shingle, Threshold: o.Jaccard, Unit: unit, Stages: []StageRedundancy{}}
	for i, name := range names {
		var red StageRedundancy
		docs := map[string]int{}
		if i < len(t.red) {
			red, docs = t.red[i], t.docTokens[i]
		}
		red.Stage, red.Docs, red.DocShare = name, len(docs), topShares(docs, red.Tokens)
		if red.Tokens > 0 {
			red.RepeatShare = float64(red.RepeatTokens) / float64(red.Tokens)
		}
		a.Redundancy.Stages = append(a.Redundancy.Stages, red)
	}
	for i, b := range t.pos {
		b.Bucket = analysis.Buckets[i]
		a.Position.Buckets = append(a.Position.Buckets, b.done())
	}
	a.Position.Rule = topics.CorrectRule(o.PassF1)
	a.Position.NoEvidence = t.noEvidence
	a.Position.NoEvidence.Bucket = "none"
	a.Position.NoEvidence = a.Position.NoEvidence.done()
	var rs []analysis.Reach
	for _, r := range t.stale {
		rs = append(rs, *r)
	}
	a.Stale = append(a.Stale, analysis.Stalest(rs)...)
	if o.Price != nil {
		c := &CostReport{PriceIn: o.Price.Input, PriceOut: o.Price.Output, Queries: t.costed}
		in := 0
		for i, part := range costParts {
			n := t.parts[i]
			p := CostPart{Part: part}
			if t.costed > 0 {
				p.MeanTokens = float64(n) / float64(t.costed)
				if part == "answer" {
					p.PerQuery = o.Price.Of(0, n) / float64(t.costed)
				} else {
					p.PerQuery = o.Price.Of(n, 0) / float64(t.costed)
					in += n
				}
			}
			c.Parts = append(c.Parts, p)
		}
		c.Total = o.Price.Of(in, t.parts[len(t.parts)-1])
		if t.costed > 0 {
			c.PerQuery = c.Total / float64(t.costed)
		}
		a.Cost = c
	}
	return a, nil
}

// topShares is the ten largest documents' shares of total, largest first
// (ties by name).
func topShares(docTokens map[string]int, total int) []analysis.Share {
	out := []analysis.Share{}
	if total == 0 {
		return out
	}
	docs := slices.SortedFunc(maps.Keys(docTokens), func(x, y string) int {
		return cmp.Or(cmp.Compare(docTokens[y], docTokens[x]), strings.Compare(x, y))
	})
	for _, d := range docs[:min(len(docs), 10)] {
		out = append(out, analysis.Share{Doc: d, Share: float64(docTokens[d]) / float64(total)})
	}
	return out
}

func (b PositionBucket) done() PositionBucket {
	if b.Queries > 0 {
		b.Correct = float64(b.right) / float64(b.Queries)
	}
	if b.Passages > 0 {
		b.MeanRank = float64(b.ranks) / float64(b.Passages)
	}
	return b
}
