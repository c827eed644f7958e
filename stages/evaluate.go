package stages

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/scratch"
	"github.com/ragstat/ragstat/trace"
)

// Traces hands every trace to fn, possibly from several goroutines at once
// (trace.Scan does), and returns the first error.
type Traces func(fn func(*trace.Trace) error) error

// Slice makes Traces of traces held in memory.
func Slice(ts []*trace.Trace) Traces {
	return func(fn func(*trace.Trace) error) error {
		for _, t := range ts {
			if err := fn(t); err != nil {
				return err
			}
		}
		return nil
	}
}

// digest is everything one trace contributes, computed as soon as it is
// read so that no trace (nor its packed texts) is kept.
type digest struct {
	query, system string
	file          string
	line          int
	answerable    bool
	names         []string
	traceID       string
	spanIDs       []string   // per stage, "" where not recorded
	rows          []eval.Row // per stage; Query empty when the query has no judgments
	judged        bool
	pos           int // with Input.Spilled, the query's position (view.pos)
	lengths       []int
	loss          []Lost
	facts         *QueryFacts
	factLoss      []Lost
	budget        *Budget
	truncated     []Lost
	hasContext    bool
	validity      ValidityReport
	answers       answerTally
	latency       map[string]float64
	config        string
	analyses      *traceAnalyses
	search        []SearchStep
	turn          int
}

