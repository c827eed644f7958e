package stages

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/diag"
	"github.com/ragstat/ragstat/eval"
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
	rows          []eval.Row // per stage; Query empty when the query has no judgments
	judged        bool
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
}

// Evaluate evaluates every system in traces. Problems in the data (a trace
// whose query has no topic, an unjudged item under --unjudged error, a
// truncation whose grade cannot be inherited, missing metadata, stages that
// differ between traces of one system) are returned together, up to
// diag.Max.
func Evaluate(in Input, traces Traces, opt Options) (*Result, error) {
	answerable := func(q string) bool {
		t := in.Topics.Get(q)
		return t == nil || t.Answerable
	}
	ev, err := eval.New(in.Judgments.Subset(answerable), opt.Policy, opt.Metrics, nil)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var errs diag.List
	var digests []*digest
	err = traces(func(t *trace.Trace) error {
		var local diag.List
		j := &joiner{in: in, opt: opt, errs: &local}
		d := j.digest(t, ev)
		mu.Lock()
		defer mu.Unlock()
		errs.Add(local.Err())
		if d != nil {
			digests = append(digests, d)
		}
		return nil
	})
	errs.Add(err)
	res := &Result{Options: opt}
	if opt.Tokenizer != nil {
		res.Tokenizer = opt.Tokenizer.Name()
	}
	if errs.Len() == 0 {
		for _, group := range bySystem(digests) {
			sys, err := aggregate(group, ev, opt.Cutoffs)
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

// digest joins one trace and computes its contributions.
func (j *joiner) digest(t *trace.Trace, ev *eval.Evaluator) *digest {
	names := make([]string, len(t.Stages))
	for i, s := range t.Stages {
		names[i] = s.Name
	}
	v := j.join(t, names)
	if v == nil {
		return nil
	}
	minGrade := int32(j.opt.Policy.MinGrade)
	d := &digest{query: t.Query, system: t.System, file: t.File, line: t.Line, answerable: v.topic.Answerable,
		names: names, judged: v.q != nil, latency: t.Latency, config: string(t.Config)}
	for i := range names {
		d.lengths = append(d.lengths, len(v.stages[i]))
		if d.answerable && d.judged {
			grades := make([]int32, len(v.stages[i]))
			for k, p := range v.stages[i] {
				grades[k] = p.grade
			}
			d.rows = append(d.rows, ev.ScoreGrades(t.Query, grades))
		}
	}
	d.loss = lossOf(v, names, minGrade)
	d.facts, d.factLoss = factsOf(v, names)
	d.hasContext, d.budget, d.truncated = j.contextOf(v, names)
	d.validity = validityOf(v, names)
	d.answers.one(v, slices.Index(names, trace.ContextStage), minGrade)
	return d
}

// bySystem groups digests by system (systems in order of first line), each
// group in query order.
func bySystem(ds []*digest) [][]*digest {
	slices.SortFunc(ds, func(a, b *digest) int {
		return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.line, b.line))
	})
	var order []string
	groups := map[string][]*digest{}
	for _, d := range ds {
		if _, ok := groups[d.system]; !ok {
			order = append(order, d.system)
		}
		groups[d.system] = append(groups[d.system], d)
	}
	out := make([][]*digest, len(order))
	for i, s := range order {
		g := groups[s]
		slices.SortStableFunc(g, func(a, b *digest) int { return cmp.Compare(a.query, b.query) })
		out[i] = g
	}
	return out
}

// aggregate combines one system's digests. Every trace of a system must
// record the same stages in the same order as its first trace.
func aggregate(ds []*digest, ev *eval.Evaluator, cutoffs map[string]int) (*System, error) {
	first := ds[0]
	for _, d := range ds {
		if d.line < first.line || d.file < first.file {
			first = d
		}
	}
	names := first.names
	var errs diag.List
	for _, d := range ds {
		if !slices.Equal(d.names, names) {
			errs.Add(&diag.Error{File: d.file, Line: d.line, Query: d.query,
				Msg:  fmt.Sprintf("stages [%s] differ from [%s] in system %q's first trace (%s:%d)", strings.Join(d.names, ", "), strings.Join(names, ", "), d.system, first.file, first.line),
				Hint: "record every stage, in pipeline order, for every query, even when its list is empty"})
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	sys := &System{Name: first.system}
	for i, name := range names {
		sr, err := stageResult(i, name, ds, ev, cutoffs[name])
		if err != nil {
			return nil, err
		}
		sys.Stages = append(sys.Stages, sr)
	}
	var budgets []float64
	var answers answerTally
	lat := map[string][]float64{}
	for _, d := range ds {
		for _, l := range d.loss {
			sys.Loss.add(l)
		}
		for _, l := range d.factLoss {
			sys.FactLoss.add(l)
		}
		if d.facts != nil {
			sys.Facts = append(sys.Facts, *d.facts)
		}
		sys.Context.add(d)
		if d.budget != nil {
			budgets = append(budgets, float64(d.budget.Total))
		}
		sys.Validity.merge(d.validity)
		answers.merge(d.answers)
		for k, ms := range d.latency {
			lat[k] = append(lat[k], ms)
		}
		if d.config != "" && !slices.Contains(sys.Configs, d.config) {
			sys.Configs = append(sys.Configs, d.config)
		}
	}
	sys.Loss.order(names)
	sys.FactLoss.order(names)
	factCoverage(sys.Facts, sys.Stages)
	sys.Context.Tokens = percentiles("total", budgets)
	sys.Answers = answers.report()
	sys.Latency = latency(lat, names)
	return sys, nil
}

// stageResult computes stage i's metrics over every answerable query.
func stageResult(i int, name string, ds []*digest, ev *eval.Evaluator, k int) (*StageResult, error) {
	sr := &StageResult{Name: name, K: k}
	rows := map[string]eval.Row{}
	var notJudged []string
	total := 0
	for _, d := range ds {
		total += d.lengths[i]
		sr.MaxLength = max(sr.MaxLength, d.lengths[i])
		switch {
		case !d.answerable:
		case !d.judged:
			notJudged = append(notJudged, d.query)
		default:
			rows[d.query] = d.rows[i]
		}
	}
	sr.MeanLength = float64(total) / float64(len(ds))
	res, err := ev.Collect(name, ds[0].file, rows, notJudged)
	if err != nil {
		return nil, fmt.Errorf("system %q, stage %q: %w", ds[0].system, name, err)
	}
	sr.Eval = res
	return sr, nil
}
