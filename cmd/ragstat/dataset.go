package main

import (
	"github.com/ragstat/ragstat/cmd/ragstat/internal/remap"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/split"
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
	Judgments  oneFile `short:"j" required:"" placeholder:"FILE" help:"Judgments of the old chunks: TREC, JSONL or JSON object."`
	Out        string  `required:"" placeholder:"FILE" help:"Where to write the remapped judgments (JSONL, with spans)."`
	Review     string  `placeholder:"FILE" help:"Where to write review lines (JSONL); default: standard error."`
	MinOverlap float64 `default:"0.9" help:"Share of an old chunk's text a new chunk must cover to take a judgment without spans."`
	Strict     bool    `help:"Exit 2 when anything needs review; a last line cut short (a writer stopped mid-line) is an error, not a warning."`
	Topics     string  `placeholder:"FILE" help:"Topics whose facts' supporting items are remapped too (needs --out-topics)."`
	OutTopics  string  `placeholder:"FILE" help:"Where to write the remapped topics."`
	gradesFlag
	Force bool `help:"Replace output files that exist."`
}

func (c *remapCmd) strictInput() bool { return c.Strict }

func (c *remapCmd) Run(e *env) error {
	opt, out := remap.Options{MinOverlap: c.MinOverlap, Strict: c.Strict}, remap.Paths{Judgments: c.Out, Topics: c.OutTopics, Review: c.Review}
	return (remap.Request{OldChunks: c.OldChunks, NewChunks: c.NewChunks, Documents: c.Documents, Judgments: string(c.Judgments),
		Grades: c.Grades, Topics: c.Topics, Options: opt, Out: out, Force: c.Force}.Run(e.stdin, e.stdout, e.stderr))
}

type splitCmd struct {
	strictFlag
	Topics    string  `required:"" placeholder:"FILE" help:"Topics to split (JSONL)."`
	HeldOut   float64 `required:"" placeholder:"SHARE" help:"Share of topics to hold out, e.g. 0.3."`
	Seed      uint64  `default:"1" help:"Seed: the same seed gives the same split."`
	GroupBy   string  `default:"family" placeholder:"family|tag:PREFIX" help:"What keeps topics together: their family, or their tags starting with PREFIX (default ${default})."`
	Judgments oneFile `short:"j" placeholder:"FILE" help:"Judgments to split along with the topics."`
	gradesFlag
	OutDir string `required:"" placeholder:"DIR" help:"Writes dev.topics.jsonl and held-out.topics.jsonl there (and dev.judgments.jsonl, held-out.judgments.jsonl)."`
	Force  bool   `help:"Replace files in --out-dir that exist."`
}

func (c *splitCmd) Run(e *env) error {
	return (split.Request{Topics: c.Topics, Judgments: string(c.Judgments), Grades: c.Grades, HeldOut: c.HeldOut, Seed: c.Seed,
		GroupBy: c.GroupBy, OutDir: c.OutDir, Force: c.Force}.Run(e.stdin, e.stdout))
}
