package stagescmd

import (
	"cmp"
	"strings"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/stages"
	"github.com/ragstat/ragstat/stats"
)

// labels adds to rep what the judgments' LLM labels call for: the notes
// on the label choice, a warning for every system whose traces name the
// judge model, the agreement with people, and under ppi every stage's
// PPI++ means (stages.Correct, which makes rep's stage means the
// estimates) with the systems' rankings compared stage by stage.
func (r Run) labels(rep *report.Stages, src *settings.Sources, opt stages.Options) error {
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
