package eval

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/diag"
	"github.com/ragstat/ragstat/input"
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
	// under the queries policies judged and run.
	Ignored  []string
	Unjudged int // unjudged items returned, over all evaluated queries
	Folded   int // items folded into their document under the doc unit
}

// Metric returns the position in Metrics (and in every row's Values) of
// the metric named name, in any of the spellings metric.Parse reads.
func (r *Result) Metric(name string) (int, error) {
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
	qrels   *judgments.Set
	docOf   func(string) string
	ideal   map[string][]int32
	// FoldedJudgments counts judgments merged into their document's under
	// the doc unit.
	FoldedJudgments int
}

// New prepares an Evaluator. The zero Policy means DefaultPolicy; any
// other policy must pass Validate. docOf maps an item to its document and
// is given exactly when the policy's unit is doc.
func New(qrels *judgments.Set, policy Policy, metrics []metric.Metric, docOf func(string) string) (*Evaluator, error) {
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
		return nil, &PolicyError{Field: "unit", Value: string(UnitDoc), Msg: "needs a document map: an item-to-document map or id pattern"}
	}
	if policy.Unit != UnitDoc && docOf != nil {
		return nil, &PolicyError{Field: "unit", Value: string(policy.Unit), Msg: "takes no document map: the doc unit does"}
	}
	e := &Evaluator{policy: policy, metrics: metrics, qrels: qrels, ideal: map[string][]int32{}}
	if policy.Unit == UnitDoc {
		e.docOf = docOf
		e.qrels, e.FoldedJudgments = qrels.Map(docOf)
	}
	for _, id := range e.qrels.IDs() {
		e.ideal[id] = metric.NewList(nil, e.qrels.Query(id).Grades(nil)).Ideal
	}
	return e, nil
}

// Policy returns the policy in force.
func (e *Evaluator) Policy() Policy { return e.policy }

// Metrics returns the metrics computed, in output order.
func (e *Evaluator) Metrics() []metric.Metric { return e.metrics }

// Judgments returns the judgments scored against (document level under
// the doc unit).
func (e *Evaluator) Judgments() *judgments.Set { return e.qrels }

// scratch is per-goroutine working memory.
type scratch struct {
	grades, ideal []int32
	hi            []int32 // grades read optimistically, under the unjudged policy bounds
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
				errs.Add(&diag.Error{File: file, Line: line(i), Query: list.Query, Item: items[i],
					Msg:  fmt.Sprintf("returned at rank %d but has no judgment", i+1),
					Hint: "judge it, or choose the unjudged policy nonrelevant, skip or bounds"})
			}
		}
	}
	if err := errs.Err(); err != nil {
		return row, err
	}
	e.scoreGrades(&row, s)
	return row, nil
}

// ScoreGrades scores one ranked list whose grades the caller looked up
// itself (metric.Unjudged marks an item without a judgment), applying the
// unjudged policy; callers that use UnjudgedError must have rejected holes
// already. The row's Folded count is left to the caller.
func (e *Evaluator) ScoreGrades(query string, grades []int32) Row {
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	s.grades = append(s.grades[:0], grades...)
	row := Row{Query: query}
	e.scoreGrades(&row, s)
	return row
}

