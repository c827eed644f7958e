package demo

import (
	"fmt"

	"github.com/ragstat/ragstat/eval"
)

// Story reads the evaluation of A (base) and B (candidate) the way the
// source document does: which averages move, which hide a regression, and
// which queries the metrics cannot tell apart. Every sentence is built from
// the numbers, not stored.
func Story(a, b *eval.Result) []string {
	const recall, rr, ndcg = 0, 1, 2
	name := func(i int) string { return a.Metrics[i].Name() }
	var out []string
	if a.Mean[rr] == b.Mean[rr] {
		out = append(out, fmt.Sprintf("MRR@%d is %.4f for both runs: an MRR-only dashboard would report no change.", K, a.Mean[rr]))
	} else {
		out = append(out, fmt.Sprintf("MRR@%d moves from %.4f to %.4f.", K, a.Mean[rr], b.Mean[rr]))
	}
	out = append(out, fmt.Sprintf("Mean %s moves from %.4f to %.4f and mean %s from %.4f to %.4f.",
		name(recall), a.Mean[recall], b.Mean[recall], name(ndcg), a.Mean[ndcg], b.Mean[ndcg]))
	for i, ra := range a.Rows {
		rb := b.Rows[i]
		switch {
		case rb.Values[ndcg] < ra.Values[ndcg] && b.Mean[ndcg] > a.Mean[ndcg]:
			out = append(out, fmt.Sprintf("But on %q B's %s falls from %.4f to %.4f (%s %.4f -> %.4f, RR@%d %.4f -> %.4f): the mean improves while this query regresses. Keep per-query rows.",
				ra.Query, name(ndcg), ra.Values[ndcg], rb.Values[ndcg], name(recall), ra.Values[recall], rb.Values[recall], K, ra.Values[rr], rb.Values[rr]))
		case ra.Values[recall] == rb.Values[recall] && ra.Values[rr] == rb.Values[rr] && ra.Values[ndcg] != rb.Values[ndcg]:
			out = append(out, fmt.Sprintf("On %q recall and RR cannot tell the runs apart (%.4f, %.4f); only %s, which reads the grades, moves: %.4f -> %.4f.",
				ra.Query, ra.Values[recall], ra.Values[rr], name(ndcg), ra.Values[ndcg], rb.Values[ndcg]))
		}
	}
	return append(out, "Three hand-authored queries test the arithmetic; they are not a release sample.")
}

// Next lists commands worth trying after the demo.
var Next = []string{
	"ragstat demo --write ex/                                    # the example files, to try the commands below",
	"ragstat eval -j ex/qrels.jsonl -k 3 A=ex/A.jsonl B=ex/B.jsonl  # the same table from files",
	"ragstat eval -j ex/qrels.jsonl -m nDCG@3 --gain linear --format json ex/B.jsonl",
	"ragstat metrics                                             # every metric, its formula and policies",
	"ragstat trec-eval -q -m ndcg_cut.3 QRELS RUN                # a drop-in for trec_eval",
	"ragstat demo --generator 127.0.0.1:8089                     # a stand-in generator, for ragstat intervene (docs/diagnose.md)",
}
