package stagescmd

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/stages"
	"github.com/ragstat/ragstat/stats"
	"github.com/ragstat/ragstat/trace"
)

// labels adds to rep what the judgments' LLM labels call for: the notes
// on the label choice, a warning for every system whose traces name the
// judge model, the agreement with people, and under ppi every stage's
// PPI++ means (correct, which makes rep's stage means the
// estimates) with the systems' rankings compared stage by stage.
func (r Run) labels(rep *report.Stages, src *settings.Sources, opt stages.Options) error {
	set := src.Labelled
	if set == nil {
		return nil
	}
	rep.Notes = append(rep.Notes, src.LabelNotes...)
	for _, sys := range rep.Result.Systems {
		for _, w := range report.JudgeWarnings(set.Models(), sys.Name, sys.Configs) {
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
		if ppi, err = correct(rep.Result, src.Input, src.Scan, opt, c); err != nil {
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

// correct makes res, an evaluation of the traces scan yields under the
// LLM-filled labels (the label choice ppi), say what people's grades
// would: it evaluates the traces again under people's grades on the
// audited queries and, for the human-only bounds, on every query with
// unjudged items as bounds, then estimates each system's stage means with
// the correction c (eval.Correction.Estimate). Each estimate names its run
// "system/stage"; every stage's means in res become the estimates.
func correct(res *stages.Result, in stages.Input, scan func(fn func(*trace.Trace) error) error, opt stages.Options, c *eval.Correction) ([]*eval.PPIResult, error) {
	opt.PerQuery, opt.Analyses, opt.Summary = nil, nil, false
	hopt := opt
	hopt.Shard = c.Audited
	human, err := stages.Evaluate(stages.Input{Judgments: c.Human.Judgments(), Topics: in.Topics, Corpus: in.Corpus}, scan, hopt)
	if err != nil {
		return nil, fmt.Errorf("labels ppi: the audited queries under people's grades: %w", err)
	}
	bopt := opt
	bopt.Policy = c.Bounds.Policy()
	bounds, boundsErr := stages.Evaluate(stages.Input{Judgments: c.Bounds.Judgments(), Topics: in.Topics, Corpus: in.Corpus}, scan, bopt)
	var out []*eval.PPIResult
	for _, sys := range res.Systems {
		for _, st := range sys.Stages {
			h := stageOf(human, sys.Name, st.Name)
			if h == nil {
				return nil, fmt.Errorf("labels ppi: %s/%s has no audited query under people's grades", sys.Name, st.Name)
			}
			var b *eval.Result
			if boundsErr == nil {
				if b = stageOf(bounds, sys.Name, st.Name); b == nil {
					boundsErr = fmt.Errorf("%s/%s is not in the evaluation under people's grades", sys.Name, st.Name)
				}
			}
			filled := *st.Eval
			filled.Name = sys.Name + "/" + st.Name
			p, err := c.Estimate(&filled, h, b, boundsErr)
			if err != nil {
				return nil, err
			}
			p.Apply(st.Eval)
			out = append(out, p)
		}
	}
	return out, nil
}

// stageOf is the evaluation of a system's stage in res, or nil.
func stageOf(res *stages.Result, system, stage string) *eval.Result {
	if res == nil {
		return nil
	}
	for _, s := range res.Systems {
		if s.Name != system {
			continue
		}
		for _, st := range s.Stages {
			if st.Name == stage {
				return st.Eval
			}
		}
	}
	return nil
}