// Evaluate evaluates every system in traces. Problems in the data (a trace
// whose query has no topic, an unjudged item under the unjudged policy error, a
// truncation whose grade cannot be inherited, missing metadata, stages that
// differ between traces of one system) are returned together, up to
// diag.Max. Each trace is reduced to its contribution as soon as it is read
// and added to its system's tally; no trace is kept.
func Evaluate(in Input, traces Traces, opt Options) (*Result, error) {
	ev, positions, err := evaluator(in, opt)
	if err != nil {
		return nil, err
	}
	if opt.Shard != nil && opt.Analyses != nil {
		return nil, &diag.OptionError{Msg: "stages: the analyses do not merge across shards: run them without {shard}"}
	}
	if err := ev.CheckScoreGrades(); err != nil {
		return nil, fmt.Errorf("stages: %w", err)
	}
	if opt.Analyses != nil {
		if err := opt.Analyses.check(opt.Tokenizer); err != nil {
			return nil, err
		}
	}
	var mu sync.Mutex
	var errs diag.List
	holes, holeQueries := 0, map[string]bool{}
	tallies := map[string]*tally{}
	defer func() {
		for _, t := range tallies {
			t.close()
		}
	}()
	err = traces(func(t *trace.Trace) error {
		if opt.Shard != nil && !opt.Shard(t.Query) {
			return nil
		}
		var local diag.List
		j := &joiner{in: in, opt: opt, errs: &local}
		d := j.digest(t, ev)
		mu.Lock()
		defer mu.Unlock()
		errs.Add(local.Err())
		if j.holes > 0 {
			holes += j.holes
			holeQueries[t.Query] = true
		}
		if d != nil && errs.Len() == 0 {
			if tallies[d.system] == nil {
				tallies[d.system] = newTally(d.system, opt, ev, in.Spilled)
			}
			if err := tallies[d.system].add(d); err != nil {
				return err
			}
			if opt.PerQuery != nil {
				return opt.PerQuery(d.record(opt, ev))
			}
		}
		return nil
	})
	errs.Add(err)
	if holes > 0 {
		errs.Tally(diag.Unjudged(holes, len(holeQueries)), holes) // each counted once a trace
	}
	res := &Result{Options: opt, Positions: positions}
	if opt.Tokenizer != nil {
		res.Tokenizer = opt.Tokenizer.Name()
		if f, ok := opt.Tokenizer.(interface{ Err() error }); ok {
			errs.Add(f.Err()) // a count cut short (tokenize.Err)
		}
	}
	if errs.Len() == 0 {
		for _, t := range ordered(tallies) {
			sys, err := t.finish(ev, opt)
			if err != nil {
				errs.Add(err)
				continue
			}
			res.Systems = append(res.Systems, sys)
		}
	}
	errs.Sort()
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// evaluator prepares the Evaluator of the judged answerable queries (of
// the shard, under Options.Shard) and, under Options.Shard, their
// positions (Result.Positions).
func evaluator(in Input, opt Options) (*eval.Evaluator, map[string]int, error) {
	var positions map[string]int
	if opt.Shard != nil {
		positions = map[string]int{}
	}
	if s := in.Spilled; s != nil {
		ev, err := eval.NewPerQuery(s.JudgmentsFile, opt.Policy, opt.Metrics)
		if err != nil || positions == nil {
			return ev, positions, err
		}
		return ev, positions, s.eachJudged(func(q judgedQuery) error {
			if opt.Shard(q.id) {
				positions[q.id] = q.first
			}
			return nil
		})
	}
	answerable := func(q string) bool {
		t := in.Topics.Get(q)
		return t == nil || t.Answerable
	}
	judged := in.Judgments.Subset(answerable)
	if opt.Shard != nil {
		judged = judged.Subset(opt.Shard)
		for _, q := range judged.IDs() {
			positions[q] = judged.Query(q).FirstLine()
		}
	}
	ev, err := eval.New(judged, opt.Policy, opt.Metrics, nil)
	return ev, positions, err
}

// digest joins one trace and computes its contributions.
func (j *joiner) digest(t *trace.Trace, ev *eval.Evaluator) *digest {
	names := make([]string, len(t.Stages))
	var spanIDs []string
	for i, s := range t.Stages {
		names[i] = s.Name
		if s.SpanID != "" && spanIDs == nil {
			spanIDs = make([]string, len(t.Stages))
		}
		if spanIDs != nil {
			spanIDs[i] = s.SpanID
		}
	}
	v := j.join(t, names)
	if v == nil {
		return nil
	}
	minGrade := int32(j.opt.Policy.MinGrade)
	d := &digest{query: t.Query, system: t.System, file: t.File, line: t.Line, answerable: v.topic.Answerable,
		names: names, traceID: t.TraceID, spanIDs: spanIDs, judged: v.q != nil, pos: v.pos, latency: t.Latency, config: string(t.Config), turn: t.Turn}
	var invalid []invalidJudgment
	if d.answerable && d.judged {
		invalid = j.invalidJudgments(v)
	}
	for i := range names {
		d.lengths = append(d.lengths, len(v.stages[i]))
		if d.answerable && d.judged {
			grades := make([]int32, len(v.stages[i]))
			for k, p := range v.stages[i] {
				grades[k] = p.grade
			}
			d.rows = append(d.rows, ev.ScoreGrades(v.q, grades, gradesOf(invalid)))
		}
	}
	d.loss = lossOf(v, names, minGrade, invalid)
	d.facts, d.factLoss = factsOf(v, names)
	d.hasContext, d.budget, d.truncated = j.contextOf(v, names)
	d.validity = validityOf(v, names)
	d.answers.one(v, slices.Index(names, trace.ContextStage), minGrade)
	d.answers.nuggetsOf(v, j.in.Nuggets)
	d.search = searchOf(v, names, minGrade)
	if j.opt.Analyses != nil {
		a, err := j.analyze(v, names, d.budget)
		if err != nil {
			j.bad(t, "", err.Error(), "")
			return nil
		}
		d.analyses = a
	}
	return d
}

// place is where a trace was read.
type place struct {
	file string
	line int
}

func (p place) before(o place) bool { return p.file < o.file || p.file == o.file && p.line < o.line }

// traceRef is what a tally remembers of a trace: enough to name it in
// an error about its stages.
type traceRef struct {
	place
	query string
	names []string
}

// tally accumulates one system's traces in the order they arrive. What it
// holds grows with the queries only by their metric values, unless the
// result is to list everything (Options.Summary off).
type tally struct {
	system  string
	summary bool
	first   traceRef // the earliest trace read: its stages are the reference
	// stageSets holds, for every list of stage names seen, the earliest
	// traces that recorded it (up to diag.Max), to name them in an error.
	stageSets map[string][]traceRef
	rows      []*eval.Rows // per stage position
	// With Input.Spilled, the rows are kept in files instead, one per
	// stage position, at each query's position.
	spill    *Spilled
	rowFiles []*eval.RowFile
	temps    []*os.File
	// With Input.Spilled and no shard (whose partial result lists them),
	// the budgets' and latencies' values are kept in files too.
	spillValues bool
	budgetFile  *valueFile
	latFiles    map[string]*valueFile
	metrics     int
	bounds      bool
	notJudged   []string
	n           int
	total       []int // list lengths summed, per stage position
	longest     []int
	loss        Waterfall
	factLoss    Waterfall
	facts       []QueryFacts
	factLines   int
	covered     []exactSum // per stage: the share of each query's facts supported, summed
	context     ContextReport
	budgets     []float64
	validity    ValidityReport
	answers     answerTally
	lat         map[string][]float64
	configs     map[string]place
	analyses    analysesTally
	search      []SearchStep
	turns       map[int]*turnTally
}

func newTally(system string, opt Options, ev *eval.Evaluator, spill *Spilled) *tally {
	return &tally{system: system, summary: opt.Summary, lat: map[string][]float64{}, metrics: len(ev.Metrics()),
		bounds: ev.Policy().Unjudged == eval.UnjudgedBounds, stageSets: map[string][]traceRef{}, spill: spill,
		spillValues: spill != nil && opt.Shard == nil, latFiles: map[string]*valueFile{}}
}

// value adds x to a series: to *held, or to the file *file (created on
// first use) when the tally spills values.
func (t *tally) value(held *[]float64, file **valueFile, x float64) error {
	if !t.spillValues {
		*held = append(*held, x)
		return nil
	}
	if *file == nil {
		f, err := t.spill.temp()
		if err != nil {
			return err
		}
		t.temps = append(t.temps, f)
		*file = newValueFile(f)
	}
	return (*file).add(x)
}

// close removes the tally's temporary files.
func (t *tally) close() {
	for _, f := range t.temps {
		scratch.Remove(f)
	}
	t.temps = nil
}

// addStage makes room for one more stage position.
func (t *tally) addStage() error {
	if t.spill != nil {
		f, err := t.spill.temp()
		if err != nil {
			return err
		}
		t.temps = append(t.temps, f)
		t.rowFiles = append(t.rowFiles, eval.NewRowFile(f, t.metrics, t.bounds))
	} else {
		t.rows = append(t.rows, eval.NewRows(t.metrics, t.bounds))
	}
	t.total, t.longest = append(t.total, 0), append(t.longest, 0)
	t.covered = append(t.covered, exactSum{})
	return nil
}

// add takes one trace's contribution; the digest is not kept.
func (t *tally) add(d *digest) error {
	ref := traceRef{place: place{d.file, d.line}, query: d.query, names: d.names}
	if t.n == 0 || ref.before(t.first.place) {
		t.first = ref
	}
	t.remember(ref)
	t.n++
	for len(t.total) < len(d.names) {
		if err := t.addStage(); err != nil {
			return err
		}
	}
	for i, n := range d.lengths {
		t.total[i] += n
		t.longest[i] = max(t.longest[i], n)
	}
	switch {
	case !d.answerable:
	case !d.judged:
		t.notJudged = append(t.notJudged, d.query)
	case t.spill != nil:
		for i, row := range d.rows {
			if err := t.rowFiles[i].Put(d.pos, row); err != nil {
				return err
			}
		}
	default:
		for i, row := range d.rows {
			t.rows[i].Put(row)
		}
	}
	for _, l := range d.loss {
		t.lost(&t.loss, l)
	}
	for _, l := range d.factLoss {
		t.lost(&t.factLoss, l)
	}
	if d.facts != nil {
		t.factLines++
		for i, n := range d.facts.Supported {
			t.covered[i].add(float64(n) / float64(d.facts.Facts))
		}
		if t.summary {
			t.facts = keepFirst(t.facts, *d.facts, func(f QueryFacts) string { return f.Query })
		} else {
			t.facts = append(t.facts, *d.facts)
		}
	}
	t.context.add(d, t.summary)
	if d.budget != nil {
		if err := t.value(&t.budgets, &t.budgetFile, float64(d.budget.Total)); err != nil {
			return err
		}
	}
	t.validity.merge(d.validity)
	t.answers.merge(d.answers)
	for k, ms := range d.latency {
		held, file := t.lat[k], t.latFiles[k]
		if err := t.value(&held, &file, ms); err != nil {
			return err
		}
		if t.spillValues {
			t.latFiles[k] = file
		} else {
			t.lat[k] = held
		}
	}
	t.config(d.config, ref.place)
	t.addTurn(d.turn, d.rows)
	for _, s := range d.search {
		if t.summary {
			t.search = keepFirst(t.search, s, func(s SearchStep) string { return s.Query })
		} else {
			t.search = append(t.search, s)
		}
	}
	if d.analyses != nil {
		t.analyses.add(d.analyses)
	}
	return nil
}

// remember keeps ref among the earliest traces of its list of stages.
func (t *tally) remember(ref traceRef) {
	key := strings.Join(ref.names, "\x00")
	refs := t.stageSets[key]
	i, _ := slices.BinarySearchFunc(refs, ref, func(a, b traceRef) int {
		if a.before(b.place) {
			return -1
		}
		return 1
	})
	if i < diag.Max {
		refs = slices.Insert(refs, i, ref)
		t.stageSets[key] = refs[:min(len(refs), diag.Max)]
	}
}

// lost counts one piece of evidence in w, and keeps it unless the tally
// summarises, then only if it is among the first lost in query order.
func (t *tally) lost(w *Waterfall, l Lost) {
	w.count(l.Status)
	switch {
	case !t.summary:
		w.Lost = append(w.Lost, l)
	case l.Status != StatusDelivered:
		w.Lost = keepFirst(w.Lost, l, func(l Lost) string { return l.Query })
	}
}

// keepFirst inserts x into xs, sorted by query and then by arrival, and
// keeps the first listed.
func keepFirst[T any](xs []T, x T, query func(T) string) []T {
	q := query(x)
	i := sort.Search(len(xs), func(i int) bool { return query(xs[i]) > q })
	if i >= listed {
		return xs
	}
	xs = slices.Insert(xs, i, x)
	return xs[:min(len(xs), listed)]
}

// config remembers a configuration and where it was first seen.
func (t *tally) config(c string, at place) {
	if c == "" {
		return
	}
	if t.configs == nil {
		t.configs = map[string]place{}
	}
	if seen, ok := t.configs[c]; !ok || at.before(seen) {
		t.configs[c] = at
	}
}

// ordered lists the tallies by the place of their first trace.
func ordered(tallies map[string]*tally) []*tally {
	out := slices.Collect(maps.Values(tallies))
	slices.SortFunc(out, func(a, b *tally) int {
		if a.first.before(b.first.place) {
			return -1
		}
		return 1
	})
	return out
}

// finish checks that every trace recorded the first trace's stages, in its
// order, and computes the system's results, listings in query order.
func (t *tally) finish(ev *eval.Evaluator, opt Options) (*System, error) {
	names := t.first.names
	var mismatched []traceRef
	for _, key := range slices.Sorted(maps.Keys(t.stageSets)) {
		if refs := t.stageSets[key]; !slices.Equal(refs[0].names, names) {
			mismatched = append(mismatched, refs...)
		}
	}
	slices.SortFunc(mismatched, func(a, b traceRef) int {
		if a.before(b.place) {
			return -1
		}
		return 1
	})
	var errs diag.List
	for _, r := range mismatched {
		errs.Add(&diag.Error{File: r.file, Line: r.line, Query: r.query,
			Msg:  fmt.Sprintf("stages [%s] differ from [%s] in system %q's first trace (%s:%d)", strings.Join(r.names, ", "), strings.Join(names, ", "), t.system, t.first.file, t.first.line),
			Hint: "record every stage, in pipeline order, for every query, even when its list is empty"})
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	// Rows held are collected on every core, a stage each; spilled ones
	// are read back from their files one stage after the other.
	evals := make([]*eval.Result, len(names))
	failed := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		if t.spill != nil {
			evals[i], failed[i] = ev.CollectJudged(name, t.first.file, t.judged(i, opt.Shard), t.notJudged, !t.summary)
			continue
		}
		wg.Go(func() {
			evals[i], failed[i] = ev.CollectRows(name, t.first.file, t.rows[i], slices.Clone(t.notJudged), !t.summary)
		})
	}
	wg.Wait()
	for i, err := range failed {
		if err != nil {
			return nil, fmt.Errorf("system %q, stage %q: %w", t.system, names[i], err)
		}
	}
	return t.report(evals, opt)
}

// judged reads the spilled judged answerable queries (of the shard, when
// keep is set) with their rows at stage position i.
func (t *tally) judged(i int, keep func(string) bool) eval.JudgedQueries {
	return func(fn func(eval.Judged) error) error {
		return t.spill.eachJudged(func(q judgedQuery) error {
			if keep != nil && !keep(q.id) {
				return nil
			}
			row, ok, err := t.rowFiles[i].Get(q.pos, q.id)
			if err != nil {
				return err
			}
			return fn(eval.Judged{Query: q.id, Grades: q.grades, Row: row, Scored: ok})
		})
	}
}

// report computes the system's results from its stages' evaluations and
// the tally, listings in query order.
func (t *tally) report(evals []*eval.Result, opt Options) (*System, error) {
	names := t.first.names
	sys := &System{Name: t.system, Summary: t.summary, FactLines: t.factLines, ContextOnly: contextOnly(names)}
	for i, name := range names {
		st := &StageResult{Name: name, K: opt.Cutoffs[name], Eval: evals[i],
			MeanLength: float64(t.total[i]) / float64(t.n), MaxLength: t.longest[i], FactQueries: t.factLines}
		if t.factLines > 0 {
			st.FactCoverage = t.covered[i].value() / float64(t.factLines)
		}
		sys.Stages = append(sys.Stages, st)
	}
	sys.Loss, sys.FactLoss = t.loss, t.factLoss
	sys.Loss.Lost = byQuery(sys.Loss.Lost, func(l Lost) string { return l.Query })
	sys.FactLoss.Lost = byQuery(sys.FactLoss.Lost, func(l Lost) string { return l.Query })
	sys.Loss.order(names)
	sys.FactLoss.order(names)
	sys.Facts = byQuery(t.facts, func(f QueryFacts) string { return f.Query })
	sys.Search = byQuery(t.search, func(s SearchStep) string { return s.Query })
	if len(evals) > 0 {
		var metrics []string
		for _, m := range evals[0].Metrics {
			metrics = append(metrics, m.Name())
		}
		sys.Turns = t.turnSlices(names, metrics)
	}
	sys.Context = t.context.sorted()
	sys.Validity = t.validity.sorted()
	sys.Answers = t.answers.report()
	if t.spillValues {
		var err error
		if sys.Context.Tokens, err = t.budgetFile.percentiles("total"); err != nil {
			return nil, err
		}
		if sys.Latency, err = latencyFiles(t.latFiles, names); err != nil {
			return nil, err
		}
	} else {
		sys.Context.Tokens = percentiles("total", t.budgets)
		sys.Latency = latency(t.lat, names)
	}
	sys.Configs = slices.SortedFunc(maps.Keys(t.configs), func(a, b string) int {
		if t.configs[a].before(t.configs[b]) {
			return -1
		}
		return 1
	})
	if opt.Analyses != nil {
		unit := "words"
		if opt.Tokenizer != nil {
			unit = "tokens"
		}
		a, err := t.analyses.finish(*opt.Analyses, names, opt.Policy.MinGrade, unit)
		if err != nil {
			return nil, fmt.Errorf("system %q: %w", t.system, err)
		}
		sys.Analyses = a
	}
	if opt.Shard != nil {
		sys.Partial = t.partial(evals, opt)
	}
	return sys, nil
}

// byQuery sorts xs by query, keeping the order of each query's entries.
func byQuery[T any](xs []T, query func(T) string) []T {
	slices.SortStableFunc(xs, func(a, b T) int { return strings.Compare(query(a), query(b)) })
	return xs
}
