package evalcmd

import (
	"fmt"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/parquetio"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/runs"
)

// correct evaluates the run of in again under people's grades (the audited
// queries, and every query as human-only bounds) and corrects res, its
// evaluation under the LLM-filled labels: res's means become the PPI++
// estimates, returned with their intervals.
func correct(c *eval.Correction, res *eval.Result, in *systems.Input, opt runs.Options) (*eval.PPIResult, error) {
	human, err := parquetio.Evaluate(c.Human, in.System(), in.File, opt)
	if err != nil {
		return nil, fmt.Errorf("labels ppi: the audited queries under people's grades: %w", err)
	}
	bounds, boundsErr := parquetio.Evaluate(c.Bounds, in.System(), in.File, opt)
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
func llmLabels(ev *settings.Evaluation, ppi []*eval.PPIResult) *report.LLMLabels {
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
