package eval

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/internal/digest"
)

// A Manifest records what a result was computed from, so that a comparison
// can be frozen: the sha256 of the judgments, topics, corpus and every
// run, trace or saved result read, the scoring policy and cutoffs, the
// query set, the tokenizer, the traces' configurations and the ragstat
// version. FrozenDiff names the fields on which two results disagree.

// Kinds of result a manifest describes.
const (
	KindEval    = "eval"
	KindCompare = "compare"
	KindStages  = "stages"
)

// Manifest is the record of one result's inputs and choices.
type Manifest struct {
	Kind      string       `json:"kind"`
	Version   string       `json:"ragstat_version"`
	Judgments *FileRecord  `json:"judgments,omitempty"`
	Topics    *FileRecord  `json:"topics,omitempty"`
	Corpus    *FileRecord  `json:"corpus,omitempty"`
	Inputs    []FileRecord `json:"inputs"`
	Policy    Policy       `json:"policy"`
	Metrics   []string     `json:"metrics"`
	Queries   QueryDigest  `json:"query_set"`
	Tokenizer string       `json:"tokenizer,omitempty"`
	// Configs maps a system to the configuration its traces carry.
	Configs map[string]json.RawMessage `json:"configs,omitempty"`
	// Allowed lists the frozen fields allowed to differ (compare's
	// allow_mismatch option), so the override stays on the record.
	Allowed []string `json:"allowed_mismatches,omitempty"`
	// Shard marks a partial result: one shard of an evaluation split by
	// query, to be merged with the others.
	Shard *Shard `json:"shard,omitempty"`
}

// Shard is what a partial result records of its place in the split.
type Shard struct {
	Index int    `json:"index"` // 0 <= Index < Count
	Count int    `json:"count"`
	Hash  string `json:"hash"` // how query ids are assigned to shards
	// Positions gives each of the shard's judged queries its place among
	// all judged queries, in the judgments' order, so that a merge restores
	// the order one run prints.
	Positions map[string]int `json:"judged_positions"`
	// FoldedJudgments counts the shard's judgments folded into their
	// document under the doc unit.
	FoldedJudgments int `json:"folded_judgments,omitempty"`
	// Values is the sha256 of the part's per-query values and query lists
	// (DigestResults; a comparison digests its partial sides alike): a merge
	// refuses a part that does not match it.
	Values string `json:"values_sha256"`
}

// FileRecord is one file read, identified by the digest of its bytes on
// disk.
type FileRecord struct {
	Role   string `json:"role"`             // judgments, topics, corpus, run, trace, result
	System string `json:"system,omitempty"` // the system it holds, for runs and traces
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	// Mapping is how a trace file in another format (OpenTelemetry,
	// LangSmith, Langfuse) became ragstat traces: every choice and count
	// of its import manifest.
	Mapping any `json:"mapping,omitempty"`
}

// QueryDigest identifies the evaluated queries: how many, and the sha256
// of their ids sorted and joined by newlines.
type QueryDigest struct {
	N      int    `json:"n"`
	SHA256 string `json:"sha256"`
}

// DigestQueries returns the QueryDigest of ids, in any order.
func DigestQueries(ids []string) QueryDigest {
	sorted := slices.Sorted(slices.Values(ids))
	sum := sha256.Sum256([]byte(strings.Join(sorted, "\n")))
	return QueryDigest{N: len(ids), SHA256: hex.EncodeToString(sum[:])}
}

// frozen lists the fields two results must agree on to be compared, in the
// order Diff reports them: the judgments (by digest), each policy field,
// the metrics with their cutoffs, and the query set.
var frozen = []string{
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

// FrozenDiff lists the frozen fields on which base and cand differ, in
// the order of Frozen.
func FrozenDiff(base, cand *Manifest) []Mismatch {
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

// CheckFrozen reports whether name is a frozen field, which a comparison
// may be allowed to find different.
func CheckFrozen(name string) error {
	if slices.Contains(frozen, name) {
		return nil
	}
	return fmt.Errorf("unknown field %q: the frozen fields are %s", name, strings.Join(frozen, ", "))
}

func short(sum string) string {
	if len(sum) > 16 {
		return sum[:16]
	}
	return sum
}

// DigestResults is the sha256 of what a partial result holds of each
// result's queries, as its JSON records them: each run's name, its rows in
// order (query, values, missing from the run, unjudged and folded counts),
// its excluded and ignored queries and its counts. A shard's partial result
// records it (Shard.Values), so that a merge refuses a part whose values or
// queries were changed after it was written.
func DigestResults(results []*Result) string {
	d := digest.New()
	d.Int(len(results))
	for _, r := range results {
		d.Str(r.Name)
		d.Int(len(r.Rows))
		for _, row := range r.Rows {
			d.Str(row.Query)
			d.Floats(row.Values)
			d.Floats(row.High)
			d.Bool(row.Missing)
			d.Int(row.Unjudged)
			d.Int(row.Folded)
		}
		d.Strs(r.Excluded)
		d.Strs(r.Ignored)
		d.Int(r.Unjudged)
		d.Int(r.Folded)
	}
	return d.Sum()
}
