// Package auditcmd is the body of ragstat audit: it reads the judgments,
// topics, corpus and the systems to audit the set against, audits it with
// package audit and gates the report.
package auditcmd

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/audit"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/runs"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

// A Request is an audit as the command line gives it: the evaluation's
// settings (judgments, threshold, metrics), the topics and corpus files,
// the audit's options and its gate rules (audit.ParseRule).
type Request struct {
	settings.Eval
	Topics, Corpus string
	RunFormat      string // "", auto, trec, jsonl or json
	audit.Options
	FailOn []string
}

// Sources are the systems to audit the set against and how to read them.
type Sources struct {
	// Files opens the judgments, topics and corpus.
	Files settings.Files
	// Systems are runs or trace files (PATH or NAME=PATH; "-" reads
	// Stdin), as systems.Open takes them.
	Systems []string
	Stdin   io.Reader
	// Traces returns the readers of trace files (traceimport.Readers);
	// nil reads ragstat's own.
	Traces func(*corpus.Corpus) ([]systems.TraceReader, error)
}

// Audit reads the files, audits the set (audit.Run) and gates the report: it
// returns the report and the rules it met, one a line.
func (r Request) Audit(src Sources) (*audit.Report, []string, error) {
	if strings.EqualFold(r.Labels, string(eval.LabelsPPI)) {
		return nil, nil, &diag.OptionError{Scope: "policy", Option: "labels", Value: r.Labels,
			Msg: "corrects means with the human audit; an audit of the test set reads grades: choose human or llm"}
	}
	var rules []audit.Rule
	for _, s := range r.FailOn {
		rule, err := audit.ParseRule(s)
		if err != nil {
			return nil, nil, err
		}
		rules = append(rules, rule)
	}
	if err := r.Options.Check(); err != nil {
		return nil, nil, err
	}
	if r.Topics == "" {
		return nil, nil, &diag.OptionError{Option: "topics", Msg: "is required: an audit goes through the topics' queries"}
	}
	ev, err := r.Eval.Open(src.Files)
	if err != nil {
		return nil, nil, err
	}
	defer ev.File.Close()
	set := audit.Set{Evaluator: ev.Evaluator}
	if set.Topics, err = readWith(src.Files, r.Topics, topics.Read); err != nil {
		return nil, nil, err
	}
	if r.Corpus != "" {
		if set.Corpus, err = readWith(src.Files, r.Corpus, corpus.Read); err != nil {
			return nil, nil, err
		}
	}
	var readers []systems.TraceReader
	if src.Traces != nil {
		if readers, err = src.Traces(set.Corpus); err != nil {
			return nil, nil, err
		}
	}
	ins, err := systems.Open(src.Systems, src.Stdin, systems.Options{Accept: []systems.Kind{systems.Run, systems.Traces}, Traces: readers})
	defer systems.Close(ins)
	if err != nil {
		return nil, nil, err
	}
	format, _ := input.ParseFormat(r.RunFormat)
	var syss []audit.System
	for _, in := range ins {
		got, err := read(in, runs.Options{Format: format, Order: ev.Policy().Order, NumericIDs: r.NumericIDs})
		if err != nil {
			return nil, nil, err
		}
		syss = append(syss, got...)
	}
	rep, err := audit.Run(set, syss, r.Options)
	if err != nil {
		return nil, nil, err
	}
	return rep, rep.Gate(rules), nil
}

func readWith[T any](files settings.Files, path string, read func(*input.File) (T, error)) (T, error) {
	f, err := files.Open(path)
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	return read(f)
}

// read takes one input's systems: a run is one, a trace file one per
// system it records, each query's list its last stage before the context
// (the context when it is the only stage) and its candidates searched the
// first stage's length.
func read(in *systems.Input, opt runs.Options) ([]audit.System, error) {
	var mu sync.Mutex
	if in.Kind == systems.Run {
		s := audit.System{Name: in.System(), Lists: map[string][]string{}}
		_, err := runs.Read(in.File, opt, func(r *runs.Ranking) error {
			items := make([]string, len(r.Items))
			for i, it := range r.Items {
				items[i] = strings.Clone(it)
			}
			mu.Lock()
			s.Lists[strings.Clone(r.Query)] = items
			mu.Unlock()
			return nil
		})
		return []audit.System{s}, err
	}
	var out []audit.System
	at := map[string]int{}
	err := in.Scan(func(t *trace.Trace) error {
		if len(t.Stages) == 0 {
			return nil
		}
		list := t.Stages[len(t.Stages)-1]
		for i := len(t.Stages) - 1; i >= 0; i-- {
			if t.Stages[i].Name != trace.ContextStage {
				list = t.Stages[i]
				break
			}
		}
		name := t.System
		if in.Name != "" {
			name = in.Name
		}
		mu.Lock()
		defer mu.Unlock()
		k, ok := at[name]
		if !ok {
			k = len(out)
			at[name] = k
			out = append(out, audit.System{Name: name, Lists: map[string][]string{}, Searched: map[string]int{}})
		}
		if _, dup := out[k].Lists[t.Query]; dup {
			return &diag.Error{File: t.File, Line: t.Line, Query: t.Query, Msg: fmt.Sprintf("a second trace of system %s", name)}
		}
		out[k].Lists[t.Query] = list.IDs()
		out[k].Searched[t.Query] = len(t.Stages[0].Items)
		return nil
	})
	return out, err
}
