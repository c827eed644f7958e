package eval

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/runs"
)

// Row is one query's values, in the order of Result.Metrics.
type Row struct {
	Query  string
	Values []float64 // under the bounds policy, the low end
	High   []float64 // under the bounds policy, the high end; nil otherwise
	// Missing marks a judged query the run did not contain, scored as an
	// empty list under the queries policy judged.
	Missing  bool
	Returned int // items in the list as evaluated
	Unjudged int // returned items with no judgment
	Folded   int // items folded into an earlier item of the same document
	noRel    bool
}

// Result is one run evaluated.
type Result struct {
	Name     string
	File     string
	Format   string
	Metrics  []metric.Metric
	Rows     []Row     // evaluated queries, in judgment order
	Mean     []float64 // macro mean over Rows
	MeanHigh []float64 // under the bounds policy
	// Excluded lists queries without a relevant judgment left out of every
	// mean under the unanswerable policy exclude: the abstention slice.
	Excluded []string
	// Ignored lists queries present on one side only and not evaluated
	// under the queries policies judged, run and both.
	Ignored []string
	// ScoredUnanswerable lists the queries without a relevant judgment
	// that the unanswerable policy zero scored and kept in the means.
	ScoredUnanswerable []string
	Unjudged           int // unjudged items returned, over all evaluated queries
	Folded             int // items folded into their document under the doc unit
}

// Metric returns the position in Metrics (and in every row's Values) of
// the metric named name, in any of the spellings metric.Parse reads.
func (r *Result) Metric(name string) (int, error) {
	for i, have := range r.Metrics { // a printed name, such as ranx's ndcg@10 under the ranx preset
		if have.Name() == name {
			return i, nil
		}
	}
	ms, err := metric.Parse(name)
	if err != nil {
		return -1, err
	}
	if len(ms) != 1 {
		return -1, fmt.Errorf("metric %q names %d metrics: name one", name, len(ms))
	}
	m := ms[0]
	names := make([]string, len(r.Metrics))
	for i, have := range r.Metrics {
		if have.Name() == m.Name() {
			return i, nil
		}
		names[i] = have.Name()
	}
	return -1, fmt.Errorf("%s: no %s among the metrics computed (%s)", r.Name, m.Name(), strings.Join(names, " "))
}

// MeanOf returns the mean of the metric named name (the low end under the
// bounds policy).
func (r *Result) MeanOf(name string) (float64, error) {
	i, err := r.Metric(name)
	if err != nil {
		return 0, err
	}
	return r.Mean[i], nil
}

// Evaluator scores ranked lists against one set of judgments.
type Evaluator struct {
	policy  Policy
	metrics []metric.Metric
	qrels   *judgments.Set // nil under NewPerQuery
	file    string         // the judgments' file, for messages
	docOf   func(string) string
	ideal   map[string][]int32
	// FoldedJudgments counts judgments merged into their document's under
	// the doc unit.
	FoldedJudgments int
	subtopics       *judgments.Subtopics
	aspects         map[string]*metric.Aspects // by query: subtopics and the judged items' grades
	keep            func(query string) bool    // nil: every query
}

// New prepares an Evaluator. The zero Policy means DefaultPolicy; any
// other policy must pass Validate. docOf maps an item to its document and
// is given exactly when the policy's unit is doc.
func New(qrels *judgments.Set, policy Policy, metrics []metric.Metric, docOf func(string) string) (*Evaluator, error) {
	e, err := newEvaluator(qrels.File, policy, metrics, docOf)
	if err != nil {
		return nil, err
	}
	e.qrels = qrels
	if e.policy.Unit == UnitDoc {
		e.docOf = docOf
		e.qrels, e.FoldedJudgments = qrels.Map(docOf)
	}
	e.ideal = ideals(e.qrels)
	return e, nil
}

