package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/internal/longtest"
)

// simQueries, simPool and simDepth size one synthetic evaluation: each
// query has a pool of judged documents, and the system returns the first
// simDepth of them in a random order of its own.
const (
	simQueries = 200
	simPool    = 20
	simDepth   = 10
	simGrades  = 4
)

// simQuery draws one query's true grades: a per-query relevance rate
// uniform in [0, 0.6], so queries differ in difficulty, and each pooled
// document relevant at that rate with a grade 1..3, else 0. With
// needRelevant it draws again until the pool holds a relevant document, as
// the topics of a test collection do; without it about 8% of the queries
// have none.
func simQuery(r *rand.Rand, grades []int, needRelevant bool) {
	rate := r.Float64() * 0.6
	for {
		relevant := false
		for i := range grades {
			grades[i] = 0
			if r.Float64() < rate {
				grades[i] = 1 + r.IntN(simGrades-1)
				relevant = true
			}
		}
		if relevant || !needRelevant {
			return
		}
	}
}

// simJudge grades like the truth with probability agree, else gives a
// uniformly random other grade.
func simJudge(r *rand.Rand, truth, out []int, agree float64) {
	for i, g := range truth {
		out[i] = g
		if r.Float64() >= agree {
			out[i] = (g + 1 + r.IntN(simGrades-1)) % simGrades
		}
	}
}

// simNDCG is nDCG@simDepth of the ranking that returns the pool's first
// simDepth documents in order, with the ideal ranking over the whole pool
// and gain 2^grade − 1; 0 when the pool holds nothing relevant.
func simNDCG(grades, scratch []int) float64 {
	dcg := func(g []int) float64 {
		s := 0.0
		for i, x := range g[:simDepth] {
			s += (math.Exp2(float64(x)) - 1) / math.Log2(float64(i+2))
		}
		return s
	}
	copy(scratch, grades)
	slices.Sort(scratch)
	slices.Reverse(scratch)
	ideal := dcg(scratch)
	if ideal == 0 {
		return 0
	}
	return dcg(grades) / ideal
}

// simCell is the outcome of many synthetic evaluations at one agreement
// and audit size.
type simCell struct {
	covered, humanCovered, plugInCovered, paperCovered int
	width, humanWidth, lambda, filledBias              float64
}

// runSimCell runs evals synthetic evaluations: true grades, a judge's
// grades, the per-query nDCG under each, a uniform audit of the queries,
// and PPI at 95%. It counts how often the interval holds the mean of the
// true nDCG over the queries. Two simpler intervals at the same λ and the
// normal quantile are counted beside it, to show what the jackknife and
// Student's t correct: plugInCovered for the variance (1 − n/N)·s²(d)/n,
// d = Human − λ·FilledAudited, and paperCovered for the variance of the
// paper's setup, s²(d)/n + λ²·s²(Filled)/N, which treats Filled as a
// sample independent of the audit.
func runSimCell(seed uint64, agree float64, audit, evals int, needRelevant bool) simCell {
	r := rand.New(rand.NewPCG(seed, uint64(audit)<<32|uint64(agree*1000)))
	var c simCell
	truth, judged, scratch := make([]int, simPool), make([]int, simPool), make([]int, simPool)
	trueV, filled := make([]float64, simQueries), make([]float64, simQueries)
	in := PPIInput{Filled: filled, Human: make([]float64, audit), FilledAudited: make([]float64, audit)}
	d := make([]float64, audit)
	for range evals {
		for q := range simQueries {
			simQuery(r, truth, needRelevant)
			simJudge(r, truth, judged, agree)
			trueV[q] = simNDCG(truth, scratch)
			filled[q] = simNDCG(judged, scratch)
		}
		theta := mean(trueV)
		for i, q := range r.Perm(simQueries)[:audit] {
			in.Human[i], in.FilledAudited[i] = trueV[q], filled[q]
		}
		est, err := PPI(in, 0.95)
		if err != nil {
			panic(err)
		}
		if est.Lo <= theta && theta <= est.Hi {
			c.covered++
		}
		if est.HumanLo <= theta && theta <= est.HumanHi {
			c.humanCovered++
		}
		for i, h := range in.Human {
			d[i] = h - est.Lambda*in.FilledAudited[i]
		}
		err2 := (est.Mean - theta) * (est.Mean - theta) / (z975 * z975)
		v := squaredDeviations(d, mean(d)) / float64(audit-1) / float64(audit)
		if err2 <= (1-float64(audit)/simQueries)*v {
			c.plugInCovered++
		}
		if err2 <= v+est.Lambda*est.Lambda*squaredDeviations(filled, est.FilledMean)/(simQueries-1)/simQueries {
			c.paperCovered++
		}
		c.width += est.Hi - est.Lo
		c.humanWidth += est.HumanHi - est.HumanLo
		c.lambda += est.Lambda
		c.filledBias += est.FilledMean - theta
	}
	e := float64(evals)
	c.width /= e
	c.humanWidth /= e
	c.lambda /= e
	c.filledBias /= e
	return c
}

// TestPPISimulation is the coverage study of PPI: 2,000 synthetic
// evaluations per cell in the long suite (200 otherwise), at judge
// agreements 0.7, 0.8 and 0.9 and audits of 20 and 50 of 200 queries, once
// with a relevant document in every query's pool and once with about 8% of
// the queries without one (their nDCG jumps between 0 and large values
// under the judge's errors, the hard case for a normal approximation). The
// 95% interval must hold the true mean in 94–96% of the evaluations
// (90–99% on the short run's 200), and at agreement 0.9 be narrower on
// average than the human-only interval from the same audits. The tables it
// logs are the ones in bench/README.md.
func TestPPISimulation(t *testing.T) {
	evals := longtest.Pick(200, 2000)
	lo, hi := longtest.Pick(0.90, 0.94), longtest.Pick(0.99, 0.96)
	for _, needRelevant := range []bool{true, false} {
		var table strings.Builder
		fmt.Fprintf(&table, "| agreement | audited | PPI coverage | human-only coverage | PPI width | human-only width | width ratio | mean λ | LLM-filled bias | plug-in normal coverage | paper's variance coverage |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, agree := range []float64{0.7, 0.8, 0.9} {
			for _, audit := range []int{20, 50} {
				c := runSimCell(27, agree, audit, evals, needRelevant)
				cov := float64(c.covered) / float64(evals)
				fmt.Fprintf(&table, "| %.1f | %d | %.1f%% | %.1f%% | %.4f | %.4f | %.2f | %.2f | %+.4f | %.1f%% | %.1f%% |\n",
					agree, audit, 100*cov, 100*float64(c.humanCovered)/float64(evals), c.width, c.humanWidth,
					c.width/c.humanWidth, c.lambda, c.filledBias,
					100*float64(c.plugInCovered)/float64(evals), 100*float64(c.paperCovered)/float64(evals))
				if cov < lo || cov > hi {
					t.Errorf("agreement %v, audit %d: PPI covers the true mean in %.1f%% of %d evaluations, want %.0f–%.0f%%", agree, audit, 100*cov, evals, 100*lo, 100*hi)
				}
				if agree == 0.9 && c.width >= c.humanWidth {
					t.Errorf("agreement 0.9, audit %d: PPI width %v, human-only %v", audit, c.width, c.humanWidth)
				}
			}
		}
		t.Logf("%d evaluations per row of %d queries, every query with a relevant document: %v\n%s", evals, simQueries, needRelevant, table.String())
	}
}
