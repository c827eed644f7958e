package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/chunks"
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
}

func (c *remapCmd) Run(e *env) error {
	if (c.Topics == "") != (c.OutTopics == "") {
		return fmt.Errorf("--topics and --out-topics go together")
	}
	m, err := c.mapper(e)
	if err != nil {
		return err
	}
	js, err := readJudgments(e, c.Judgments, c.Grades)
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
	if err := writeAtomically(c.Out, func(w io.Writer) error { return judgments.WriteJSONL(w, res.Judgments) }); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %d judgments to %s\n", len(res.Judgments), c.Out)
	if c.Topics != "" {
		more, err := c.topics(e, m)
		if err != nil {
			return err
		}
		review = append(review, more...)
	}
	return c.finish(e, review)
}

// mapper reads the chunk and documents files.
func (c *remapCmd) mapper(e *env) (*remap.Mapper, error) {
	var sets [2]*chunks.Set
	for i, path := range []string{c.OldChunks, c.NewChunks} {
		f, err := input.Open(path, e.stdin)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if sets[i], err = chunks.Read(f); err != nil {
			return nil, err
		}
	}
	f, err := input.Open(c.Documents, e.stdin)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	docs, err := chunks.ReadDocuments(f)
	if err != nil {
		return nil, err
	}
	return remap.New(sets[0], sets[1], docs, c.MinOverlap)
}

// topics remaps the facts' support of --topics into --out-topics.
func (c *remapCmd) topics(e *env, m *remap.Mapper) ([]remap.Review, error) {
	ts, err := readTopics(e, c.Topics)
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
	if err := writeAtomically(c.OutTopics, func(w io.Writer) error { return topics.Write(w, res.Topics) }); err != nil {
		return nil, err
	}
	fmt.Fprintf(e.stdout, "wrote %d topics to %s\n", len(res.Topics), c.OutTopics)
	return res.Review, nil
}

// finish writes the review lines and applies --strict.
func (c *remapCmd) finish(e *env, review []remap.Review) error {
	write := func(w io.Writer) error { return remap.WriteReview(w, review) }
	where := "standard error"
	var err error
	if c.Review != "" {
		where = c.Review
		err = writeAtomically(c.Review, write)
	} else if len(review) > 0 {
		err = write(e.stderr)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%d review lines to %s\n", len(review), where)
	if c.Strict && len(review) > 0 {
		return fmt.Errorf("%d review lines (--strict): check them in %s before comparing scores", len(review), where)
	}
	return nil
}

type splitCmd struct {
	Topics    string  `required:"" placeholder:"FILE" help:"Topics to split (JSONL)."`
	HeldOut   float64 `required:"" placeholder:"SHARE" help:"Share of topics to hold out, e.g. 0.3."`
	Seed      uint64  `default:"1" help:"Seed: the same seed gives the same split."`
	GroupBy   string  `default:"family" placeholder:"family|tag:PREFIX" help:"What keeps topics together: their family, or their tags starting with PREFIX (default ${default})."`
	Judgments string  `short:"j" placeholder:"FILE" help:"Judgments to split along with the topics."`
	Grades    string  `default:"0..3" placeholder:"MIN..MAX" help:"Allowed grades (default ${default})."`
	OutDir    string  `required:"" placeholder:"DIR" help:"Writes dev.topics.jsonl and held-out.topics.jsonl there (and dev.judgments.jsonl, held-out.judgments.jsonl)."`
}

func (c *splitCmd) Run(e *env) error {
	by, err := split.ParseGroupBy(c.GroupBy)
	if err != nil {
		return err
	}
	ts, err := readTopics(e, c.Topics)
	if err != nil {
		return err
	}
	r, err := split.Split(ts.Topics, split.Options{HeldOut: c.HeldOut, Seed: c.Seed, GroupBy: by})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(c.OutDir, 0o755); err != nil {
		return err
	}
	outputs := map[string]func(io.Writer) error{
		"dev.topics.jsonl":      func(w io.Writer) error { return topics.Write(w, r.Dev) },
		"held-out.topics.jsonl": func(w io.Writer) error { return topics.Write(w, r.HeldOut) },
	}
	if c.Judgments != "" {
		js, err := readJudgments(e, c.Judgments, c.Grades)
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
	for _, name := range []string{"dev.topics.jsonl", "held-out.topics.jsonl", "dev.judgments.jsonl", "held-out.judgments.jsonl"} {
		if write := outputs[name]; write != nil {
			if err := writeAtomically(filepath.Join(c.OutDir, name), write); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "wrote %s\n", filepath.Join(c.OutDir, name))
		}
	}
	return nil
}

func readTopics(e *env, path string) (*topics.Set, error) {
	f, err := input.Open(path, e.stdin)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return topics.Read(f)
}

func readJudgments(e *env, path, grades string) (*judgments.Set, error) {
	scale, err := judgments.ParseScale(grades)
	if err != nil {
		return nil, err
	}
	f, err := input.Open(path, e.stdin)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return judgments.Read(f, judgments.Options{Scale: scale})
}
