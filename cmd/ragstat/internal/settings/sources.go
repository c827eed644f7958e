package settings

import (
	"fmt"
	"io"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/files"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/stages"
	"github.com/ragstat/ragstat/trace"
)

// Sources are the files of a stages evaluation, open: the judgments,
// topics and corpus read, and the trace files to be streamed.
type Sources struct {
	stages.Input
	// Files are the files read beside the traces, Roles the role of each:
	// "judgments", "topics", "corpus" or "nugget_assignments"; Traces are
	// the trace files.
	Files  []*input.File
	Roles  []string
	Traces []*systems.Input
	// Labelled is the judgments as read, LLM labels and all, when they
	// hold any (Judgments is then the reading the label choice made, and
	// they are never spilled); LabelNotes say what was read.
	Labelled   *judgments.Set
	LabelNotes []string
}

// Open reads the judgments (on p's scale, read as p's label choice), the
// topics and the corpus the request names, then opens the trace files at
// paths ("-": stdin) in the formats formats gives for the corpus read. A
// trace file is named by its path alone: the systems' names are in the
// traces. p is the request's Policy. On error the files opened are closed.
func (r Stages) Open(p eval.Policy, files Files, paths []string, stdin io.Reader,
	formats func(*corpus.Corpus) ([]systems.TraceReader, error)) (s *Sources, err error) {
	s = &Sources{}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if err = r.Read(s, p, files); err != nil {
		return s, err
	}
	readers, err := formats(s.Corpus)
	if err != nil {
		return s, err
	}
	s.Traces, err = systems.Open(paths, stdin, systems.Options{Accept: []systems.Kind{systems.Traces}, Traces: readers})
	for _, in := range s.Traces {
		if in.Name != "" && err == nil {
			err = fmt.Errorf("%s: stages reads the systems' names from the traces; give the path alone", in.Path)
		}
	}
	return s, err
}

// add records f, read in role.
func (s *Sources) add(role string, f *input.File) {
	s.Files, s.Roles = append(s.Files, f), append(s.Roles, role)
}

// Scan streams every trace of every trace file (systems.Scan).
func (s *Sources) Scan(fn func(*trace.Trace) error) error { return systems.Scan(s.Traces, fn) }

// All are every file open: Files, then the trace files.
func (s *Sources) All() []*input.File {
	return append(append([]*input.File(nil), s.Files...), systems.Files(s.Traces)...)
}

// Read is the format of the judgments as read, "" when they were not.
func (s *Sources) Read() input.Format {
	if s.Judgments == nil && s.Spilled == nil {
		return ""
	}
	return s.JudgmentsFormat()
}

// Close closes every file (removing the copies of standard input) and
// removes the spill file, if any.
func (s *Sources) Close() {
	s.Input.Close()
	files.CloseAll(s.Files)
	systems.Close(s.Traces)
}
