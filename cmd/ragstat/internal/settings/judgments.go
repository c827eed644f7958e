package settings

import (
	"bytes"
	"strings"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
)

// JudgmentsOn reads judgments on the grade scale written MIN..MAX
// (judgments.ParseScale): a reader for files.ReadIn, for the commands that
// take the scale alone. A malformed scale is the reader's error.
func JudgmentsOn(grades string) func(*input.File) (*judgments.Set, error) {
	return func(f *input.File) (*judgments.Set, error) {
		scale, err := judgments.ParseScale(grades)
		if err != nil {
			return nil, err
		}
		return judgments.Read(f, judgments.Options{Scale: scale})
	}
}

// MergedName is the name under which MergingJudgments opens the judgments
// of several files merged: the paths joined by " + ".
func MergedName(paths []string) string { return strings.Join(paths, " + ") }

// MergingJudgments is files where MergedName(paths), for two paths or
// more, names the judgments of every path merged: when an evaluation opens
// them, each path is read in format, with the evaluation's scale and id
// rule (files.ReadJudgments, or judgments.Read when it is nil), and merged
// (judgments.Merge: a pair graded differently in two files is an error
// naming both; LLM labels kept beside people's grades, of two labels of a
// pair the later file's, which the files' Config.Warn is told). Reading
// that name gives the merged set itself, never parsed again; opening it
// gives the set written as JSON Lines, which is what an evaluation records
// of it (its name and digest). Other names open and read as files opens
// and reads them.
func MergingJudgments(files Files, paths []string, format input.Format) Files {
	if len(paths) < 2 {
		return files
	}
	name, open, read := MergedName(paths), files.Open, files.ReadJudgments
	if read == nil {
		read = judgments.Read
	}
	var merged *judgments.Set
	files.merged = name
	files.merge = func(opt judgments.Options) (*input.File, error) {
		opt.Format, opt.Keep = format, nil
		sets := make([]*judgments.Set, len(paths))
		var warn func(string)
		for i, p := range paths {
			f, err := open(p)
			if err != nil {
				return nil, err
			}
			warn = f.Config().Warn
			sets[i], err = read(f, opt)
			f.Close()
			if err != nil {
				return nil, err
			}
		}
		set, err := judgments.Merge(sets, opt.Scale)
		if err != nil {
			return nil, err
		}
		for _, n := range set.Notes() {
			if warn != nil {
				warn(n)
			}
		}
		set.File, set.Format = name, input.FormatJSONL
		var b bytes.Buffer
		for _, id := range set.IDs() {
			if err := judgments.WriteJSONL(&b, set.Judgments(id)); err != nil {
				return nil, err
			}
		}
		for _, id := range set.LLMQueries() {
			if err := judgments.WriteJSONL(&b, set.LLMJudgments(id)); err != nil {
				return nil, err
			}
		}
		merged = set
		return input.FromReader(name, &b)
	}
	files.ReadJudgments = func(f *input.File, o judgments.Options) (*judgments.Set, error) {
		if f.Name != name || merged == nil {
			return read(f, o)
		}
		if o.Keep != nil {
			return merged.Subset(o.Keep), nil
		}
		return merged, nil
	}
	return files
}

// openJudgments opens the judgments file path, to be read with opt: under
// MergingJudgments, its name opens every file's judgments, merged.
func (f Files) openJudgments(path string, opt judgments.Options) (*input.File, error) {
	if f.merge != nil && path == f.merged {
		return f.merge(opt)
	}
	return f.Open(path)
}
