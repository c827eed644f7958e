package settings

import (
	"bytes"
	"strings"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
)

// MergedName is the name under which MergingJudgments opens the judgments
// of several files merged: the paths joined by " + ".
func MergedName(paths []string) string { return strings.Join(paths, " + ") }

// MergingJudgments is files where MergedName(paths), for two paths or
// more, opens the judgments of every path, each read with opt
// (files.ReadJudgments, or judgments.Read when it is nil) and merged (judgments.Merge: a pair graded
// differently in two files is an error naming both), as one JSON Lines
// file of that name. Other names open as files opens them.
func MergingJudgments(files Files, paths []string, opt judgments.Options) Files {
	if len(paths) < 2 {
		return files
	}
	name, open, read := MergedName(paths), files.Open, files.ReadJudgments
	if read == nil {
		read = judgments.Read
	}
	files.Open = func(path string) (*input.File, error) {
		if path != name {
			return open(path)
		}
		sets := make([]*judgments.Set, len(paths))
		for i, p := range paths {
			f, err := open(p)
			if err != nil {
				return nil, err
			}
			sets[i], err = read(f, opt)
			f.Close()
			if err != nil {
				return nil, err
			}
		}
		merged, err := judgments.Merge(sets, opt.Scale, nil)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		for _, id := range merged.IDs() {
			if err := judgments.WriteJSONL(&b, merged.Judgments(id)); err != nil {
				return nil, err
			}
		}
		return input.FromReader(name, &b)
	}
	return files
}
