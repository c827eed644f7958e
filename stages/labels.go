package stages

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/trace"
)

// Correct makes res, an evaluation of the traces scan yields under the
// LLM-filled labels (the label choice ppi), say what people's grades
// would: it evaluates the traces again under people's grades on the
// audited queries and, for the human-only bounds, on every query with
// unjudged items as bounds, then estimates each system's stage means with
// the correction c (eval.Correction.Estimate). Each estimate names its run
// "system/stage"; every stage's means in res become the estimates.
func Correct(res *Result, in Input, scan func(fn func(*trace.Trace) error) error, opt Options, c *eval.Correction) ([]*eval.PPIResult, error) {
	opt.PerQuery, opt.Analyses, opt.Summary = nil, nil, false
	hopt := opt
	hopt.Shard = c.Audited
	human, err := Evaluate(Input{Judgments: c.Human.Judgments(), Topics: in.Topics, Corpus: in.Corpus}, scan, hopt)
	if err != nil {
		return nil, fmt.Errorf("labels ppi: the audited queries under people's grades: %w", err)
	}
	bopt := opt
	bopt.Policy = c.Bounds.Policy()
	bounds, boundsErr := Evaluate(Input{Judgments: c.Bounds.Judgments(), Topics: in.Topics, Corpus: in.Corpus}, scan, bopt)
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
func stageOf(res *Result, system, stage string) *eval.Result {
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

// JudgeWarnings says, one line a system, where the configuration a
// system's traces record names one of the judge models that gave the LLM
// labels: a system reranked, or answered, by its own judge is scored up by
// it (Clarke and Dietz 2024). A configuration key names a model when it is
// "model" or holds "model", "reranker" or "generator" ("reranker_model",
// "generator"); two names match when they are equal but for case and a
// provider prefix ("openai/"), or one is the other with a version after
// "-", ":" or "@" ("gpt-4o-2024-08-06" is "gpt-4o").
func JudgeWarnings(judges []string, system string, configs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range configs {
		var fields map[string]any
		if json.Unmarshal([]byte(c), &fields) != nil {
			continue
		}
		for _, key := range slices.Sorted(func(yield func(string) bool) {
			for k := range fields {
				if !yield(k) {
					return
				}
			}
		}) {
			v, ok := fields[key].(string)
			k := strings.ToLower(key)
			if !ok || !(strings.Contains(k, "model") || strings.Contains(k, "reranker") || strings.Contains(k, "generator")) {
				continue
			}
			for _, j := range judges {
				if sameModel(v, j) && !seen[key+"\x00"+v] {
					seen[key+"\x00"+v] = true
					out = append(out, fmt.Sprintf("%s: its traces' config %q is %q, the judge model that gave the LLM labels (%s): a system reranked or answered by its judge is scored up by it (Clarke and Dietz 2024); judge with another model, or audit more",
						system, key, v, j))
				}
			}
		}
	}
	return out
}

// sameModel reports whether two model names name one model, as
// JudgeWarnings says.
func sameModel(a, b string) bool {
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		if i := strings.LastIndexByte(s, '/'); i >= 0 {
			s = s[i+1:]
		}
		return s
	}
	a, b = norm(a), norm(b)
	if a == "" || b == "" {
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || strings.HasPrefix(b, a) && strings.ContainsRune("-:@", rune(b[len(a)]))
}