// scoreGrades counts holes, applies the unjudged policy skip, and fills the metrics.
func (e *Evaluator) scoreGrades(row *Row, s *scratch) {
	kept := s.grades[:0]
	for _, g := range s.grades {
		if g == metric.Unjudged {
			row.Unjudged++
			if e.policy.Unjudged == UnjudgedSkip {
				continue
			}
		}
		kept = append(kept, g)
	}
	s.grades = kept
	row.Returned = len(kept)
	e.fill(row, s, row.Query)
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
func (e *Evaluator) fill(row *Row, s *scratch, query string) {
	p := e.policy.metricPolicy()
	list := metric.List{Grades: s.grades, Ideal: e.ideal[query]}
	if list.NumRel(p) == 0 {
		row.noRel = true
		return
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
		high[i] = m.Compute(metric.NewList(s.hi, s.ideal), p)
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
	if opt.Order != "" && opt.Order != e.policy.Order {
		return nil, &PolicyError{Field: "order", Value: string(e.policy.Order), Msg: fmt.Sprintf("disagrees with the reader's order %q", opt.Order)}
	}
	opt.Order = e.policy.Order
	var mu sync.Mutex
	rows := map[string]Row{}
	notJudged := map[string]bool{} // a set: runs.Read may deliver a query twice
	format, err := runs.Read(f, opt, func(list *runs.Ranking) error {
		if visit != nil {
			visit(list)
		}
		row, err := e.Score(f.Name, list)
		mu.Lock()
		defer mu.Unlock()
		if err == errNotJudged {
			notJudged[strings.Clone(list.Query)] = true
			return nil
		}
		row.Query = strings.Clone(row.Query)
		rows[row.Query] = row
		return err
	})
	if err != nil {
		return nil, err
	}
	res, err := e.Collect(name, f.Name, rows, slices.Collect(maps.Keys(notJudged)))
	if err != nil {
		return nil, err
	}
	res.Format = string(format)
	return res, nil
}

// Lists evaluates rankings held in memory, keyed by query, as a run named name.
func (e *Evaluator) Lists(name string, lists map[string][]string) (*Result, error) {
	rows := map[string]Row{}
	var notJudged []string
	var errs diag.List
	for q, items := range lists {
		row, err := e.Score(name, &runs.Ranking{Query: q, Items: items})
		if err == errNotJudged {
			notJudged = append(notJudged, q)
			continue
		}
		errs.Add(err)
		rows[q] = row
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return e.Collect(name, name, rows, notJudged)
}

// Collect turns per-query rows of one run (keyed by query; notJudged lists
// the run's queries that have no judgments) into a Result, applying the
// query-set and unanswerable policies and averaging.
func (e *Evaluator) Collect(name, file string, rows map[string]Row, notJudged []string) (*Result, error) {
	res := &Result{Name: name, File: file, Metrics: e.metrics}
	return res, e.assemble(res, rows, notJudged)
}

func (e *Evaluator) assemble(res *Result, rows map[string]Row, notJudged []string) error {
	slices.Sort(notJudged)
	judged := e.qrels.IDs()
	var missing []string
	for _, q := range judged {
		if _, ok := rows[q]; !ok {
			missing = append(missing, q)
		}
	}
	if err := e.checkQuerySets(res.File, missing, notJudged); err != nil {
		return err
	}
	var noRel []string
	for _, q := range judged {
		row, ok := rows[q]
		if !ok {
			if e.policy.Queries != QueriesJudged {
				res.Ignored = append(res.Ignored, q)
				continue
			}
			row = e.empty(q)
		}
		if row.noRel {
			noRel = append(noRel, q)
			continue
		}
		res.Rows = append(res.Rows, row)
		res.Unjudged += row.Unjudged
		res.Folded += row.Folded
	}
	res.Ignored = append(res.Ignored, notJudged...)
	if len(noRel) > 0 && e.policy.Unanswerable == UnanswerableError {
		return &diag.Error{File: e.qrels.File, Msg: fmt.Sprintf("%s with no judgment at or above grade %d: %s",
			plural(len(noRel), "query", "queries"), e.policy.MinGrade, sample(noRel)),
			Hint: "recall has no denominator there; evaluate abstention separately under the unanswerable policy exclude"}
	}
	res.Excluded = noRel
	res.Mean = mean(res.Rows, func(r Row) []float64 { return r.Values }, len(e.metrics))
	if e.policy.Unjudged == UnjudgedBounds {
		res.MeanHigh = mean(res.Rows, func(r Row) []float64 { return r.High }, len(e.metrics))
	}
	return nil
}

func (e *Evaluator) empty(q string) Row {
	row := Row{Query: q, Missing: true}
	e.fill(&row, &scratch{}, q)
	return row
}

func (e *Evaluator) checkQuerySets(file string, missing, notJudged []string) error {
	var errs diag.List
	if len(missing) > 0 && e.policy.Queries == QueriesExact {
		errs.Add(&diag.Error{File: file, Msg: fmt.Sprintf("%s judged in %s but absent from the run: %s",
			plural(len(missing), "query", "queries"), e.qrels.File, sample(missing)),
			Hint: "a missing query is a data error; if the system returned nothing, write the query with an empty list, or choose the queries policy judged or run"})
	}
	if len(notJudged) > 0 && e.policy.Queries != QueriesJudged {
		errs.Add(&diag.Error{File: file, Msg: fmt.Sprintf("%s in the run but not judged in %s: %s",
			plural(len(notJudged), "query", "queries"), e.qrels.File, sample(notJudged)),
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

func mean(rows []Row, values func(Row) []float64, n int) []float64 {
	out := make([]float64, n)
	if len(rows) == 0 {
		return out
	}
	for _, r := range rows {
		for i, v := range values(r) {
			out[i] += v
		}
	}
	for i := range out {
		out[i] /= float64(len(rows))
	}
	return out
}
