package report

import (
	"encoding/json"
	"io"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/manifest"
)

type jsonPolicy struct {
	MinGrade     int      `json:"min_grade"`
	Grades       string   `json:"grades"`
	Gain         string   `json:"gain"`
	GainFormula  string   `json:"gain_formula"`
	Unjudged     string   `json:"unjudged"`
	Unanswerable string   `json:"unanswerable"`
	Queries      string   `json:"queries"`
	Unit         string   `json:"unit"`
	Order        string   `json:"order"`
	Metrics      []string `json:"metrics"`
}

type jsonQuery struct {
	Query    string         `json:"query"`
	Metrics  map[string]any `json:"metrics"`
	Missing  bool           `json:"missing_from_run,omitempty"`
	Unjudged int            `json:"unjudged,omitempty"`
	Folded   int            `json:"folded,omitempty"`
}

type jsonRun struct {
	Name       string         `json:"name"`
	File       string         `json:"file"`
	NumQueries int            `json:"num_queries"`
	Mean       map[string]any `json:"mean"`
	Queries    []jsonQuery    `json:"queries,omitempty"`
	Excluded   []string       `json:"excluded_unanswerable,omitempty"`
	Ignored    []string       `json:"ignored_queries,omitempty"`
	Unjudged   int            `json:"unjudged_returned"`
	Folded     int            `json:"folded_items,omitempty"`
}

type jsonDocument struct {
	Tool    string     `json:"tool"`
	Version string     `json:"version"`
	Policy  jsonPolicy `json:"policy"`
	Inputs  []Input    `json:"inputs"`
	Runs    []jsonRun  `json:"runs"`
	Notes   []string   `json:"notes,omitempty"`
	// Manifest freezes what the result was computed from, for compare.
	Manifest *manifest.Manifest `json:"manifest"`
}

func (r *Eval) jsonPolicy() jsonPolicy {
	p := r.Policy
	var names []string
	for _, m := range r.metrics() {
		names = append(names, m.Name())
	}
	return jsonPolicy{MinGrade: p.MinGrade, Grades: p.Scale.String(), Gain: p.Gain.String(), GainFormula: p.Gain.Formula(),
		Unjudged: string(p.Unjudged), Unanswerable: string(p.Unanswerable), Queries: string(p.Queries),
		Unit: string(p.Unit), Order: p.Order, Metrics: names}
}

// values maps metric names to numbers, or to [low, high] under bounds.
func (r *Eval) values(low, high []float64) map[string]any {
	out := make(map[string]any, len(low))
	for i, m := range r.metrics() {
		if high != nil {
			out[m.Name()] = [2]float64{low[i], high[i]}
		} else {
			out[m.Name()] = low[i]
		}
	}
	return out
}

func (r *Eval) jsonRun(res *eval.Result) jsonRun {
	jr := jsonRun{Name: res.Name, File: res.File, NumQueries: len(res.Rows), Mean: r.values(res.Mean, res.MeanHigh),
		Excluded: res.Excluded, Ignored: res.Ignored, Unjudged: res.Unjudged, Folded: res.Folded}
	for _, q := range res.Rows {
		jr.Queries = append(jr.Queries, jsonQuery{Query: q.Query, Metrics: r.values(q.Values, q.High),
			Missing: q.Missing, Unjudged: q.Unjudged, Folded: q.Folded})
	}
	return jr
}

func jsonDoc(w io.Writer, r *Eval) error {
	doc := jsonDocument{Tool: r.Tool, Version: r.Version, Policy: r.jsonPolicy(), Inputs: r.Inputs, Notes: r.Notes,
		Manifest: r.manifest()}
	for _, res := range r.Results {
		doc.Runs = append(doc.Runs, r.jsonRun(res))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// manifest records the inputs by digest, the policy, the metrics and the
// first run's query set.
func (r *Eval) manifest() *manifest.Manifest {
	m := &manifest.Manifest{Kind: manifest.KindEval, Version: r.Version, Policy: manifest.FromEval(r.Policy)}
	for _, in := range r.Inputs {
		f := manifest.File{Role: in.Role, Path: in.Path, SHA256: in.SHA256}
		if in.Role == "judgments" {
			m.Judgments = &f
			continue
		}
		for _, res := range r.Results {
			if res.File == in.Path {
				f.System = res.Name
			}
		}
		m.Inputs = append(m.Inputs, f)
	}
	for _, met := range r.metrics() {
		m.Metrics = append(m.Metrics, met.Name())
	}
	if len(r.Results) > 0 {
		m.Queries = manifest.Queries(queryIDs(r.Results[0]))
	}
	m.Shard = r.Shard
	return m
}

func queryIDs(res *eval.Result) []string {
	ids := make([]string, len(res.Rows))
	for i, row := range res.Rows {
		ids[i] = row.Query
	}
	return ids
}

// jsonLines writes one object per query row, then one summary per run.
func jsonLines(w io.Writer, r *Eval) error {
	enc := json.NewEncoder(w)
	for _, res := range r.Results {
		jr := r.jsonRun(res)
		for _, q := range jr.Queries {
			if err := enc.Encode(struct {
				Run string `json:"run"`
				jsonQuery
			}{res.Name, q}); err != nil {
				return err
			}
		}
		if err := enc.Encode(struct {
			Run        string         `json:"run"`
			Mean       map[string]any `json:"mean"`
			NumQueries int            `json:"num_queries"`
			Policy     jsonPolicy     `json:"policy"`
		}{res.Name, jr.Mean, jr.NumQueries, r.jsonPolicy()}); err != nil {
			return err
		}
	}
	return nil
}
