package main

import (
	"cmp"
	"fmt"
	"io"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/diag"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/parquetio"
	"github.com/ragstat/ragstat/systems"
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
	var err error
	if m.Stages, err = traceimport.ParseStages(renames.Stage); err == nil {
		m.CloseAfter, err = traceimport.ParseCloseAfter(f.CloseAfter)
	}
	return m, diag.Flagged(err)
}

// mappings keeps the import manifest of every foreign trace file read, by
// path, for the manifest of the result.
type mappings struct{ traceimport.Manifests }

func (m *mappings) keep(man *traceimport.Manifest)       { m.Keep(man) }
func (m *mappings) of(path string) *traceimport.Manifest { return m.Of(path) }

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
	ins := append([]outfile.Input{{Flag: "--corpus", Path: c.Corpus}}, outfile.Inputs("input", c.Files...)...)
	out, err := outfile.Start(outfile.Options{Force: c.Force, Stdout: e.stdout}, ins,
		outfile.Input{Flag: "--out", Path: c.Out}, outfile.Input{Flag: "--manifest", Path: c.Manifest})
	if err != nil {
		return err
	}
	defer out.Abort()
	fs := files{e: e}
	m, err := c.mapping(read(&fs, c.Corpus, corpus.Read), c.stageFlags)
	if fs.err != nil || err != nil {
		return cmp.Or(fs.err, err)
	}
	inputs, err := input.OpenAll(c.Files, e.stdin)
	if err != nil {
		return err
	}
	defer closeAll(inputs)
	var man *traceimport.Manifest
	err = out.Write(c.Out, func(w io.Writer) (err error) {
		man, err = traceimport.ImportJSONL(w, format, inputs, m)
		return err
	})
	if man != nil {
		fmt.Fprint(e.stderr, man.Summary())
	}
	if err != nil {
		return err
	}
	if c.Manifest != "" {
		if err := out.Write(c.Manifest, man.WriteJSON); err != nil {
			return err
		}
	}
	return out.Commit()
}
