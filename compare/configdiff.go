package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// configDiff compares two pipeline configurations (JSON objects). It
// returns the dotted paths of the leaves that differ, sorted, and the
// top-level components they belong to: a comparison that changes more than
// one component cannot attribute a difference to either. Arrays are compared
// whole. Either configuration may be empty (unknown).
func configDiff(base, cand json.RawMessage) (paths, components []string, err error) {
	a, err := flatten(base)
	if err != nil {
		return nil, nil, fmt.Errorf("base config: %w", err)
	}
	b, err := flatten(cand)
	if err != nil {
		return nil, nil, fmt.Errorf("candidate config: %w", err)
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			paths = append(paths, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			paths = append(paths, k)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		c, _, _ := strings.Cut(p, ".")
		if !slices.Contains(components, c) {
			components = append(components, c)
		}
	}
	return paths, components, nil
}

// flatten maps every leaf of a JSON object to its canonical encoding.
func flatten(raw json.RawMessage) (map[string]string, error) {
	out := map[string]string{}
	if len(bytes.TrimSpace(raw)) == 0 {
		return out, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not a JSON object")
	}
	walk("", obj, out)
	return out, nil
}

func walk(prefix string, obj map[string]any, out map[string]string) {
	for k, v := range obj {
		if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
			walk(prefix+k+".", sub, out)
			continue
		}
		enc, _ := json.Marshal(v)
		out[prefix+k] = string(enc)
	}
}
