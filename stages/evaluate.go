package stages

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/ragstat/ragstat/diag"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/trace"
)

// Evaluate evaluates every system of in.Traces. Problems in the data (a
// trace whose query has no topic, an unjudged item under --unjudged error,
// a truncation whose grade cannot be inherited, missing metadata) are
// returned together, up to diag.Max.
func Evaluate(in Input, opt Options) (*Result, error) {
	var errs diag.List
	j := &joiner{in: in, opt: opt, errs: &errs}
	answerable := func(q string) bool {
		t := in.Topics.Get(q)
		return t == nil || t.Answerable
	}
	ev, err := eval.New(in.Judgments.Subset(answerable), opt.Policy, opt.Metrics, nil)
	if err != nil {
		return nil, err
	}
	res := &Result{Options: opt}
	if opt.Tokenizer != nil {
		res.Tokenizer = opt.Tokenizer.Name()
	}
	for _, group := range bySystem(in.Traces) {
		names := stageNames(group)
		views := make([]*view, 0, len(group))
		for _, t := range group {
			if v := j.join(t, names); v != nil {
				views = append(views, v)
			}
			if errs.Full() {
				break
			}
		}
		if errs.Len() > 0 {
			continue
		}
		sys, err := j.system(group[0].System, names, views, ev)
		if err != nil {
			errs.Add(err)
			continue
		}
		res.Systems = append(res.Systems, sys)
	}
	errs.Sort()
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// bySystem groups traces by system, in order of first appearance.
func bySystem(ts []*trace.Trace) [][]*trace.Trace {
	var order []string
	groups := map[string][]*trace.Trace{}
	for _, t := range ts {
		if _, ok := groups[t.System]; !ok {
			order = append(order, t.System)
		}
		groups[t.System] = append(groups[t.System], t)
	}
	out := make([][]*trace.Trace, len(order))
	for i, s := range order {
		out[i] = groups[s]
	}
	return out
}

// stageNames lists the stages of a system in pipeline order: the order of
// the first trace, then any stage another trace adds.
func stageNames(ts []*trace.Trace) []string {
	var names []string
	for _, t := range ts {
		for _, s := range t.Stages {
			if !slices.Contains(names, s.Name) {
				names = append(names, s.Name)
			}
		}
	}
	return names
}

// system evaluates one system's joined traces.
func (j *joiner) system(name string, names []string, views []*view, ev *eval.Evaluator) (*System, error) {
	sys := &System{Name: name}
	for i, stage := range names {
		sr, err := j.stage(i, stage, views, ev)
		if err != nil {
			return nil, err
		}
		sys.Stages = append(sys.Stages, sr)
	}
	sys.Loss = evidenceLoss(views, names, int32(j.opt.Policy.MinGrade))
	sys.Facts, sys.FactLoss = factCoverage(views, names, sys.Stages)
	sys.Context = j.context(views, names)
	sys.Validity = validity(views, names)
	sys.Answers = answers(views, names, int32(j.opt.Policy.MinGrade))
	sys.Latency = latency(views, names)
	sys.Configs = configs(views)
	return sys, nil
}

// stage computes the metrics of stage i over every answerable query.
func (j *joiner) stage(i int, name string, views []*view, ev *eval.Evaluator) (*StageResult, error) {
	sr := &StageResult{Name: name, K: j.opt.Cutoffs[name]}
	rows := map[string]eval.Row{}
	var notJudged []string
	total := 0
	for _, v := range views {
		if !v.topic.Answerable {
			continue
		}
		list := v.stages[i]
		total += len(list)
		sr.MaxLength = max(sr.MaxLength, len(list))
		if v.q == nil {
			notJudged = append(notJudged, v.t.Query)
			continue
		}
		grades := make([]int32, len(list))
		for k, p := range list {
			grades[k] = p.grade
		}
		rows[v.t.Query] = ev.ScoreGrades(v.t.Query, grades)
	}
	if len(views) > 0 {
		sr.MeanLength = float64(total) / float64(len(views))
	}
	res, err := ev.Collect(name, views[0].t.File, rows, notJudged)
	if err != nil {
		return nil, fmt.Errorf("system %q, stage %q: %w", views[0].t.System, name, err)
	}
	sr.Eval = res
	return sr, nil
}

// configs lists the distinct configurations recorded, in order.
func configs(views []*view) []string {
	var out []string
	for _, v := range views {
		if c := string(v.t.Config); c != "" && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// byQuery orders views by query id, for stable listings.
func byQuery(views []*view) []*view {
	out := slices.Clone(views)
	slices.SortFunc(out, func(a, b *view) int { return cmp.Compare(a.t.Query, b.t.Query) })
	return out
}
