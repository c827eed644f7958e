package report

import (
	"io"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/flagname"
	"github.com/ragstat/ragstat/eval"
)

// jsonPolicy is the policy with the gain written out and the metrics.
type jsonPolicy struct {
	eval.Policy
	GainFormula string            `json:"gain_formula"`
	Metrics     []string          `json:"metrics"`
	Definitions map[string]string `json:"definitions,omitempty"`
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
	LLMLabels
	Notes []string `json:"notes,omitempty"`
	// Manifest freezes what the result was computed from, for compare.
	Manifest *eval.Manifest `json:"manifest"`
}

func (r *Eval) jsonPolicy() jsonPolicy {
	var names []string
	defs := map[string]string{}
	for _, m := range r.metrics() {
		names = append(names, m.Name())
		defs[m.Name()] = m.Definition(r.Policy.MetricPolicy(), flagname.Flag)
	}
	return jsonPolicy{Policy: r.Policy, GainFormula: r.Policy.Gain.Formula(), Metrics: names, Definitions: defs}
}

// jsonMetrics lists the metrics as a values object writes them: in the
// order of their names, as encoding/json orders a map's keys.
type jsonMetrics struct {
	keys  []string // quoted names with their colon
	index []int    // each key's position in a row's values
}

func (r *Eval) jsonMetrics() jsonMetrics {
	ms := r.metrics()
	order := make([]int, len(ms))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(ms[a].Name(), ms[b].Name()) })
	jm := jsonMetrics{index: order}
	for _, i := range order {
		jm.keys = append(jm.keys, jsonKey(ms[i].Name()))
	}
	return jm
}

// values writes one value per metric, or [low, high] under bounds.
func (j *jsonWriter) values(jm jsonMetrics, low, high []float64) {
	j.open('{')
	for k, key := range jm.keys {
		j.key(key)
		i := jm.index[k]
		if high == nil {
			j.float(low[i])
			continue
		}
		j.open('[')
		j.elem()
		j.float(low[i])
		j.elem()
		j.float(high[i])
		j.close(']')
	}
	j.close('}')
}

// query writes the members of one query's object.
func (j *jsonWriter) query(jm jsonMetrics, q *eval.Row) {
	j.key(`"query":`)
	j.string(q.Query)
	j.key(`"metrics":`)
	j.values(jm, q.Values, q.High)
	if q.Missing {
		j.key(`"missing_from_run":`)
		j.bool(true)
	}
	if q.Unjudged != 0 {
		j.key(`"unjudged":`)
		j.int(q.Unjudged)
	}
	if q.Folded != 0 {
		j.key(`"folded":`)
		j.int(q.Folded)
	}
}

// run writes one run's object: its means, then its queries one by one.
func (j *jsonWriter) run(jm jsonMetrics, res *eval.Result) {
	j.open('{')
	j.key(`"name":`)
	j.string(res.Name)
	j.key(`"file":`)
	j.string(res.File)
	j.key(`"num_queries":`)
	j.int(len(res.Rows))
	j.key(`"mean":`)
	j.values(jm, res.Mean, res.MeanHigh)
	if len(res.Rows) > 0 {
		j.key(`"queries":`)
		j.open('[')
		for i := range res.Rows {
			j.elem()
			j.open('{')
			j.query(jm, &res.Rows[i])
			j.close('}')
		}
		j.close(']')
	}
	if len(res.Excluded) > 0 {
		j.key(`"excluded_unanswerable":`)
		j.strings(res.Excluded)
	}
	if len(res.Ignored) > 0 {
		j.key(`"ignored_queries":`)
		j.strings(res.Ignored)
	}
	j.key(`"unjudged_returned":`)
	j.int(res.Unjudged)
	if res.Folded != 0 {
		j.key(`"folded_items":`)
		j.int(res.Folded)
	}
	j.close('}')
}

// jsonDoc writes the document: the policy, the inputs, every run with its
// means and then its queries as they are formatted, and the manifest.
func jsonDoc(w io.Writer, r *Eval) error {
	j, head, err := startDoc(w, r.Tool, r.Version, "", r.jsonPolicy(), r.Inputs, r.manifest(), r.LLM)
	if err != nil {
		return err
	}
	j.key(`"runs":`)
	jm := r.jsonMetrics()
	j.list(len(r.Results), func(i int) error { j.run(jm, r.Results[i]); return nil })
	return j.endDoc(r.LLM, r.Notes, head)
}

// startDoc starts a result document on w: tool, version, kind (when not
// empty), policy and inputs. The manifest and what the LLM labels add are
// marshaled too, with the policy and inputs, before anything is written,
// so that an error leaves nothing half written; endDoc writes them.
func startDoc(w io.Writer, tool, version, kind string, policy jsonPolicy, inputs []Input, m *eval.Manifest, llm *LLMLabels) (*jsonWriter, [][]byte, error) {
	j := &jsonWriter{writer: newWriter(w), indent: true}
	var labels LLMLabels
	if llm != nil {
		labels = *llm
	}
	head, err := j.marshalAll(1, policy, inputs, m, labels.PPI, labels.Agreement)
	if err != nil {
		return nil, nil, err
	}
	j.open('{')
	j.key(`"tool":`)
	j.string(tool)
	j.key(`"version":`)
	j.string(version)
	if kind != "" {
		j.key(`"kind":`)
		j.string(kind)
	}
	j.key(`"policy":`)
	j.Write(head[0])
	j.key(`"inputs":`)
	j.Write(head[1])
	return j, head, nil
}

// endDoc ends what startDoc started: what the LLM labels add, the notes,
// the manifest.
func (j *jsonWriter) endDoc(llm *LLMLabels, notes []string, head [][]byte) error {
	if llm != nil && len(llm.PPI) > 0 {
		j.key(`"ppi":`)
		j.Write(head[3])
	}
	if llm != nil && llm.Agreement != nil {
		j.key(`"agreement":`)
		j.Write(head[4])
	}
	if len(notes) > 0 {
		j.key(`"notes":`)
		j.strings(notes)
	}
	j.key(`"manifest":`)
	j.Write(head[2])
	j.close('}')
	j.WriteByte('\n')
	return j.Flush()
}

// manifest records the inputs by digest, the policy, the metrics and the
// first run's query set.
func (r *Eval) manifest() *eval.Manifest {
	m := &eval.Manifest{Kind: eval.KindEval, Version: r.Version, Policy: r.Policy}
	for _, in := range r.Inputs {
		f := eval.FileRecord{Role: in.Role, Path: in.Path, SHA256: in.SHA256}
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
		m.Queries = eval.DigestQueries(queryIDs(r.Results[0]))
	}
	if r.Shard != nil {
		sh := *r.Shard
		sh.Values = eval.DigestResults(r.Results)
		m.Shard = &sh
	}
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
	out := newWriter(w)
	j := &jsonWriter{writer: out}
	policy, err := j.marshal(r.jsonPolicy(), 0)
	if err != nil {
		return err
	}
	jm := r.jsonMetrics()
	for _, res := range r.Results {
		for i := range res.Rows {
			j.open('{')
			j.key(`"run":`)
			j.string(res.Name)
			j.query(jm, &res.Rows[i])
			j.close('}')
			out.WriteByte('\n')
		}
		j.open('{')
		j.key(`"run":`)
		j.string(res.Name)
		j.key(`"mean":`)
		j.values(jm, res.Mean, res.MeanHigh)
		j.key(`"num_queries":`)
		j.int(len(res.Rows))
		j.key(`"policy":`)
		out.Write(policy)
		j.close('}')
		out.WriteByte('\n')
	}
	return out.Flush()
}
