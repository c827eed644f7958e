package remap

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/chunks"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/outfile"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/topics"
)

// TestRun: Strict withholds the outputs only when there is something to
// review, and the summary counts the topics' pieces when topics are given.
func TestRun(t *testing.T) {
	read := func(name, data string) *input.File { return input.FromBytes(name, []byte(data)) }
	ds, _ := chunks.ReadDocuments(read("docs.jsonl", docs))
	old, _ := chunks.Read(read("old.jsonl", oldChunks))
	nw, _ := chunks.Read(read("new.jsonl", shifted))
	ts, err := topics.Read(read("topics.jsonl", `{"id":"q","facts":[{"id":"f","support":[{"item":"o3","span":"start a refund"}]}]}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		judgments string
		topics    *topics.Set
		strict    bool
		review    int
		withheld  bool
		outputs   string
		summary   []string
		saved     string // what Save tells, its paths under a folder
	}{
		{"nothing to review", j("o3", 2), nil, true, 0, false, "judgments review", []string{"remap: 1 judgments of 1 queries, old.jsonl -> new.jsonl (min-overlap 0.9)"},
			"wrote 1 judgments to j.jsonl\n0 review lines to standard error\n"},
		{"review, not strict", j("o2", 1), nil, false, 1, false, "judgments review", []string{"TOTAL  1"},
			"wrote 0 judgments to j.jsonl\n1 review lines to standard error\n"},
		{"review, strict", j("o2", 1), nil, true, 1, true, "review", nil, ""},
		{"with topics", j("o3", 2), ts, false, 0, false, "judgments topics review", []string{"topic  pieces"},
			"wrote 1 judgments to j.jsonl\nwrote 1 topics to t.jsonl\n0 review lines to standard error\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			js, err := judgments.Read(read("j.jsonl", c.judgments), judgments.Options{Scale: judgments.DefaultScale})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(Sources{Old: old, New: nw, Documents: ds, Judgments: js, Topics: c.topics}, Options{MinOverlap: 0.9, Strict: c.strict})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Review) != c.review || res.Withheld != c.withheld || (res.Topics != nil) != (c.topics != nil) {
				t.Errorf("review %d, withheld %v, topics %v", len(res.Review), res.Withheld, res.Topics != nil)
			}
			var names []string
			for _, o := range res.Outputs() {
				names = append(names, o.Name)
			}
			if got := strings.Join(names, " "); got != c.outputs {
				t.Errorf("outputs %s, want %s", got, c.outputs)
			}
			var buf bytes.Buffer
			if err := res.WriteSummary(&buf); err != nil {
				t.Fatal(err)
			}
			for _, want := range c.summary {
				if !strings.Contains(buf.String(), want) {
					t.Errorf("summary lacks %q:\n%s", want, buf.String())
				}
			}
			dir := t.TempDir()
			var stdout, stderr bytes.Buffer
			paths := Paths{Judgments: filepath.Join(dir, "j.jsonl"), Topics: filepath.Join(dir, "t.jsonl")}
			out, err := outfile.Start(outfile.Options{}, nil, outfile.Input{Flag: "--out", Path: paths.Judgments},
				outfile.Input{Flag: "--out-topics", Path: paths.Topics})
			if err != nil {
				t.Fatal(err)
			}
			if err := res.Save(out, paths, &stdout, &stderr); err != nil {
				t.Fatal(err)
			}
			if got := strings.ReplaceAll(stdout.String(), dir+string(filepath.Separator), ""); got != c.saved {
				t.Errorf("Save told %q, want %q", got, c.saved)
			}
			if _, err := os.Stat(paths.Judgments); (err == nil) == c.withheld {
				t.Errorf("judgments written: %v, withheld: %v", err == nil, c.withheld)
			}
		})
	}
}
