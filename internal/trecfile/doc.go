// Package trecfile reads the TREC text formats: runs (qid Q0 docno rank
// score tag) and qrels (qid iter docno grade).
//
// It reads fast and in bounded memory: the input is cut into large blocks at
// line (for runs, query) boundaries, blocks are parsed on all cores straight
// from their bytes, and a run is handed over one query at a time, so nothing
// proportional to the file is kept. Two rule sets are offered: ragstat's
// strict one (exact field counts, finite scores, integer ranks and grades,
// no blank lines or comments), and trec_eval's lenient one (Options.Lenient),
// which mirrors what NIST trec_eval 10 accepts, down to C's atof and atol.
// Problems carry the file name and line, and up to MaxErrors are reported at
// once.
package trecfile
