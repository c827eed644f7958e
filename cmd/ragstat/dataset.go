package main

import (
	"cmp"
	"fmt"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/chunks"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/internal/remap"
	"github.com/ragstat/ragstat/internal/split"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/topics"
)

// datasetCommands are the remap and split commands, embedded in the command line.
type datasetCommands struct {
	Remap remapCmd `cmd:"" help:"Carry judgments (and facts' support) over to a new chunking by their evidence spans; list what needs review."`
	Split splitCmd `cmd:"" help:"Split topics into development and held-out sides, keeping query families together."`
}

type remapCmd struct {
	OldChunks  string  `required:"" placeholder:"FILE" help:"Chunk file the judgments refer to (JSONL {\"id\",\"doc\",\"revision\",\"start\",\"end\"})."`
	NewChunks  string  `required:"" placeholder:"FILE" help:"Chunk file to carry the judgments to."`
	Documents  string  `required:"" placeholder:"FILE" help:"Texts of every document revision (JSONL {\"doc\",\"revision\",\"text\"})."`
	Judgments  string  `short:"j" required:"" placeholder:"FILE" help:"Judgments of the old chunks: TREC, JSONL or JSON object."`
	Out        string  `required:"" placeholder:"FILE" help:"Where to write the remapped judgments (JSONL, with spans)."`
	Review     string  `placeholder:"FILE" help:"Where to write review lines (JSONL); default: standard error."`
	MinOverlap float64 `default:"0.9" help:"Share of an old chunk's text a new chunk must cover to take a judgment without spans."`
	Strict     bool    `help:"Exit 2 when anything needs review."`
	Topics     string  `placeholder:"FILE" help:"Topics whose facts' supporting items are remapped too (needs --out-topics)."`
	OutTopics  string  `placeholder:"FILE" help:"Where to write the remapped topics."`
	Grades     string  `default:"0..3" placeholder:"MIN..MAX" help:"Allowed grades (default ${default})."`
	Force      bool    `help:"Replace output files that exist."`
}

func (c *remapCmd) Run(e *env) error {
	if (c.Topics == "") != (c.OutTopics == "") {
		return fmt.Errorf("--topics and --out-topics go together")
	}
	ins := []outfile.Input{{Flag: "--old-chunks", Path: c.OldChunks}, {Flag: "--new-chunks", Path: c.NewChunks},
		{Flag: "--documents", Path: c.Documents}, {Flag: "--judgments", Path: c.Judgments}, {Flag: "--topics", Path: c.Topics}}
	out, err := outfile.Start(outfile.Options{Force: c.Force, Stdout: e.stdout}, ins,
		outfile.Input{Flag: "--out", Path: c.Out}, outfile.Input{Flag: "--review", Path: c.Review}, outfile.Input{Flag: "--out-topics", Path: c.OutTopics})
	if err != nil {
		return err
	}
	defer out.Abort()
	fs := input.Batch{Stdin: e.stdin}
	src := remap.Sources{Old: input.ReadIn(&fs, c.OldChunks, chunks.Read), New: input.ReadIn(&fs, c.NewChunks, chunks.Read),
		Documents: input.ReadIn(&fs, c.Documents, chunks.ReadDocuments), Judgments: input.ReadIn(&fs, c.Judgments, judgments.ReadOn(c.Grades, judgments.Options{})),
		Topics: input.ReadIn(&fs, c.Topics, topics.Read)}
	if fs.Err != nil {
		return fs.Err
	}
	res, err := remap.Run(src, remap.Options{MinOverlap: c.MinOverlap, Strict: c.Strict})
	if err != nil {
		return err
	}
	if err := res.WriteSummary(e.stdout); err != nil {
		return internal(err)
	}
	if err := res.Save(out, remap.Paths{Judgments: c.Out, Topics: c.OutTopics, Review: c.Review}, e.stdout, e.stderr); err != nil || !res.Withheld {
		return err
	}
	return fmt.Errorf("%d review lines (--strict): check them in %s; the remapped files were not written", len(res.Review), cmp.Or(c.Review, "standard error"))
}

type splitCmd struct {
	Topics    string  `required:"" placeholder:"FILE" help:"Topics to split (JSONL)."`
	HeldOut   float64 `required:"" placeholder:"SHARE" help:"Share of topics to hold out, e.g. 0.3."`
	Seed      uint64  `default:"1" help:"Seed: the same seed gives the same split."`
	GroupBy   string  `default:"family" placeholder:"family|tag:PREFIX" help:"What keeps topics together: their family, or their tags starting with PREFIX (default ${default})."`
	Judgments string  `short:"j" placeholder:"FILE" help:"Judgments to split along with the topics."`
	Grades    string  `default:"0..3" placeholder:"MIN..MAX" help:"Allowed grades (default ${default})."`
	OutDir    string  `required:"" placeholder:"DIR" help:"Writes dev.topics.jsonl and held-out.topics.jsonl there (and dev.judgments.jsonl, held-out.judgments.jsonl)."`
	Force     bool    `help:"Replace files in --out-dir that exist."`
}

func (c *splitCmd) Run(e *env) error {
	by, err := split.ParseGroupBy(c.GroupBy)
	if err != nil {
		return err
	}
	out := outfile.New(outfile.Options{Force: c.Force}, outfile.Input{Flag: "--topics", Path: c.Topics}, outfile.Input{Flag: "--judgments", Path: c.Judgments})
	defer out.Abort()
	if err := split.Claim(out, c.OutDir, c.Judgments != ""); err != nil {
		return err
	}
	fs := input.Batch{Stdin: e.stdin}
	ts, js := input.ReadIn(&fs, c.Topics, topics.Read), input.ReadIn(&fs, c.Judgments, judgments.ReadOn(c.Grades, judgments.Options{}))
	if fs.Err != nil {
		return fs.Err
	}
	res, outputs, err := split.Run(ts, js, split.Options{HeldOut: c.HeldOut, Seed: c.Seed, GroupBy: by})
	if err != nil {
		return err
	}
	if err := res.WriteSummary(e.stdout); err != nil {
		return internal(err)
	}
	return split.Save(out, c.OutDir, outputs, e.stdout)
}
