// Command ragstat evaluates the retrieval side of RAG systems: recall,
// reciprocal rank, nDCG and more over ranked lists, strictly, with every
// policy that changes a number printed beside it.
//
//	ragstat demo
//	ragstat eval -j qrels.txt run1.txt name=run2.jsonl
//	ragstat trec-eval -q -m all_trec qrels.txt run.txt
//	ragstat metrics
//
// Exit status: 0 success, 1 internal failure, 2 bad input or usage, 3 a
// gate failed.
package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/alecthomas/kong"
	"golang.org/x/term"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/files"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/flagname"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/idtext"
	"github.com/ragstat/ragstat/internal/outfile"
)

// Version is the ragstat version, set at build time with -ldflags "-X main.Version=...".
var Version = "0.1.0-dev"

// Exit statuses.
const (
	exitOK       = 0
	exitInternal = 1
	exitInput    = 2
	exitGate     = 3
)

// env is the outside world a command sees; tests replace it.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	terminal       bool // stderr is a terminal: progress may be shown
}

// notes writes each line to stderr after "ragstat: ", as idtext.Line
// prints it: a note is one line, whatever ids it names.
func (e *env) notes(lines ...string) {
	for _, l := range lines {
		fmt.Fprintln(e.stderr, "ragstat:", idtext.Line(l))
	}
}

type cli struct {
	VersionFlag     kong.VersionFlag `name:"version" short:"v" help:"Print the version and exit."`
	Demo            demoCmd          `cmd:"" help:"Evaluate an embedded example (two rankings, then two traced pipelines) and tell what the numbers say."`
	Eval            evalCmd          `cmd:"" help:"Evaluate runs against judgments, strictly."`
	TrecEval        trecEvalCmd      `cmd:"" name:"trec-eval" passthrough:"" help:"A drop-in for NIST trec_eval v10 (same flags, same output)."`
	Merge           mergeCmd         `cmd:"" help:"Merge the partial results of eval, stages or compare --shard I/N --format json into the result one run gives."`
	Compare         compareCmd       `cmd:"" help:"Compare candidates with a base on the same queries: paired differences, intervals, tests, slices, a release gate."`
	Report          reportCmd        `cmd:"" help:"Render a saved eval, stages or compare JSON result as one self-contained HTML file."`
	Audit           auditCmd         `cmd:"" help:"Audit a test set before trusting a gate on it: which queries leak, are trivial or saturated, repeat, lack evidence; what difference it can resolve."`
	judgingCommands `embed:""`
	datasetCommands `embed:""`
	Stages          stagesCmd    `cmd:"" help:"Evaluate every pipeline stage from traces: metrics per stage, where evidence was lost, the packed context, facts, validity, answers."`
	Tokens          tokensCmd    `cmd:"" help:"Count tokens with a real tokenizer: a line COUNT<TAB>TOKENIZER<TAB>FILE per file, then the total."`
	Collect         collectCmd   `cmd:"" help:"Receive OpenTelemetry spans over OTLP/HTTP or OTLP/gRPC and append them to a file for ragstat import."`
	Import          importCmd    `cmd:"" help:"Map OpenTelemetry (OpenInference, GenAI), LangSmith or Langfuse traces into ragstat traces."`
	Intervene       interveneCmd `cmd:"" help:"Rerun failing queries with a verified context through the same generator: is it the retrieval or the generator?"`
	Metrics         metricsCmd   `cmd:"" help:"List every metric with its formula and the policies it reads."`
	Version         versionCmd   `cmd:"" help:"Print the version."`

	CopyLimit string `name:"copy-limit" placeholder:"SIZE" help:"Most bytes copied to a temporary file from standard input or a pipe, which are read more than once (default: nine tenths of the temporary directory's free space)."`
	MaxRead   string `name:"max-read" default:"256MiB" placeholder:"SIZE" help:"Most bytes, once decompressed, of a file read whole into memory: a JSON object, a gzip-compressed Parquet file, a text to count (default ${default})."`
	MaxLine   string `name:"max-line" default:"1MiB" placeholder:"SIZE" help:"Longest line of a JSON Lines file, as of a TREC file; corpora and traces allow at least 64MiB (default ${default})."`
}

