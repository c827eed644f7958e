package main

import (
	"fmt"
	"io"
	"path/filepath"

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
	out, err := c.claim(e)
	if err != nil {
		return err
	}
	defer out.Abort()
	m, err := c.mapper(e)
	if err != nil {
		return err
	}
	scale, err := judgments.ParseScale(c.Grades)
	if err != nil {
		return err
	}
	js, err := readJudgments(e, c.Judgments, scale, false)
	if err != nil {
		return err
	}
	res, err := m.Judgments(js)
	if err != nil {
		return err
	}
	review := res.Review
	fmt.Fprintf(e.stdout, "remap: %d judgments of %d queries, %s -> %s (min-overlap %g)\n", js.Len(), len(js.IDs()), c.OldChunks, c.NewChunks, c.MinOverlap)
	if err := remap.WriteCounts(e.stdout, "query", "judgments", res.Counts); err != nil {
		return internal(err)
	}
	var remapped []*topics.Topic
	if c.Topics != "" {
		tres, err := c.topics(e, m)
		if err != nil {
			return err
		}
		remapped = tres.Topics
		review = append(review, tres.Review...)
	}
	// With --strict and lines to review nothing is written but the review:
	// the remapped files would be taken for finished ones.
	failed := c.Strict && len(review) > 0
	if !failed {
		if err := out.Write(c.Out, func(w io.Writer) error { return judgments.WriteJSONL(w, res.Judgments) }); err != nil {
			return err
		}
		if c.Topics != "" {
			if err := out.Write(c.OutTopics, func(w io.Writer) error { return topics.Write(w, remapped) }); err != nil {
				return err
			}
		}
	}
	where, err := c.review(e, out, review)
	if err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	if failed {
		return fmt.Errorf("%d review lines (--strict): check them in %s; the remapped files were not written", len(review), where)
	}
	fmt.Fprintf(e.stdout, "wrote %d judgments to %s\n", len(res.Judgments), c.Out)
	if c.Topics != "" {
		fmt.Fprintf(e.stdout, "wrote %d topics to %s\n", len(remapped), c.OutTopics)
	}
	fmt.Fprintf(e.stdout, "%d review lines to %s\n", len(review), where)
	return nil
}

// claim checks every output against the inputs before anything is read.
func (c *remapCmd) claim(e *env) (*outfile.Set, error) {
	out := outfile.New(outfile.Options{Force: c.Force, Stdout: e.stdout},
		outfile.Input{Flag: "--old-chunks", Path: c.OldChunks}, outfile.Input{Flag: "--new-chunks", Path: c.NewChunks},
		outfile.Input{Flag: "--documents", Path: c.Documents}, outfile.Input{Flag: "--judgments", Path: c.Judgments},
		outfile.Input{Flag: "--topics", Path: c.Topics})
	for _, o := range []struct{ flag, path string }{{"--out", c.Out}, {"--review", c.Review}, {"--out-topics", c.OutTopics}} {
		if o.path == "" {
			continue
		}
		if err := out.Claim(o.flag, o.path); err != nil {
			out.Abort()
			return nil, err
		}
	}
	return out, nil
}

// mapper reads the chunk and documents files.
func (c *remapCmd) mapper(e *env) (*remap.Mapper, error) {
	old, err := readFile(e, c.OldChunks, chunks.Read)
	if err != nil {
		return nil, err
	}
	cur, err := readFile(e, c.NewChunks, chunks.Read)
	if err != nil {
		return nil, err
	}
	docs, err := readFile(e, c.Documents, chunks.ReadDocuments)
	if err != nil {
		return nil, err
	}
	return remap.New(old, cur, docs, c.MinOverlap)
}

// topics remaps the facts' support of --topics.
func (c *remapCmd) topics(e *env, m *remap.Mapper) (*remap.Topics, error) {
	ts, err := readFile(e, c.Topics, topics.Read)
	if err != nil {
		return nil, err
	}
	res, err := m.Topics(ts)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(e.stdout)
	if err := remap.WriteCounts(e.stdout, "topic", "pieces", res.Counts); err != nil {
		return nil, internal(err)
	}
	return res, nil
}

