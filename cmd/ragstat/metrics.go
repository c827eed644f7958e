package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/ragstat/ragstat/metric"
)

type metricsCmd struct{}

func (metricsCmd) Run(e *env) error {
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\taliases\tcutoff\treads\tdefinition")
	for _, f := range metric.Families {
		cut := map[metric.Cutoff]string{metric.NoCutoff: "none", metric.OptionalCutoff: "@k optional", metric.NeedsCutoff: "@k required"}[f.Cutoff]
		reads := strings.Join(f.Reads, ",")
		if reads == "" {
			reads = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.Name, strings.Join(f.Aliases, ","), cut, reads, f.Formula)
	}
	if err := tw.Flush(); err != nil {
		return internal(err)
	}
	fmt.Fprint(e.stdout, `
Names are case-insensitive; trec_eval names are aliases (ndcg_cut.10 = nDCG@10, P.5,10 = P@5 P@10,
recip_rank = RR, map = AP, map_cut.10 = AP@10, recall.100 = R@100, Rprec = R-prec).
Means are macro averages: every query weighs the same. Every metric also reads --unjudged
(error, nonrelevant, skip, bounds) through the list it is given.
`)
	return nil
}