// config is the input.Config the global flags give, warnings going to
// stderr.
func (c *cli) config(e *env) (input.Config, error) {
	cfg := input.Config{Warn: func(msg string) { e.notes("warning: " + msg) }}
	var err error
	if c.CopyLimit != "" {
		if cfg.CopyLimit, err = files.ParseSize(c.CopyLimit); err != nil {
			return cfg, fmt.Errorf("--copy-limit: %w", err)
		}
	}
	if cfg.MaxRead, err = files.ParseSize(c.MaxRead); err != nil {
		return cfg, fmt.Errorf("--max-read: %w", err)
	}
	line, err := files.ParseSize(c.MaxLine)
	if err == nil && line > math.MaxInt32 {
		err = fmt.Errorf("size %q: at most 2GiB", c.MaxLine)
	}
	if err != nil {
		return cfg, fmt.Errorf("--max-line: %w", err)
	}
	cfg.MaxLine = int(line)
	return cfg, nil
}

func main() {
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, terminal: term.IsTerminal(int(os.Stderr.Fd()))}
	removeOnSignal()
	os.Exit(run(os.Args[1:], e))
}

// run parses args, runs the command and returns the exit status. With no
// arguments it prints the help. A write to standard output that fails
// (a full disk, a closed pipe) is exit 1 with the reason, whatever the
// command did.
func run(args []string, e *env) int {
	out := &outfile.Checked{W: e.stdout}
	inner := *e
	inner.stdout = out
	code := runCommand(args, &inner)
	if out.Err != nil {
		fmt.Fprintln(e.stderr, "ragstat: writing standard output:", out.Err)
		return exitInternal
	}
	return code
}

// runCommand is run without the check of standard output.
func runCommand(args []string, e *env) int {
	if len(args) == 0 {
		args = []string{"--help"}
	}
	var c cli
	exit := -1
	parser, err := kong.New(&c, kong.Name("ragstat"), kong.Vars{"version": "ragstat " + Version},
		kong.Description("Evaluate RAG retrieval: exact, strict, and at every stage."),
		kong.Writers(e.stdout, e.stderr), kong.Exit(func(code int) { exit = code }),
		kong.UsageOnError(), kong.ConfigureHelp(kong.HelpOptions{Compact: true}))
	if err != nil {
		fmt.Fprintln(e.stderr, "ragstat:", err)
		return exitInternal
	}
	ctx, err := parser.Parse(args)
	if exit >= 0 {
		return exit
	}
	if err != nil {
		return fail(e, err)
	}
	cfg, err := c.config(e)
	if err != nil {
		fmt.Fprintln(e.stderr, "ragstat:", err)
		return exitInput
	}
	if s, ok := ctx.Selected().Target.Addr().Interface().(interface{ strictInput() bool }); ok && s.strictInput() {
		cfg.Strict = true // a torn last line too is an error
	}
	e.stdin = input.WithConfig(input.Once(e.stdin), cfg)
	if err := ctx.Run(e); err != nil {
		return fail(e, err)
	}
	return exitOK
}

// exitError carries a specific exit status.
type exitError struct {
	code int
	err  error
}

func (x *exitError) Error() string { return x.err.Error() }

func internal(err error) error { return &exitError{exitInternal, err} }

// fail writes err, a library's options named as flags (settings.Flagged),
// and returns its exit status.
func fail(e *env, err error) int {
	if out, ok := e.stdout.(*outfile.Checked); ok && out.Err != nil {
		return exitInternal // run tells why, once
	}
	code := exitInput
	var x *exitError
	if errors.As(err, &x) {
		code, err = x.code, x.err
	}
	// An output that could not be written, or a report on it, is a fault
	// of the output, not of the input.
	if _, ok := errors.AsType[*outfile.WriteError](err); ok {
		code = exitInternal
	}
	if _, ok := errors.AsType[*outfile.ReportError](err); ok {
		code = exitInternal
	}
	if err != nil {
		msg := flagname.Flagged(err)
		fmt.Fprintln(e.stderr, "ragstat:", msg)
		if strings.Contains(msg, `item "sha256:`) && strings.Contains(msg, "no judgment") {
			e.notes(`ids such as "sha256:..." are content hashes: the spans carried no id for these documents; ` +
				"name the metadata key that holds your ids with --item-id (import, stages, compare, pool and intervene take it)")
		}
	}
	return code
}

type versionCmd struct{}

func (versionCmd) Run(e *env) error {
	fmt.Fprintln(e.stdout, "ragstat", Version)
	return nil
}