// review writes the review lines to --review or standard error and says
// where they went.
func (c *remapCmd) review(e *env, out *outfile.Set, review []remap.Review) (string, error) {
	write := func(w io.Writer) error { return remap.WriteReview(w, review) }
	switch {
	case c.Review != "":
		return c.Review, out.Write(c.Review, write)
	case len(review) > 0:
		return "standard error", write(e.stderr)
	}
	return "standard error", nil
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

// splitFiles are the files split writes, topics first.
var splitFiles = []string{"dev.topics.jsonl", "held-out.topics.jsonl", "dev.judgments.jsonl", "held-out.judgments.jsonl"}

func (c *splitCmd) Run(e *env) error {
	by, err := split.ParseGroupBy(c.GroupBy)
	if err != nil {
		return err
	}
	out := outfile.New(outfile.Options{Force: c.Force},
		outfile.Input{Flag: "--topics", Path: c.Topics}, outfile.Input{Flag: "--judgments", Path: c.Judgments})
	defer out.Abort()
	if err := out.Dir(c.OutDir); err != nil {
		return err
	}
	names := splitFiles[:2]
	if c.Judgments != "" {
		names = splitFiles
	}
	for _, name := range names {
		if err := out.Claim("--out-dir", filepath.Join(c.OutDir, name)); err != nil {
			return err
		}
	}
	ts, err := readFile(e, c.Topics, topics.Read)
	if err != nil {
		return err
	}
	r, err := split.Split(ts.Topics, split.Options{HeldOut: c.HeldOut, Seed: c.Seed, GroupBy: by})
	if err != nil {
		return err
	}
	outputs := map[string]func(io.Writer) error{
		"dev.topics.jsonl":      func(w io.Writer) error { return topics.Write(w, r.Dev) },
		"held-out.topics.jsonl": func(w io.Writer) error { return topics.Write(w, r.HeldOut) },
	}
	if c.Judgments != "" {
		scale, err := judgments.ParseScale(c.Grades)
		if err != nil {
			return err
		}
		js, err := readJudgments(e, c.Judgments, scale, false)
		if err != nil {
			return err
		}
		dev, held, err := r.Judgments(js)
		if err != nil {
			return err
		}
		outputs["dev.judgments.jsonl"] = func(w io.Writer) error { return judgments.WriteJSONL(w, dev) }
		outputs["held-out.judgments.jsonl"] = func(w io.Writer) error { return judgments.WriteJSONL(w, held) }
	}
	fmt.Fprintf(e.stdout, "split: %d topics, group by %s, held-out share %g, seed %d\n", len(ts.Topics), by, c.HeldOut, c.Seed)
	if err := r.WriteSummary(e.stdout); err != nil {
		return internal(err)
	}
	for _, name := range names {
		if err := out.Write(filepath.Join(c.OutDir, name), outputs[name]); err != nil {
			return err
		}
	}
	if err := out.Commit(); err != nil {
		return err
	}
	for _, name := range names {
		fmt.Fprintf(e.stdout, "wrote %s\n", filepath.Join(c.OutDir, name))
	}
	return nil
}

// readFile opens path ("-": standard input), reads it with read and
// closes it.
func readFile[T any](e *env, path string, read func(*input.File) (T, error)) (T, error) {
	f, err := input.Open(path, e.stdin)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return read(f)
}

// readJudgments reads the judgments file at path on scale.
func readJudgments(e *env, path string, scale judgments.Scale, numericIDs bool) (*judgments.Set, error) {
	return readFile(e, path, func(f *input.File) (*judgments.Set, error) {
		return judgments.Read(f, judgments.Options{Scale: scale, NumericIDs: numericIDs})
	})
}