// ideals returns each query's grades in ideal order, from the highest
// down, in one allocation; the two halves of the queries are sorted on two
// goroutines.
func ideals(qrels *judgments.Set) map[string][]int32 {
	ids := qrels.IDs()
	all := make([]int32, 0, qrels.Len())
	lists := make([][]int32, len(ids))
	for i, id := range ids {
		from := len(all)
		all = qrels.Query(id).Grades(all)
		lists[i] = all[from:len(all):len(all)]
	}
	sortAll := func(lists [][]int32) {
		for _, l := range lists {
			metric.NewList(nil, l)
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { sortAll(lists[len(lists)/2:]) })
	sortAll(lists[:len(lists)/2])
	wg.Wait()
	m := make(map[string][]int32, len(ids))
	for i, id := range ids {
		m[id] = lists[i]
	}
	return m
}

// NewPerQuery prepares an Evaluator that holds no judgments: the caller
// supplies each query's own (ScoreGrades, CollectJudged), so that memory
// does not grow with the number of judged queries. file names the
// judgments in messages. The policy and metrics are checked as New checks
// them; the doc unit, which maps a whole set, is refused.
func NewPerQuery(file string, policy Policy, metrics []metric.Metric) (*Evaluator, error) {
	e, err := newEvaluator(file, policy, metrics, nil)
	if err != nil {
		return nil, err
	}
	e.qrels = nil
	return e, nil
}

// newEvaluator checks the policy and metrics and makes an Evaluator with
// an empty set of judgments.
func newEvaluator(file string, policy Policy, metrics []metric.Metric, docOf func(string) string) (*Evaluator, error) {
	if policy == (Policy{}) {
		policy = DefaultPolicy()
	}
	if err := policy.Validate(); err != nil {
		return nil, err
	}
	if len(metrics) == 0 {
		return nil, fmt.Errorf("no metrics to compute")
	}
	if policy.Unit == UnitDoc && docOf == nil {
		return nil, &diag.OptionError{Scope: "policy", Option: "unit", Value: string(UnitDoc), Msg: "needs a document map: an item-to-document map or id pattern"}
	}
	if policy.Unit != UnitDoc && docOf != nil {
		return nil, &diag.OptionError{Scope: "policy", Option: "unit", Value: string(policy.Unit), Msg: "takes no document map: the doc unit does"}
	}
	return &Evaluator{policy: policy, metrics: metrics, file: file, ideal: map[string][]int32{}}, nil
}

// Policy returns the policy in force.
func (e *Evaluator) Policy() Policy { return e.policy }

// Metrics returns the metrics computed, in output order.
func (e *Evaluator) Metrics() []metric.Metric { return e.metrics }

// Restrict makes Run, RunVisit and Lists pass over every ranked list whose
// query keep rejects, as if the run did not hold it: one shard of an
// evaluation split by query. Restrict the judgments likewise
// (judgments.Set.Subset) before New.
func (e *Evaluator) Restrict(keep func(query string) bool) { e.keep = keep }

// Judgments returns the judgments scored against (document level under
// the doc unit).
func (e *Evaluator) Judgments() *judgments.Set { return e.qrels }

// scratch is per-goroutine working memory.
type scratch struct {
	grades, ideal []int32
	hi            []int32           // grades read optimistically, under the unjudged policy bounds
	aspects       [][]metric.Aspect // each ranked item's subtopic grades, with subtopic judgments
	seen          map[string]bool
	items         []string
	lines         []int
}

var scratchPool = sync.Pool{New: func() any { return &scratch{seen: map[string]bool{}} }}

// Score scores one ranked list of query q (items in rank order; lines, when
// known, say where each came from for error messages). It returns the row
// and the problems found: an unjudged item under the unjudged policy error, a query
// that is not judged.
func (e *Evaluator) Score(file string, list *runs.Ranking) (Row, error) {
	q := e.qrels.Query(list.Query)
	if q == nil {
		return Row{Query: list.Query}, errNotJudged
	}
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	row := Row{Query: list.Query}
	items, line := list.Items, list.Line
	if e.docOf != nil {
		items, row.Folded = s.fold(list, e.docOf)
		line = func(i int) int { return s.lines[i] }
		s.gradesByItem(q, items)
	} else {
		s.gradesByJudgment(q, list)
	}
	var errs diag.List
	if e.policy.Unjudged == UnjudgedError {
		for i, g := range s.grades {
			if g == metric.Unjudged {
				// the list's strings may share a reader's buffer: the error outlives it
				errs.Add(&diag.Error{File: file, Line: line(i), Query: strings.Clone(list.Query), Item: strings.Clone(items[i]),
					Msg:  fmt.Sprintf("returned at rank %d but has no judgment", i+1),
					Hint: "judge it, or choose {unjudged} nonrelevant, skip or bounds"})
			}
		}
	}
	if err := errs.Err(); err != nil {
		return row, err
	}
	s.aspects = s.aspects[:0]
	if e.aspects != nil {
		sq := e.subtopics.Query(list.Query)
		for _, it := range items {
			s.aspects = append(s.aspects, aspectsOf(sq.Of(it)))
		}
	}
	e.scoreGrades(&row, s, e.ideal[list.Query])
	return row, nil
}

// UseSubtopics gives the diversity metrics (alpha-nDCG, ERR-IA) their
// subtopic judgments. Every judged query needs some.
func (e *Evaluator) UseSubtopics(st *judgments.Subtopics) error {
	var missing []string
	aspects := map[string]*metric.Aspects{}
	for _, q := range e.qrels.IDs() {
		sq := st.Query(q)
		if sq == nil {
			missing = append(missing, q)
			continue
		}
		a := &metric.Aspects{N: sq.Len()}
		for _, it := range sq.Items() {
			a.Judged = append(a.Judged, aspectsOf(sq.Of(it)))
		}
		aspects[q] = a
	}
	if len(missing) > 0 {
		return &diag.Error{File: st.File, Msg: fmt.Sprintf("%s judged in %s but without subtopic judgments: %s",
			plural(len(missing), "query", "queries"), e.file, sample(missing)),
			Hint: "judge every query's subtopics, or leave the diversity metrics out"}
	}
	e.subtopics, e.aspects = st, aspects
	return nil
}

func aspectsOf(gs []judgments.SubtopicGrade) []metric.Aspect {
	out := make([]metric.Aspect, len(gs))
	for i, g := range gs {
		out[i] = metric.Aspect{Subtopic: g.Subtopic, Grade: int32(g.Grade)}
	}
	return out
}

// CheckScoreGrades reports whether every metric can be scored from grades
// alone (ScoreGrades); the diversity metrics cannot.
func (e *Evaluator) CheckScoreGrades() error { return e.needsSubtopics(true) }

// needsSubtopics refuses to score diversity metrics without subtopic
// judgments, or from grades alone (ScoreGrades: no item ids to look up).
func (e *Evaluator) needsSubtopics(fromGrades bool) error {
	for _, m := range e.metrics {
		switch {
		case !m.Diversity:
		case e.aspects == nil:
			return &diag.OptionError{Msg: diag.Literal(m.Name()) + " needs subtopic judgments ({subtopics} FILE, TREC diversity qrels: topic subtopic item grade)"}
		case fromGrades:
			return fmt.Errorf("%s is not available here: it needs each item's subtopic judgments", m.Name())
		}
	}
	return nil
}

// scoreRow scores query's list of grades with every judgment acceptable.
func (e *Evaluator) scoreRow(query string, grades []int32) Row {
	return e.scoreAgainst(query, e.ideal[query], grades, nil)
}

// ScoreGrades scores one ranked list of query q from grades the caller
// looked up itself (metric.Unjudged for an item without a judgment), under
// the unjudged policy (under UnjudgedError the caller refuses holes first;
// it counts Folded itself). invalid holds the grades of q's judgments that
// are not acceptable evidence here (out of the query's scope, not in
// effect at its date): they leave the ideal ranking and every denominator,
// and such items have grade 0 in grades. An Evaluator made by NewPerQuery
// takes the ideal ranking from q, one made by New from its judgments.
func (e *Evaluator) ScoreGrades(q *judgments.Query, grades, invalid []int32) Row {
	ideal := e.ideal[q.ID]
	if e.qrels == nil {
		ideal = metric.NewList(nil, q.Grades(nil)).Ideal
	}
	return e.scoreAgainst(q.ID, ideal, grades, invalid)
}

// scoreAgainst scores grades against the query's ideal ranking, less the
// invalid judgments' grades.
func (e *Evaluator) scoreAgainst(query string, ideal, grades, invalid []int32) Row {
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	s.grades = append(s.grades[:0], grades...)
	s.aspects = s.aspects[:0]
	if len(invalid) > 0 {
		ideal = withoutGrades(ideal, invalid)
	}
	row := Row{Query: query}
	e.scoreGrades(&row, s, ideal)
	return row
}

// withoutGrades removes one occurrence of each grade in drop from ideal
// (sorted in descending order), keeping the order, in a new slice.
func withoutGrades(ideal, drop []int32) []int32 {
	left := map[int32]int{}
	for _, g := range drop {
		left[g]++
	}
	out := make([]int32, 0, len(ideal))
	for _, g := range ideal {
		if left[g] > 0 {
			left[g]--
			continue
		}
		out = append(out, g)
	}
	return out
}

// scoreGrades counts holes, applies the unjudged policy skip (judged-only
// evaluation, which also drops items with a negative grade, pooled but not
// judged, as trec_eval -J does), and fills the metrics.
func (e *Evaluator) scoreGrades(row *Row, s *scratch, ideal []int32) {
	kept := s.grades[:0]
	keptAspects := s.aspects[:0]
	skip := e.policy.Unjudged == UnjudgedSkip
	for i, g := range s.grades {
		if g == metric.Unjudged {
			row.Unjudged++
		}
		if skip && g < 0 {
			continue
		}
		kept = append(kept, g)
		if len(s.aspects) > 0 {
			keptAspects = append(keptAspects, s.aspects[i])
		}
	}
	s.grades, s.aspects = kept, keptAspects
	row.Returned = len(kept)
	e.fill(row, s, ideal)
}

var errNotJudged = fmt.Errorf("query not judged")

// gradesByItem looks every item up in the judgments.
func (s *scratch) gradesByItem(q *judgments.Query, items []string) {
	s.grades = s.grades[:0]
	for _, it := range items {
		g, ok := q.Grade(it)
		if !ok {
			g = metric.Unjudged
		}
		s.grades = append(s.grades, int32(g))
	}
}

// gradesByJudgment looks every judged item up in the list, which is
// cheaper than the other way round when lists are long and judgments few.
func (s *scratch) gradesByJudgment(q *judgments.Query, list *runs.Ranking) {
	s.grades = slices.Grow(s.grades[:0], len(list.Items))[:len(list.Items)]
	for i := range s.grades {
		s.grades[i] = metric.Unjudged
	}
	for k := range q.Len() {
		if i := list.Find(q.Key(k)); i >= 0 {
			s.grades[i] = int32(q.GradeAt(k))
		}
	}
}

// fold maps items to documents, keeping each document at its first rank.
func (s *scratch) fold(list *runs.Ranking, docOf func(string) string) ([]string, int) {
	s.items, s.lines = s.items[:0], s.lines[:0]
	folded := foldDocs(list.Items, docOf, s.seen, func(i int, doc string) {
		s.items = append(s.items, doc)
		s.lines = append(s.lines, list.Line(i))
	})
	return s.items, folded
}

// foldDocs calls keep with each item's document the first time the
// document appears, and returns how many items were folded away.
func foldDocs(items []string, docOf func(string) string, seen map[string]bool, keep func(i int, doc string)) int {
	clear(seen)
	folded := 0
	for i, it := range items {
		d := docOf(it)
		if seen[d] {
			folded++
			continue
		}
		seen[d] = true
		keep(i, d)
	}
	return folded
}

// AsEvaluated returns a query's ranked items as the policy scores them:
// folded into documents under the doc unit (each at its first rank), and
// without the unjudged items under the unjudged policy skip. It is the list
// the metrics read, for views that show where items sit.
func (e *Evaluator) AsEvaluated(query string, items []string) []string {
	out := items
	if e.docOf != nil {
		out = make([]string, 0, len(items))
		foldDocs(items, e.docOf, map[string]bool{}, func(_ int, doc string) { out = append(out, doc) })
	}
	if e.policy.Unjudged != UnjudgedSkip {
		return out
	}
	q := e.qrels.Query(query)
	if q == nil {
		return nil
	}
	kept := make([]string, 0, len(out))
	for _, it := range out {
		if _, judged := q.Grade(it); judged {
			kept = append(kept, it)
		}
	}
	return kept
}

// fill computes the metrics of row from the grades in s.
func (e *Evaluator) fill(row *Row, s *scratch, ideal []int32) {
	p := e.policy.MetricPolicy()
	list := metric.List{Grades: s.grades, Ideal: ideal}
	if a := e.aspects[row.Query]; a != nil {
		list.Aspects = &metric.Aspects{N: a.N, Ranked: s.aspects, Judged: a.Judged}
	}
	if list.NumRel(p) == 0 {
		row.noRel = true
		if e.policy.Unanswerable != UnanswerableZero {
			return
		}
	}
	row.Values = e.compute(&list, p)
	if e.policy.Unjudged == UnjudgedBounds {
		row.High = e.bounds(row.Values, s, &list, p)
	}
}

// bounds reads each metric a second time with the unjudged items it looks
// at (those within its cutoff) counted relevant at the threshold, and added
// to the query's judgments; items beyond the cutoff cannot help it and stay
// non-relevant. low then holds the smaller reading and the result the
// larger, so the interval spans what the holes in the judgments allow.
// Judged@k reads the holes themselves and is the same in both.
func (e *Evaluator) bounds(low []float64, s *scratch, list *metric.List, p metric.Policy) []float64 {
	high := make([]float64, len(low))
	for i, m := range e.metrics {
		if m.Family.Name == "Judged" {
			high[i] = low[i]
			continue
		}
		s.hi = append(s.hi[:0], list.Grades...)
		s.ideal = append(s.ideal[:0], list.Ideal...)
		for r, g := range s.hi {
			if g == metric.Unjudged && (m.K == 0 || r < m.K) {
				s.hi[r] = p.MinGrade
				s.ideal = append(s.ideal, p.MinGrade)
			}
		}
		hl := metric.NewList(s.hi, s.ideal)
		hl.Aspects = list.Aspects
		high[i] = m.Compute(hl, p)
		low[i], high[i] = min(low[i], high[i]), max(low[i], high[i])
	}
	return high
}

func (e *Evaluator) compute(l *metric.List, p metric.Policy) []float64 {
	out := make([]float64, len(e.metrics))
	for i, m := range e.metrics {
		out[i] = m.Compute(l, p)
	}
	return out
}

// Run reads a run file and evaluates it. name labels the result. The
// policy's Order ranks the lists: opt.Order, when set, must agree with it.
func (e *Evaluator) Run(name string, f *input.File, opt runs.Options) (*Result, error) {
	return e.RunVisit(name, f, opt, nil)
}

// RunVisit is Run that also shows every ranked list to visit (when not
// nil), from several goroutines at once, so a caller can keep what it needs
// of the lists in the same pass.
func (e *Evaluator) RunVisit(name string, f *input.File, opt runs.Options, visit func(*runs.Ranking)) (*Result, error) {
	opt, err := e.readOrder(opt)
	if err != nil {
		return nil, err
	}
	var format input.Format
	res, err := e.collect(name, f.Name, visit, func(fn func(*runs.Ranking) error) (err error) {
		format, err = runs.Read(f, opt, fn)
		return err
	})
	if err != nil {
		return nil, err
	}
	res.Format = string(format)
	return res, nil
}

// RunLists evaluates a run another reader gathered by query (see
// runs.Lists), as Run evaluates a file; file names it in messages.
func (e *Evaluator) RunLists(name, file, format string, lists map[string][]runs.Entry, opt runs.Options) (*Result, error) {
	opt, err := e.readOrder(opt)
	if err != nil {
		return nil, err
	}
	res, err := e.collect(name, file, nil, func(fn func(*runs.Ranking) error) error {
		return runs.Lists(file, opt, lists, fn)
	})
	if err != nil {
		return nil, err
	}
	res.Format = format
	return res, nil
}

// readOrder sets the reader's order to the policy's, refusing another.
func (e *Evaluator) readOrder(opt runs.Options) (runs.Options, error) {
	if opt.Order != "" && opt.Order != e.policy.Order {
		return opt, &diag.OptionError{Scope: "policy", Option: "order", Value: string(e.policy.Order), Msg: fmt.Sprintf("disagrees with the reader's order %q", opt.Order)}
	}
	opt.Order = e.policy.Order
	return opt, nil
}

// collect scores every list read delivers and assembles the result.
func (e *Evaluator) collect(name, file string, visit func(*runs.Ranking), read func(fn func(*runs.Ranking) error) error) (*Result, error) {
	if err := e.needsSubtopics(false); err != nil {
		return nil, err
	}
	var mu sync.Mutex
	rows := map[string]Row{}
	notJudged := map[string]bool{} // a set: runs.Read may deliver a query twice
	var unjudged holes             // counted without stopping the reader
	err := read(func(list *runs.Ranking) error {
		if e.keep != nil && !e.keep(list.Query) {
			return nil
		}
		if visit != nil {
			visit(list)
		}
		row, err := e.Score(file, list)
		mu.Lock()
		defer mu.Unlock()
		if err == errNotJudged {
			notJudged[strings.Clone(list.Query)] = true
			return nil
		}
		row.Query = strings.Clone(row.Query)
		rows[row.Query] = row
		unjudged.record(row.Query, err)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := unjudged.err(); err != nil {
		return nil, err
	}
	return e.result(name, file, rows, slices.Collect(maps.Keys(notJudged)))
}

// Lists evaluates rankings held in memory, keyed by query, as a run named name.
func (e *Evaluator) Lists(name string, lists map[string][]string) (*Result, error) {
	if err := e.needsSubtopics(false); err != nil {
		return nil, err
	}
	rows := map[string]Row{}
	var notJudged []string
	var unjudged holes
	for q, items := range lists {
		if e.keep != nil && !e.keep(q) {
			continue
		}
		row, err := e.Score(name, &runs.Ranking{Query: q, Items: items})
		if err == errNotJudged {
			notJudged = append(notJudged, q)
			continue
		}
		unjudged.record(q, err)
		rows[q] = row
	}
	if err := unjudged.err(); err != nil {
		return nil, err
	}
	return e.result(name, name, rows, notJudged)
}

// result turns per-query rows of one run (keyed by query; notJudged lists
// the run's queries that have no judgments) into a Result, applying the
// query-set and unanswerable policies and averaging.
func (e *Evaluator) result(name, file string, rows map[string]Row, notJudged []string) (*Result, error) {
	res := &Result{Name: name, File: file, Metrics: e.metrics}
	return res, e.assemble(res, e.judged(func(q string) (Row, bool) { r, ok := rows[q]; return r, ok }), notJudged, true)
}

// CollectRows turns the per-query rows of one run, held compactly
// (notJudged lists the run's queries that have no judgments), into a
// Result, applying the query-set and unanswerable policies and averaging
// in the judgments' order, as Run does. Unless keep is set, the result
// holds no rows: only the means, counts and query lists.
func (e *Evaluator) CollectRows(name, file string, rows *Rows, notJudged []string, keep bool) (*Result, error) {
	res := &Result{Name: name, File: file, Metrics: e.metrics}
	return res, e.assemble(res, e.judged(rows.get), notJudged, keep)
}

// Judged is one judged query as CollectJudged reads it: its id, the grades
// of its judgments (for the row of a query the run did not hold) and its
// row, when Scored.
type Judged struct {
	Query  string
	Grades []int32
	Row    Row
	Scored bool
}

// JudgedQueries calls fn with every judged query in the judgments' order,
// stopping at fn's first error, which it returns.
type JudgedQueries func(fn func(Judged) error) error

// CollectJudged is CollectRows for an Evaluator made by NewPerQuery: the
// judged queries and their rows come from judged, which is read twice (the
// query-set policy is checked before anything is summed). The means are
// summed in judged's order, exactly as CollectRows sums them.
func (e *Evaluator) CollectJudged(name, file string, judged JudgedQueries, notJudged []string, keep bool) (*Result, error) {
	res := &Result{Name: name, File: file, Metrics: e.metrics}
	return res, e.assemble(res, func(fn func(Judged, func() Row) error) error {
		return judged(func(j Judged) error {
			return fn(j, func() Row { return e.emptyRow(j.Query, metric.NewList(nil, j.Grades).Ideal) })
		})
	}, notJudged, keep)
}

// judgedRows reads the judged queries in order: each with its row when
// scored, and a maker of the row of a query the run did not hold.
type judgedRows func(fn func(j Judged, empty func() Row) error) error

// judged reads e's judgments in order, with the rows rows holds.
func (e *Evaluator) judged(rows func(q string) (Row, bool)) judgedRows {
	return func(fn func(Judged, func() Row) error) error {
		for _, q := range e.qrels.IDs() {
			row, ok := rows(q)
			if err := fn(Judged{Query: q, Row: row, Scored: ok}, func() Row { return e.emptyRow(q, e.ideal[q]) }); err != nil {
				return err
			}
		}
		return nil
	}
}

func (e *Evaluator) assemble(res *Result, judged judgedRows, notJudged []string, keep bool) error {
	slices.Sort(notJudged)
	var missing []string
	err := judged(func(j Judged, _ func() Row) error {
		if !j.Scored {
			missing = append(missing, j.Query)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := e.checkQuerySets(res.File, missing, notJudged); err != nil {
		return err
	}
	var noRel []string
	mean, high := newSummer(e.metrics), newSummer(e.metrics)
	err = judged(func(j Judged, empty func() Row) error {
		q, row := j.Query, j.Row
		if !j.Scored {
			if e.policy.Queries != QueriesJudged {
				res.Ignored = append(res.Ignored, q)
				return nil
			}
			row = empty()
		}
		if row.noRel {
			noRel = append(noRel, q)
			if e.policy.Unanswerable != UnanswerableZero {
				return nil
			}
		}
		if keep {
			res.Rows = append(res.Rows, row)
		}
		mean.add(row.Values)
		high.add(row.High)
		res.Unjudged += row.Unjudged
		res.Folded += row.Folded
		return nil
	})
	if err != nil {
		return err
	}
	res.Ignored = append(res.Ignored, notJudged...)
	if e.policy.Unanswerable == UnanswerableZero {
		res.ScoredUnanswerable, noRel = noRel, nil
	}
	if len(noRel) > 0 && e.policy.Unanswerable == UnanswerableError {
		return &diag.Error{File: e.file, Msg: fmt.Sprintf("%s with no judgment at or above grade %d: %s",
			plural(len(noRel), "query", "queries"), e.policy.MinGrade, sample(noRel)),
			Hint: "recall has no denominator there; evaluate abstention separately under the unanswerable policy exclude"}
	}
	res.Excluded = noRel
	res.Mean = mean.result()
	if e.policy.Unjudged == UnjudgedBounds {
		res.MeanHigh = high.result()
	}
	return nil
}

// emptyRow is the row of judged query q, whose ideal ranking is ideal,
// when the run did not hold it.
func (e *Evaluator) emptyRow(q string, ideal []int32) Row {
	row := Row{Query: q, Missing: true}
	e.fill(&row, &scratch{}, ideal)
	return row
}

func (e *Evaluator) checkQuerySets(file string, missing, notJudged []string) error {
	var errs diag.List
	if len(missing) > 0 && e.policy.Queries == QueriesExact {
		errs.Add(&diag.Error{File: file, Msg: fmt.Sprintf("%s judged in %s but absent from the run: %s",
			plural(len(missing), "query", "queries"), e.file, sample(missing)),
			Hint: "a missing query is a data error; if the system returned nothing, write the query with an empty list, or choose the queries policy judged or run"})
	}
	if len(notJudged) > 0 && e.policy.Queries != QueriesJudged && e.policy.Queries != QueriesBoth {
		errs.Add(&diag.Error{File: file, Msg: fmt.Sprintf("%s in the run but not judged in %s: %s",
			plural(len(notJudged), "query", "queries"), e.file, sample(notJudged)),
			Hint: "judge them, or evaluate the judged queries only under the queries policy judged"})
	}
	return errs.Err()
}

// sample lists the first ten ids and a count of the rest.
func sample(ids []string) string {
	const n = 10
	quoted := make([]string, 0, n)
	for _, id := range ids[:min(n, len(ids))] {
		quoted = append(quoted, fmt.Sprintf("%q", id))
	}
	s := strings.Join(quoted, ", ")
	if len(ids) > n {
		s += fmt.Sprintf(" and %d more", len(ids)-n)
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// summarize aggregates each metric's per-query values as the metric asks
// (the mean, a sum, a geometric mean). Over zero queries every summary is
// undefined: NaN, which every renderer prints as null or "-", never 0.
func summarize(metrics []metric.Metric, rows []Row, values func(Row) []float64) []float64 {
	s := newSummer(metrics)
	for _, r := range rows {
		s.add(values(r))
	}
	return s.result()
}

// summer aggregates per-query values row by row, in the order given.
type summer struct {
	metrics []metric.Metric
	sum     []float64
	n       int
}

func newSummer(metrics []metric.Metric) *summer {
	return &summer{metrics: metrics, sum: make([]float64, len(metrics))}
}

func (s *summer) add(values []float64) {
	s.n++
	for i, v := range values {
		if s.metrics[i].Agg == metric.GeoMean {
			v = math.Log(max(v, minGeoMean))
		}
		s.sum[i] += v
	}
}

// result is the summary of the values added (NaN over none).
func (s *summer) result() []float64 {
	out := s.sum
	if s.n == 0 {
		for i := range out {
			out[i] = math.NaN()
		}
		return out
	}
	for i, m := range s.metrics {
		switch m.Agg {
		case metric.Mean:
			out[i] /= float64(s.n)
		case metric.GeoMean:
			out[i] = math.Exp(out[i] / float64(s.n))
		}
	}
	return out
}

// minGeoMean floors a value before its logarithm is taken, as trec_eval's
// gm_map does.
const minGeoMean = 0.00001
