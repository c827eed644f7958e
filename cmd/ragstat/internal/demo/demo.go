// Package demo is ragstat's embedded example: the source document's three
// hand-authored queries and two rankings, evaluated by the library exactly
// as a user's files would be, and the story the numbers tell.
package demo

import (
	"embed"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/report"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/runs"
)

//go:embed fixtures
var fixtures embed.FS

// K is the article's cutoff.
const K = 3

// Files are the embedded example files, by name.
var Files = []string{"qrels.jsonl", "A.jsonl", "B.jsonl"}

func file(name string) *input.File {
	data, err := fixtures.ReadFile("fixtures/" + name)
	if err != nil {
		panic(err) // embedded at build time: cannot be missing
	}
	return input.FromBytes(name, data)
}

// Evaluate scores runs A and B against the article's judgments at k=3 with
// the default strict policy, through the same readers as `ragstat eval`.
func Evaluate() (*report.Eval, error) {
	qrels, err := judgments.Read(file("qrels.jsonl"), judgments.Options{})
	if err != nil {
		return nil, err
	}
	ms, err := metric.ParseAll([]string{fmt.Sprintf("R@%d", K), fmt.Sprintf("RR@%d", K), fmt.Sprintf("nDCG@%d", K)})
	if err != nil {
		return nil, err
	}
	policy := eval.DefaultPolicy()
	ev, err := eval.New(qrels, policy, ms, nil)
	if err != nil {
		return nil, err
	}
	rep := &report.Eval{Tool: "ragstat", Policy: policy, PerQuery: true,
		Inputs: []report.Input{{Role: "judgments", Path: "qrels.jsonl", Format: string(qrels.Format)}}}
	for _, name := range []string{"A", "B"} {
		res, err := ev.Run(name, file(name+".jsonl"), runs.Options{})
		if err != nil {
			return nil, err
		}
		rep.Results = append(rep.Results, res)
		rep.Inputs = append(rep.Inputs, report.Input{Role: "run", Path: name + ".jsonl", Format: res.Format})
	}
	return rep, nil
}

// Write copies the embedded example files into dir, so the commands the
// demo suggests can be tried on them. A file that exists is replaced only
// when force is set; on failure nothing is left behind.
func Write(dir string, force bool) error {
	out := outfile.New(outfile.Options{Force: force})
	defer out.Abort()
	files := map[string][]byte{}
	err := fs.WalkDir(fixtures, "fixtures", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(path, "fixtures")))
		if d.IsDir() {
			return out.Dir(dst)
		}
		if files[dst], err = fixtures.ReadFile(path); err != nil {
			return err
		}
		return out.Claim("--write", dst)
	})
	if err != nil {
		return err
	}
	for dst, data := range files {
		if err := out.Write(dst, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return err
		}
	}
	return out.Commit()
}
