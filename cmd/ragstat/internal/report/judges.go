package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

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
