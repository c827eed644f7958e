package treceval

import (
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/internal/trecfile"
)

// config is a parsed command line.
type config struct {
	settings
	perQuery   bool   // -q
	complete   bool   // -c
	summary    bool   // not -n
	help       bool   // -h
	version    bool   // -v
	debugQuery string // -D level.qid: evaluate only this query
	relFormat  string // -R
	resFormat  string // -T
	zscores    string // -Z
	req        request
	files      []string
}

// usageError is a command-line mistake: trec_eval prints its usage and
// exits with status 1.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// option describes one trec_eval option.
type option struct {
	short  byte
	long   string
	hasArg bool
}

var options = []option{
	{'h', "help", false}, {'v', "version", false}, {'q', "query_eval_wanted", false},
	{'m', "measure", true}, {'c', "complete_rel_info_wanted", false}, {'l', "level_for_rel", true},
	{'n', "nosummary", false}, {'D', "Debug_level", true}, {'J', "Judged_docs_only", false},
	{'N', "Number_docs_in_coll", true}, {'M', "Max_retrieved_per_topic", true},
	{'R', "Rel_info_format", true}, {'T', "Results_format", true},
	{'o', "Output_old_results_format", true}, {'Z', "Zscore", true},
}

// parseArgs reads trec_eval's command line the way getopt_long does:
// options may be glued to their values (-l2, -mP.5) or clustered (-qc),
// long options may be abbreviated, and options and files may be mixed.
// It stops at the first -v, as trec_eval does.
func parseArgs(args []string) (*config, error) {
	c := &config{summary: true, settings: settings{relLevel: 1, maxDocs: 1<<31 - 1},
		relFormat: "qrels", resFormat: "trec_results",
		req: request{marked: map[string]bool{}, params: map[string]string{}}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		var err error
		switch {
		case a == "--":
			c.files = append(c.files, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			i, err = c.longOption(args, i)
		case len(a) > 1 && a[0] == '-':
			i, err = c.shortOptions(args, i)
		default:
			c.files = append(c.files, a)
		}
		if err != nil || c.version {
			return c, err
		}
	}
	return c, nil
}

// longOption handles args[i], a --name or --name=value option, and returns
// the index of the last argument it used.
func (c *config) longOption(args []string, i int) (int, error) {
	name, value, hasValue := strings.Cut(args[i][2:], "=")
	var found []option
	for _, o := range options {
		if o.long == name {
			found = []option{o}
			break
		}
		if strings.HasPrefix(o.long, name) {
			found = append(found, o)
		}
	}
	if len(found) != 1 {
		return i, usageError{fmt.Sprintf("unknown or ambiguous option '--%s'", name)}
	}
	o := found[0]
	switch {
	case o.hasArg && !hasValue && i+1 < len(args):
		i++
		value = args[i]
	case o.hasArg && !hasValue:
		return i, usageError{fmt.Sprintf("option '--%s' needs a value", o.long)}
	case !o.hasArg && hasValue:
		return i, usageError{fmt.Sprintf("option '--%s' takes no value", o.long)}
	}
	return i, c.apply(o.short, value)
}

// shortOptions handles args[i], a cluster of one-letter options, and
// returns the index of the last argument it used.
func (c *config) shortOptions(args []string, i int) (int, error) {
	a := args[i]
	for j := 1; j < len(a); j++ {
		o, ok := shortOption(a[j])
		if !ok {
			return i, usageError{fmt.Sprintf("unknown option '-%c'", a[j])}
		}
		if !o.hasArg {
			if err := c.apply(o.short, ""); err != nil || c.version {
				return i, err
			}
			continue
		}
		value := a[j+1:]
		if value == "" {
			if i+1 >= len(args) {
				return i, usageError{fmt.Sprintf("option '-%c' needs a value", o.short)}
			}
			i++
			value = args[i]
		}
		return i, c.apply(o.short, value)
	}
	return i, nil
}

func shortOption(b byte) (option, bool) {
	for _, o := range options {
		if o.short == b {
			return o, true
		}
	}
	return option{}, false
}

// apply records one option; numbers are read with C's atol, as trec_eval
// reads them.
func (c *config) apply(short byte, value string) error {
	num := func() int64 { return trecfile.Atol([]byte(value)) }
	switch short {
	case 'h':
		c.help = true
	case 'v':
		c.version = true
	case 'q':
		c.perQuery = true
	case 'm':
		return c.req.mark(value)
	case 'c':
		c.complete = true
	case 'l':
		c.relLevel = int(num())
	case 'n':
		c.summary = false
	case 'D':
		if _, qid, ok := strings.Cut(value, "."); ok {
			c.debugQuery = qid
		}
	case 'J':
		c.judgedOnly = true
	case 'N':
		c.numDocs = num()
	case 'M':
		if c.maxDocs = num(); c.maxDocs < 0 {
			return usageError{fmt.Sprintf("-M %s: the number of documents kept per query cannot be negative", value)}
		}
	case 'R':
		c.relFormat = value
	case 'T':
		c.resFormat = value
	case 'Z':
		c.zscores = value
	}
	return nil
}
