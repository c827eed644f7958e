package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/flagname"
	"github.com/ragstat/ragstat/metric"
)

// metricsHeading introduces each origin's names.
var metricsHeading = map[metric.Origin]string{
	metric.Ragstat: "ragstat's own names (the source document's definitions; case-insensitive, ir_measures style NAME(params)@k)",
	metric.TrecEval: "trec_eval names (case as trec_eval spells them; NAME.k1,k2 or NAME_k, NAME alone = trec_eval's default parameters); " +
		"each computes trec_eval's measure whatever --gain says",
	metric.Ranx: "ranx names (NAME@k); those marked [--like ranx] are ragstat's names unless --like ranx is given",
}

// Metrics lists every metric family (metric.Families) by origin, ragstat's
// own names first: the name and aliases, the cutoff, the summary over
// queries, the policies it reads and its definition.
func Metrics(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	origin := metric.Origin("")
	for _, f := range metric.Families {
		if f.Origin != origin {
			origin = f.Origin
			if origin != metric.Ragstat {
				fmt.Fprintln(tw)
			}
			fmt.Fprintf(tw, "%s:\n", metricsHeading[origin])
			fmt.Fprintln(tw, "metric\tcutoff\tsummary\treads\tdefinition")
		}
		cut := map[metric.Cutoff]string{metric.NoCutoff: "none", metric.OptionalCutoff: "@k optional", metric.NeedsCutoff: "@k required"}[f.Cutoff]
		reads := strings.Join(f.Reads, ",")
		if reads == "" {
			reads = "-"
		}
		name := f.Name
		if len(f.Aliases) > 0 {
			name += " (" + strings.Join(f.Aliases, ", ") + ")"
		}
		if f.Shared {
			name += " [--like ranx]"
		}
		def := flagname.Flags(f.Formula)
		if f.Differs != "" {
			def = "vs ragstat: " + flagname.Flags(f.Differs) + ". " + def
		}
		summary := map[metric.Aggregate]string{metric.Mean: "mean", metric.Sum: "sum", metric.GeoMean: "geo mean"}[f.Agg]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", name, cut, summary, reads, def)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprint(w, `
Means are macro averages: every query weighs the same; a summary over no query is undefined
(- in tables, null in JSON). Every metric also reads --unjudged (error, nonrelevant, skip,
bounds) and --unanswerable through the lists and queries it is given. Every output names the
definition each column used. --like trec_eval|pytrec_eval|ir_measures|ranx sets the policies
to that tool's behaviour.
`)
	return err
}
