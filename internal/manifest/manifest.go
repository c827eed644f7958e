// Package manifest records what a result was computed from, so that a
// comparison can be frozen: the sha256 of the judgments, topics, corpus and
// every run, trace or saved result read, the scoring policy and cutoffs, the
// query set, the tokenizer, the traces' configurations and the ragstat
// version. Diff names the fields on which two results disagree, and
// ConfigDiff the fields on which two pipeline configurations do.
package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/eval"
)

// Kinds of result a manifest describes.
const (
	KindEval    = "eval"
	KindCompare = "compare"
	KindStages  = "stages"
)

// Manifest is the record of one result's inputs and choices.
type Manifest struct {
	Kind      string      `json:"kind"`
	Version   string      `json:"ragstat_version"`
	Judgments *File       `json:"judgments,omitempty"`
	Topics    *File       `json:"topics,omitempty"`
	Corpus    *File       `json:"corpus,omitempty"`
	Inputs    []File      `json:"inputs"`
	Policy    eval.Policy `json:"policy"`
	Metrics   []string    `json:"metrics"`
	Queries   QuerySet    `json:"query_set"`
	Tokenizer string      `json:"tokenizer,omitempty"`
	// Configs maps a system to the configuration its traces carry.
	Configs map[string]json.RawMessage `json:"configs,omitempty"`
	// Allowed lists the frozen fields allowed to differ (compare's
	// --allow-mismatch), so the override stays on the record.
	Allowed []string `json:"allowed_mismatches,omitempty"`
	// Shard marks a partial result: one shard of an evaluation split by
	// query (--shard), to be merged with the others.
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
	// document under --unit doc.
	FoldedJudgments int `json:"folded_judgments,omitempty"`
	// Values is the sha256 of the part's per-query values and query lists
	// (ResultsDigest; a comparison digests its partial sides alike): a merge
	// refuses a part that does not match it.
	Values string `json:"values_sha256"`
}

// File is one file read, identified by the digest of its bytes on disk.
type File struct {
	Role   string `json:"role"`             // judgments, topics, corpus, run, trace, result
	System string `json:"system,omitempty"` // the system it holds, for runs and traces
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	// Mapping is how a trace file in another format (OpenTelemetry,
	// LangSmith, Langfuse) became ragstat traces: every choice and count
	// of its import manifest.
	Mapping any `json:"mapping,omitempty"`
}

// QuerySet identifies the evaluated queries: how many, and the sha256 of
// their ids sorted and joined by newlines.
type QuerySet struct {
	N      int    `json:"n"`
	SHA256 string `json:"sha256"`
}

// Queries returns the QuerySet of ids, in any order.
func Queries(ids []string) QuerySet {
	sorted := slices.Sorted(slices.Values(ids))
	sum := sha256.Sum256([]byte(strings.Join(sorted, "\n")))
	return QuerySet{N: len(ids), SHA256: hex.EncodeToString(sum[:])}
}

// KindOf reads the kind of result a JSON document's manifest declares.
func KindOf(data []byte) (string, error) {
	var doc struct {
		Manifest *struct {
			Kind string `json:"kind"`
		} `json:"manifest"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return "", err
	}
	if doc.Manifest == nil || doc.Manifest.Kind == "" {
		return "", fmt.Errorf("no manifest: not a ragstat JSON result")
	}
	return doc.Manifest.Kind, nil
}
