package report

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/jsonin"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/stages"
)

// Saved is a result of `ragstat eval --format json` read back: the
// evaluation, ready to render again, and the manifest it carried.
type Saved struct {
	*Eval
	Manifest *eval.Manifest
}

// Read reads back what `ragstat eval --format json` wrote, strictly: an
// unknown field, a value that is not a number (or a [low, high] pair under
// the bounds policy) or a document without a manifest is an error naming
// the file.
func Read(f *input.File) (*Saved, error) {
	var doc jsonDocument
	if err := jsonin.DecodeResult(f.Name, f.ReadAll, eval.KindEval, &doc, func() string { return kindOf(doc.Manifest) }); err != nil {
		return nil, err
	}
	r, err := doc.eval()
	if err != nil {
		return nil, &diag.Error{File: f.Name, Msg: err.Error()}
	}
	return &Saved{Eval: r, Manifest: doc.Manifest}, nil
}

// SavedStages is a result of `ragstat stages --format json` read back.
type SavedStages struct {
	*Stages
	Manifest *eval.Manifest
}

// ReadStages reads back what `ragstat stages --format json` wrote, as
// strictly as Read.
func ReadStages(f *input.File) (*SavedStages, error) {
	var doc stagesDoc
	if err := jsonin.DecodeResult(f.Name, f.ReadAll, eval.KindStages, &doc, func() string {
		if doc.Result == nil {
			return ""
		}
		return kindOf(doc.Manifest)
	}); err != nil {
		return nil, err
	}
	r, err := doc.stages()
	if err != nil {
		return nil, &diag.Error{File: f.Name, Msg: err.Error()}
	}
	return &SavedStages{Stages: r, Manifest: doc.Manifest}, nil
}

// stages rebuilds the evaluation the document records.
func (doc *stagesDoc) stages() (*Stages, error) {
	ev, err := (&jsonDocument{Tool: doc.Tool, Version: doc.Version, Policy: doc.Policy, Inputs: doc.Inputs}).eval()
	if err != nil {
		return nil, err
	}
	ms, err := metric.ParseAllLike(doc.Policy.Metrics, doc.Policy.Like)
	if err != nil {
		return nil, err
	}
	r := &Stages{Tool: doc.Tool, Version: doc.Version, Policy: ev.Policy, Inputs: doc.Inputs, Notes: doc.Notes,
		Result: &stages.Result{Tokenizer: doc.Result.Tokenizer}}
	if labels := doc.LLMLabels; !labels.empty() {
		r.LLM = &labels
	}
	for _, js := range doc.Result.Systems {
		if js.System == nil {
			return nil, fmt.Errorf("a system has no fields")
		}
		sys := js.System
		sys.Stages = nil
		for _, st := range js.Stages {
			res, err := st.Run.result(ms, doc.Inputs)
			if err != nil {
				return nil, fmt.Errorf("system %q, stage %q: %w", sys.Name, st.Name, err)
			}
			st.StageResult.Eval = res
			sys.Stages = append(sys.Stages, st.StageResult)
		}
		r.Result.Systems = append(r.Result.Systems, sys)
	}
	return r, nil
}

// eval rebuilds the evaluation the document records.
func (doc *jsonDocument) eval() (*Eval, error) {
	p := doc.Policy
	policy := p.Policy
	if err := policy.Validate(); err != nil {
		return nil, err
	}
	if p.GainFormula != policy.Gain.Formula() {
		return nil, fmt.Errorf("policy: gain_formula %q is not the formula of gain %s", p.GainFormula, policy.Gain)
	}
	ms, err := metric.ParseAllLike(p.Metrics, policy.Like)
	if err != nil {
		return nil, err
	}
	r := &Eval{Tool: doc.Tool, Version: doc.Version, Policy: policy, Inputs: doc.Inputs, Notes: doc.Notes, PerQuery: true}
	for _, jr := range doc.Runs {
		res, err := jr.result(ms, r.Inputs)
		if err != nil {
			return nil, fmt.Errorf("run %q: %w", jr.Name, err)
		}
		r.Results = append(r.Results, res)
	}
	if labels := doc.LLMLabels; !labels.empty() {
		r.LLM = &labels
	}
	return r, nil
}

func (jr *jsonRun) result(ms []metric.Metric, inputs []Input) (*eval.Result, error) {
	res := &eval.Result{Name: jr.Name, File: jr.File, Metrics: ms, Excluded: jr.Excluded, Ignored: jr.Ignored,
		Unjudged: jr.Unjudged, Folded: jr.Folded}
	for _, in := range inputs {
		if in.Role == "run" && in.Path == jr.File {
			res.Format = in.Format
		}
	}
	var err error
	if res.Mean, res.MeanHigh, err = numbers(jr.Mean, ms); err != nil {
		return nil, fmt.Errorf("mean: %w", err)
	}
	for _, q := range jr.Queries {
		row := eval.Row{Query: q.Query, Missing: q.Missing, Unjudged: q.Unjudged, Folded: q.Folded}
		if row.Values, row.High, err = numbers(q.Metrics, ms); err != nil {
			return nil, fmt.Errorf("query %q: %w", q.Query, err)
		}
		res.Rows = append(res.Rows, row)
	}
	return res, nil
}

// numbers reads one value per metric: a number, or a [low, high] pair.
func numbers(values map[string]any, ms []metric.Metric) (low, high []float64, err error) {
	if len(values) != len(ms) {
		return nil, nil, fmt.Errorf("%d values for %d metrics", len(values), len(ms))
	}
	for _, m := range ms {
		lo, hi, pair, err := number(values[m.Name()])
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", m.Name(), err)
		}
		low = append(low, lo)
		if pair {
			high = append(high, hi)
		}
	}
	if high != nil && len(high) != len(low) {
		return nil, nil, fmt.Errorf("some values are [low, high] pairs and some are not")
	}
	return low, high, nil
}

func number(v any) (lo, hi float64, pair bool, err error) {
	switch v := v.(type) {
	case nil: // an undefined value
		return math.NaN(), 0, false, nil
	case json.Number:
		lo, err = v.Float64()
		return lo, 0, false, err
	case []any:
		if len(v) == 2 {
			lo, _, p1, err1 := number(v[0])
			hi, _, p2, err2 := number(v[1])
			if err1 == nil && err2 == nil && !p1 && !p2 {
				return lo, hi, true, nil
			}
		}
	}
	return 0, 0, false, fmt.Errorf("expected a number or a [low, high] pair, found %v", v)
}

// kindOf is the kind m declares, "" for none.
func kindOf(m *eval.Manifest) string {
	if m == nil {
		return ""
	}
	return m.Kind
}

// KindOf reads the kind of result a saved JSON document's manifest
// declares; "" when it has none.
func KindOf(data []byte) (string, error) {
	var doc struct {
		Manifest struct {
			Kind string `json:"kind"`
		} `json:"manifest"`
	}
	err := json.Unmarshal(data, &doc)
	return doc.Manifest.Kind, err
}
