package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/parquetio"
	"github.com/ragstat/ragstat/systems"
	"github.com/ragstat/ragstat/trace"
	"github.com/ragstat/ragstat/traceimport"
)

// mappingFlags say how foreign traces (OTLP, LangSmith, Langfuse) become
// ragstat traces; import, stages, compare and pool take them.
type mappingFlags struct {
	QueryID         string `placeholder:"KEY" help:"Where a trace's query id is: an attribute (session.id), metadata.NAME, resource.NAME or reference_example_id. Default: metadata.query_id, session.id, gen_ai.conversation.id, else the trace id."`
	System          string `placeholder:"NAME" help:"The system the traces belong to."`
	SystemFrom      string `placeholder:"KEY" help:"Where the system's name is, as --query-id (default: metadata.system, resource.service.name, else the file's name)."`
	ItemID          string `placeholder:"metadata.KEY" help:"For documents without an id: the metadata key holding it (else a content hash, with a warning)."`
	ItemScore       string `placeholder:"metadata.KEY" help:"For documents without a score: the metadata key holding it."`
	CitationPattern string `placeholder:"REGEX" help:"Finds cited ids in the answer (first group). Default: \\[([^\\]\\s]+)\\]."`
	AbstainPattern  string `placeholder:"REGEX" help:"The answer abstains when it matches (without it abstention is not recorded)."`
	Strict          bool   `help:"Make every span or trace that cannot be mapped an error."`
	CloseAfter      string `placeholder:"N|end" help:"Records a complete trace stays open for late spans (default: 1000 for OTLP, end of input for exports)."`
}

// stageFlags rename or leave out the stages of foreign traces (pool's
// --stage picks a stage instead, so it has none).
type stageFlags struct {
	Stage []string `placeholder:"SPAN=NAME" sep:"none" help:"Rename the stage of retrieval spans called SPAN; SPAN=- leaves them out (repeatable)."`
}

// mapping turns the flags into a traceimport.Mapping.
func (f *mappingFlags) mapping(c *corpus.Corpus, renames stageFlags) (traceimport.Mapping, error) {
	m := traceimport.Mapping{QueryID: f.QueryID, System: f.System, SystemFrom: f.SystemFrom, ItemID: f.ItemID,
		ItemScore: f.ItemScore, Citation: f.CitationPattern, Abstain: f.AbstainPattern, Strict: f.Strict, Corpus: c}
	for _, s := range renames.Stage {
		span, name, ok := strings.Cut(s, "=")
		if !ok {
			return m, fmt.Errorf("--stage %q: give SPAN=NAME or SPAN=-", s)
		}
		if m.Stages == nil {
			m.Stages = map[string]string{}
		}
		if _, dup := m.Stages[span]; dup {
			return m, fmt.Errorf("--stage %q: span %q renamed twice", s, span)
		}
		m.Stages[span] = name
	}
	switch f.CloseAfter {
	case "":
	case "end":
		m.CloseAfter = traceimport.EndOfInput
	default:
		n, err := strconv.Atoi(f.CloseAfter)
		if err != nil || n < 1 {
			return m, fmt.Errorf("--close-after %q: give a number of records (1 or more) or end", f.CloseAfter)
		}
		m.CloseAfter = n
	}
	return m, nil
}

// mappings keeps the import manifest of every foreign trace file read, by
// path, for the manifest of the result; files are read concurrently.
type mappings struct {
	mu  sync.Mutex
	got map[string]*traceimport.Manifest
}

func (m *mappings) keep(man *traceimport.Manifest) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.got == nil {
		m.got = map[string]*traceimport.Manifest{}
	}
	m.got[man.Files[0]] = man
}

// of returns how the file at path was mapped, or nil.
func (m *mappings) of(path string) *traceimport.Manifest {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.got[path]
}

// traceFormats are the trace formats commands read: ragstat's own, then
// those traceimport maps with m, each file's summary written to stderr and
// its manifest handed to keep, when not nil.
func traceFormats(m traceimport.Mapping, stderr io.Writer, keep func(*traceimport.Manifest)) []systems.TraceReader {
	return []systems.TraceReader{systems.JSONL, parquetio.Traces, traceimport.Reader(m, func(man *traceimport.Manifest) {
		fmt.Fprint(stderr, man.Summary())
		if keep != nil {
			keep(man)
		}
	})}
}

type importCmd struct {
	mappingFlags
	stageFlags
	Corpus   string   `placeholder:"FILE" help:"Corpus (JSONL): the text of items whose spans carry none, to find them in the context."`
	Out      string   `short:"o" default:"-" placeholder:"FILE" help:"Where to write the ragstat traces (JSONL) (default: standard output)."`
	Force    bool     `help:"Overwrite --out or --manifest if it exists."`
	Manifest string   `placeholder:"FILE" help:"Also write the import's manifest (JSON): every mapping choice, count and problem."`
	Format   string   `arg:"" enum:"otlp,langsmith,langfuse" help:"Input format: otlp (OTLP/JSON lines or document, or protobuf), langsmith (runs), langfuse (observations)."`
	Files    []string `arg:"" placeholder:"FILE" help:"Input files (gzip accepted; - for standard input)."`
}

func (c *importCmd) Run(e *env) error {
	format, err := traceimport.ParseFormat(c.Format)
	if err != nil {
		return err
	}
	ins := []outfile.Input{{Flag: "--corpus", Path: c.Corpus}}
	for _, path := range c.Files {
		ins = append(ins, outfile.Input{Flag: "input", Path: path})
	}
	out := outfile.New(outfile.Options{Force: c.Force, Stdout: e.stdout}, ins...)
	defer out.Abort()
	if err := out.Claim("--out", c.Out); err != nil {
		return err
	}
	if c.Manifest != "" {
		if err := out.Claim("--manifest", c.Manifest); err != nil {
			return err
		}
	}
	var files []*input.File
	defer func() { closeAll(files) }()
	var cp *corpus.Corpus
	if c.Corpus != "" {
		f, err := input.Open(c.Corpus, e.stdin)
		if err != nil {
			return err
		}
		files = append(files, f)
		if cp, err = corpus.Read(f); err != nil {
			return err
		}
	}
	m, err := c.mapping(cp, c.stageFlags)
	if err != nil {
		return err
	}
	var inputs []*input.File
	for _, path := range c.Files {
		f, err := input.Open(path, e.stdin)
		if err != nil {
			return err
		}
		files = append(files, f)
		inputs = append(inputs, f)
	}
	var man *traceimport.Manifest
	write := func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		man, err = traceimport.Import(format, inputs, m, func(t *trace.Trace) error { return enc.Encode(t) })
		return err
	}
	err = out.Write(c.Out, write)
	if man != nil {
		fmt.Fprint(e.stderr, man.Summary())
	}
	if err != nil {
		return err
	}
	if c.Manifest != "" {
		err := out.Write(c.Manifest, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(man)
		})
		if err != nil {
			return err
		}
	}
	return out.Commit()
}
