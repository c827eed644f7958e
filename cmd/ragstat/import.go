package main

import (
	"fmt"
	"log"
	"strings"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/collect"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/importcmd"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/parquetio"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/corpus"
)

// mappingFlags say how foreign traces (OTLP, LangSmith, Langfuse) become
// ragstat traces; import, stages, compare and pool take them.
type mappingFlags struct {
	QueryID         string   `placeholder:"KEY" help:"Where a trace's query id is: an attribute (session.id), metadata.NAME, resource.NAME or reference_example_id. Default: metadata.query_id, session.id, gen_ai.conversation.id, else the trace id."`
	System          string   `placeholder:"NAME" help:"The system the traces belong to."`
	SystemFrom      string   `placeholder:"KEY" help:"Where the system's name is, as --query-id (default: metadata.system, resource.service.name, else the file's name)."`
	ItemID          string   `placeholder:"metadata.KEY" help:"For documents without an id: the metadata key holding it (else a content hash, with a warning)."`
	ItemScore       string   `placeholder:"metadata.KEY" help:"For documents without a score: the metadata key holding it."`
	CitationPattern string   `placeholder:"REGEX" help:"Finds cited ids in the answer (first group). Default: \\[([^\\]\\s]+)\\]."`
	AbstainPattern  string   `placeholder:"REGEX" help:"The answer abstains when it matches (without it abstention is not recorded)."`
	Strict          bool     `help:"Make every span or trace that cannot be mapped an error."`
	CloseAfter      string   `placeholder:"N|end" help:"Records a complete trace stays open for late spans (default: 1000 for OTLP, end of input for exports)."`
	Convention      string   `placeholder:"NAME" help:"Read every OTLP span under one convention: openinference, langfuse, openllmetry or genai (default: auto, each span under the convention whose attributes it carries)."`
	Documents       []string `placeholder:"SPAN=ATTRIBUTE[:JSONPATH]" sep:"none" help:"Spans called SPAN are retrieval stages whose documents are in ATTRIBUTE (JSON), at JSONPATH ($, .field, [*], [n]) (repeatable)."`
}

// stageFlags rename or leave out the stages of foreign traces (pool's
// --stage picks a stage instead, so it has none).
type stageFlags struct {
	Stage []string `placeholder:"SPAN=NAME" sep:"none" help:"Rename the stage of retrieval spans called SPAN; SPAN=- leaves them out (repeatable)."`
}

// traceSettings are the flags as the mapping's settings.
func (f *mappingFlags) traceSettings(renames stageFlags) settings.Traces {
	return settings.Traces{QueryID: f.QueryID, System: f.System, SystemFrom: f.SystemFrom, ItemID: f.ItemID,
		ItemScore: f.ItemScore, Citation: f.CitationPattern, Abstain: f.AbstainPattern, Strict: f.Strict,
		Stages: renames.Stage, CloseAfter: f.CloseAfter, Convention: f.Convention, Documents: f.Documents}
}

// traceFormats are the trace formats commands read, foreign traces mapped
// with the flags over the corpus read, each import's summary on stderr and
// its manifest kept in mapped when not nil.
// strictInput says that --strict makes every input problem an error,
// a torn last line of any input included.
func (f mappingFlags) strictInput() bool { return f.Strict }

// gradesFlag is --grades for the commands that read judgments on a scale:
// eval, stages, compare and audit (policyFlags), intervene, remap and
// split.
type gradesFlag struct {
	Grades string `default:"0..3" placeholder:"MIN..MAX" help:"Allowed grades (default ${default})."`
}

// strictFlag is --strict for the commands that read JSON Lines and map no
// traces: a last line a writer left cut short is then an error, not a
// warning.
type strictFlag struct {
	Strict bool `help:"Make a last line cut short (a writer stopped mid-line) an error, not a warning."`
}

func (f strictFlag) strictInput() bool { return f.Strict }

func (e *env) traceFormats(f mappingFlags, renames stageFlags, mapped *settings.Manifests) func(*corpus.Corpus) ([]systems.TraceReader, error) {
	return func(c *corpus.Corpus) ([]systems.TraceReader, error) {
		m, err := f.traceSettings(renames).Mapping(c)
		return settings.Readers(m, e.stderr, mapped, parquetio.Traces), err
	}
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
	return importcmd.Request{Traces: c.traceSettings(c.stageFlags), Format: c.Format, Files: c.Files, Corpus: c.Corpus,
		Out: c.Out, Manifest: c.Manifest, Force: c.Force}.Run(e.stdin, e.stdout, e.stderr)
}

type collectCmd struct {
	Addr           string `default:"127.0.0.1:4318" placeholder:"HOST:PORT" help:"Where to serve OTLP/HTTP (default: ${default}, the OTLP/HTTP port on loopback)."`
	GRPCAddr       string `name:"grpc-addr" default:"127.0.0.1:4317" placeholder:"HOST:PORT" help:"Where to serve OTLP/gRPC (default: ${default}, the OTLP/gRPC port on loopback); off serves none."`
	Out            string `short:"o" required:"" placeholder:"FILE" help:"Where to write OTLP/JSON lines, one per request or more for a large one (- for standard output). An existing file needs --append or --force."`
	Append         bool   `xor:"mode" help:"Add to an existing --out file that collect wrote (a last line cut short by a killed receiver is removed first); any other file is refused."`
	Force          bool   `xor:"mode" help:"Replace an existing --out file."`
	Token          string `env:"RAGSTAT_COLLECT_TOKEN" placeholder:"TOKEN" help:"Access token (Authorization: Bearer) every request must carry; required off loopback (one is generated when missing)."`
	MaxBodyMiB     int64  `name:"max-body-mib" default:"16" placeholder:"MIB" help:"Largest request body accepted, in MiB as sent and once decompressed (default ${default})."`
	MaxSpans       int    `name:"max-spans" default:"100000" placeholder:"N" help:"Most spans in one request (default ${default})."`
	MaxInFlightMiB int64  `name:"max-inflight-mib" default:"256" placeholder:"MIB" help:"Most memory the requests in flight take together, bodies and decoding, in MiB; at least 4 times --max-body-mib (default ${default})."`
	MinRateKiB     int64  `name:"min-rate-kib" default:"16" placeholder:"KIB" help:"Slowest a body may arrive after its first 5 s, in KiB a second; a slower sender is cut off (default ${default})."`
}

func (c *collectCmd) Run(e *env) error {
	ctx, stop := interrupted()
	defer stop()
	grpcAddr := c.GRPCAddr
	if grpcAddr == "off" {
		grpcAddr = ""
	}
	st, err := collect.Run(ctx, collect.RunOptions{Addr: c.Addr, GRPCAddr: grpcAddr, Token: c.Token,
		MaxBodyMiB: c.MaxBodyMiB, MaxSpans: c.MaxSpans, MaxInFlightMiB: c.MaxInFlightMiB, MinRateKiB: c.MinRateKiB,
		Path: c.Out, Mode: collect.ModeOf(c.Append, c.Force), Stdout: e.stdout, Out: e.stderr, Log: log.New(e.stderr, "ragstat collect: ", log.LstdFlags)})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "ragstat collect: stopped; %d requests (%d spans) written to %s, %d refused%s\n", st.Requests, st.Spans, c.Out, st.Refused, refusedBy(st))
	return nil
}

// refusedBy lists the reasons of the refused requests: " (3 too large, 1 busy)".
func refusedBy(st collect.Stats) string {
	var parts []string
	for r, n := range st.ByReason {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, collect.Reason(r)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}
