package treceval

// Counting measures: the run's name and sizes of the retrieved and judged
// sets.

func init() {
	register(
		&measure{name: "runid", value: runIDValue, calc: calcNothing,
			doc: "Name of the run: the tag column of the run file's last line."},
		&measure{name: "num_q", value: numQValue, calc: calcNothing,
			doc: "Number of queries evaluated (with -c: every judged query)."},
		&measure{name: "num_ret", value: countValue, calc: calcCount(func(r *resRels) int { return r.numRet }),
			doc: "Number of documents retrieved (after -M and -J). Summary: the sum."},
		&measure{name: "num_rel", value: relCountValue, calc: calcCount(func(r *resRels) int { return r.numRel }),
			doc: "Number of relevant documents (grade >= -l). Summary: the sum; with -c, every judgment above 0 of every query."},
		&measure{name: "num_rel_ret", value: countValue, calc: calcCount(func(r *resRels) int { return r.numRelRet }),
			doc: "Number of relevant documents retrieved. Summary: the sum."},
		&measure{name: "num_nonrel_judged_ret", value: countValue,
			calc: calcCount(func(r *resRels) int { return r.numRet - r.numNonPool - r.numUnjPool - r.numRelRet }),
			doc:  "Number of retrieved documents judged non-relevant. Summary: the sum."},
	)
}

// calcNothing is the calculation of measures printed from run-wide facts.
func calcNothing(*queryEval, *instance) error { return nil }

// calcCount stores one count of the ranking.
func calcCount(f func(*resRels) int) func(*queryEval, *instance) error {
	return func(q *queryEval, in *instance) error {
		q.vals[in.off] = float64(f(&q.rr))
		return nil
	}
}
