package manifest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Frozen lists the fields two results must agree on to be compared, in the
// order Diff reports them: the judgments (by digest), each policy field,
// the metrics with their cutoffs, and the query set.
var Frozen = []string{
	"judgments", "policy.min_grade", "policy.grades", "policy.gain", "policy.unjudged",
	"policy.unanswerable", "policy.queries", "policy.unit", "policy.order", "policy.labels", "metrics", "query_set",
}

// Mismatch is one frozen field on which two manifests differ.
type Mismatch struct {
	Field      string `json:"field"`
	Base, Cand string
}

func (m Mismatch) String() string {
	return fmt.Sprintf("%s differs: %s (base) vs %s", m.Field, m.Base, m.Cand)
}

// Diff lists the frozen fields on which base and cand differ, in the order
// of Frozen.
func Diff(base, cand *Manifest) []Mismatch {
	a, b := base.frozen(), cand.frozen()
	var out []Mismatch
	for i, f := range a {
		if f[1] != b[i][1] {
			out = append(out, Mismatch{Field: f[0], Base: f[1], Cand: b[i][1]})
		}
	}
	return out
}

// frozen lists the frozen fields' values, in the order of Frozen.
func (m *Manifest) frozen() [][2]string {
	judged := "(none)"
	if m.Judgments != nil {
		judged = "sha256 " + short(m.Judgments.SHA256)
	}
	out := [][2]string{{"judgments", judged}}
	p := m.Policy
	out = append(out, [][2]string{
		{"policy.min_grade", strconv.Itoa(p.MinGrade)}, {"policy.grades", p.Scale.String()}, {"policy.gain", p.Gain.String()},
		{"policy.unjudged", string(p.Unjudged)}, {"policy.unanswerable", string(p.Unanswerable)},
		{"policy.queries", string(p.Queries)}, {"policy.unit", string(p.Unit)}, {"policy.order", string(p.Order)},
		{"policy.labels", cmp.Or(string(p.Labels), "(no LLM labels)")},
	}...)
	return append(out, [2]string{"metrics", strings.Join(m.Metrics, " ")},
		[2]string{"query_set", fmt.Sprintf("%d queries, sha256 %s", m.Queries.N, short(m.Queries.SHA256))})
}

// CheckField reports whether name is a frozen field, for --allow-mismatch.
func CheckField(name string) error {
	if slices.Contains(Frozen, name) {
		return nil
	}
	return fmt.Errorf("unknown field %q: the frozen fields are %s", name, strings.Join(Frozen, ", "))
}

func short(sum string) string {
	if len(sum) > 16 {
		return sum[:16]
	}
	return sum
}

// ConfigDiff compares two pipeline configurations (JSON objects). It
// returns the dotted paths of the leaves that differ, sorted, and the
// top-level components they belong to: a comparison that changes more than
// one component cannot attribute a difference to either. Arrays are compared
// whole. Either configuration may be empty (unknown).
func ConfigDiff(base, cand json.RawMessage) (paths, components []string, err error) {
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
