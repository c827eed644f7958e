package parquetio

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/internal/systems"
	"github.com/ragstat/ragstat/report"
	"github.com/ragstat/ragstat/runs"
	"github.com/ragstat/ragstat/stages"
	"github.com/ragstat/ragstat/stats"
)

// correct evaluates the run of in again under people's grades (the audited
// queries, and every query as human-only bounds) and corrects res, its
// evaluation under the LLM-filled labels: res's means become the PPI++
// estimates, returned with their intervals.
func correct(c *eval.Correction, res *eval.Result, in *systems.Input, opt runs.Options) (*eval.PPIResult, error) {
	human, err := Evaluate(c.Human, in.System(), in.File, opt)
	if err != nil {
		return nil, fmt.Errorf("labels ppi: the audited queries under people's grades: %w", err)
	}
	bounds, boundsErr := Evaluate(c.Bounds, in.System(), in.File, opt)
	p, err := c.Estimate(res, human, bounds, boundsErr)
	if err != nil {
		return nil, err
	}
	p.Apply(res)
	return p, nil
}

// llmLabels is what rep prints of the LLM labels: the runs' PPI++ means
// (with the systems' rankings compared when there are three or more) and
// the agreement; nil when the judgments hold no LLM label.
func llmLabels(ev *eval.Evaluation, ppi []*eval.PPIResult) *report.LLMLabels {
	if ev.Agreement == nil && len(ppi) == 0 {
		return nil
	}
	l := &report.LLMLabels{PPI: ppi}
	if ev.Agreement != nil {
		a := *ev.Agreement
		a.Rankings = eval.RankAgreements(ppi)
		l.Agreement = &a
	}
	return l
}

// labels adds to rep what the judgments' LLM labels call for: the notes
// on the label choice, a warning for every system whose traces name the
// judge model, the agreement with people, and under ppi every stage's
// PPI++ means (stages.Correct, which makes rep's stage means the
// estimates) with the systems' rankings compared stage by stage.
func (r StagesRun) labels(rep *report.Stages, src *stages.Sources, opt stages.Options) error {
	set := src.Labelled
	if set == nil {
		return nil
	}
	rep.Notes = append(rep.Notes, src.LabelNotes...)
	for _, sys := range rep.Result.Systems {
		for _, w := range stages.JudgeWarnings(set.Models(), sys.Name, sys.Configs) {
			rep.Notes = append(rep.Notes, "warning: "+w)
		}
	}
	agreement, err := eval.Agree(set, opt.Policy.Scale)
	if err != nil {
		return err
	}
	var ppi []*eval.PPIResult
	if opt.Policy.Labels == eval.LabelsPPI {
		c, err := eval.NewCorrection(set, opt.Policy, opt.Metrics, nil, cmp.Or(r.Confidence, stats.DefaultLevel))
		if err != nil {
			return err
		}
		rep.Notes = append(rep.Notes, c.Notes()...)
		if ppi, err = stages.Correct(rep.Result, src.Input, src.Scan, opt, c); err != nil {
			return err
		}
		if agreement != nil {
			agreement.Rankings = stageRankings(ppi)
		}
	}
	if agreement != nil || len(ppi) > 0 {
		rep.LLM = &report.LLMLabels{PPI: ppi, Agreement: agreement}
	}
	return nil
}

// stageRankings compares the systems' rankings stage by stage: the
// estimates of each stage ("system/stage" runs) compared as eval compares
// runs, the metric named "stage/metric".
func stageRankings(ppi []*eval.PPIResult) []eval.RankAgreement {
	byStage := map[string][]*eval.PPIResult{}
	var order []string
	for _, p := range ppi {
		stage := p.Run[strings.LastIndexByte(p.Run, '/')+1:]
		if byStage[stage] == nil {
			order = append(order, stage)
		}
		byStage[stage] = append(byStage[stage], p)
	}
	var out []eval.RankAgreement
	for _, stage := range order {
		for _, ra := range eval.RankAgreements(byStage[stage]) {
			ra.Metric = stage + "/" + ra.Metric
			out = append(out, ra)
		}
	}
	return out
}
