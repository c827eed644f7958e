package treceval

import (
	"bufio"
	"fmt"
)

const helpText = `trec-eval: evaluate a TREC run against qrels exactly as NIST trec_eval 10 does.

usage: trec-eval [options] qrels_file run_file      (run_file "-" reads stdin)

  qrels_file  lines "qid iter docno grade"; grades below 0 mark pooled but unjudged documents
  run_file    lines "qid Q0 docno rank score tag"; documents are ranked by score (descending),
              ties by docno (descending byte order); the rank column is ignored

options:
  -q          print every query's values before the summary ("all")
  -m name     add a measure, optionally with parameters: -m P.5,10  -m ndcg.1=1,2=3
              nicknames: official (the default), all_trec, set
  -c          average over every judged query; a query missing from the run scores 0
              (without -c such a query is an error)
  -l level    smallest grade that counts as relevant (default 1)
  -M max      keep only the first max documents of each ranking
  -J          drop unjudged documents before scoring
  -N num      number of documents in the collection (for utility)
  -n          no summary rows
  -D n.qid    evaluate only query qid
  -h          this help; with -m, the description of those measures
  -v          version

Numbers are printed with 4 decimals, counts as integers.
`

// writeHelp prints the help and the description of each requested measure.
func writeHelp(out *bufio.Writer, c *config) error {
	out.WriteString(helpText)
	out.WriteString("\nmeasures:\n")
	for _, m := range registry {
		if len(c.req.marked) > 0 && !c.req.marked[m.name] {
			continue
		}
		fmt.Fprintf(out, "  %-22s %s\n", m.name, m.doc)
		if m.defaults != "" {
			fmt.Fprintf(out, "  %-22s default parameters: %s\n", "", m.defaults)
		}
	}
	return nil
}
