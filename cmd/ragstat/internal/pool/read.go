package pool

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/systems"
	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/runs"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

// Read takes the ranked lists of every input: a run's lists (named NAME or
// after the file), or every stage of every trace (only stage, when given).
// A name given to a trace file names its one system. Two inputs giving
// one system name are an error. opt says how runs are read.
func Read(ins []*systems.Input, stage string, opt runs.Options) ([]Ranking, error) {
	var out []Ranking
	var names systems.Names
	for _, in := range ins {
		var rs []Ranking
		var err error
		if in.Kind == systems.Traces {
			rs, err = traceRankings(in, stage)
		} else {
			rs, err = runRankings(in, opt)
		}
		if err != nil {
			return nil, err
		}
		claimed := map[string]bool{}
		for _, r := range rs {
			if !claimed[r.System] {
				claimed[r.System] = true
				if err := names.Claim(r.System, in.File.Name); err != nil {
					return nil, err
				}
			}
		}
		out = append(out, rs...)
	}
	return out, nil
}

func runRankings(in *systems.Input, opt runs.Options) ([]Ranking, error) {
	name := in.System()
	var mu sync.Mutex
	var out []Ranking
	_, err := runs.Read(in.File, opt, func(r *runs.Ranking) error {
		items := make([]string, len(r.Items)) // the reader reuses its memory: copy
		for i, it := range r.Items {
			items[i] = strings.Clone(it)
		}
		mu.Lock()
		out = append(out, Ranking{System: name, Query: strings.Clone(r.Query), Items: items})
		mu.Unlock()
		return nil
	})
	return out, err
}

func traceRankings(in *systems.Input, stage string) ([]Ranking, error) {
	var mu sync.Mutex
	var ts []*trace.Trace
	if err := in.Scan(func(t *trace.Trace) error {
		mu.Lock()
		defer mu.Unlock()
		ts = append(ts, t)
		return nil
	}); err != nil {
		return nil, err
	}
	slices.SortStableFunc(ts, func(a, b *trace.Trace) int { return a.Line - b.Line }) // stable: foreign traces of one protobuf body share line 0, and come in a fixed order
	seen := map[string]bool{}
	var out []Ranking
	for _, t := range ts {
		seen[t.System] = true
		sys := t.System
		if in.Name != "" {
			sys = in.Name
		}
		if stage == "" {
			for _, s := range t.Stages {
				out = append(out, Ranking{System: sys, Query: t.Query, Items: s.IDs()})
			}
			continue
		}
		s := t.Stage(stage)
		if s == nil {
			var names []string
			for _, s := range t.Stages {
				names = append(names, s.Name)
			}
			return nil, &diag.Error{File: in.File.Name, Line: t.Line, Query: t.Query,
				Msg: fmt.Sprintf("system %q has no stage %q (it has %s)", t.System, stage, strings.Join(names, ", "))}
		}
		out = append(out, Ranking{System: sys, Query: t.Query, Items: s.IDs()})
	}
	if in.Name != "" && len(seen) > 1 {
		return nil, fmt.Errorf("%s holds traces of %d systems: NAME= would merge them; leave the name out", in.File.Name, len(seen))
	}
	return out, nil
}

// Sources are what a pool is drawn from, each read by the caller.
type Sources struct {
	Systems []*systems.Input // runs and trace files, as systems.Open gives them
	Stage   string           // from traces, pool this stage only; empty: every stage
	Runs    runs.Options     // how runs are read
	// Judgments already made, read on JudgedScale: pairs judged there are
	// left out (a negative grade counts as unjudged). Nil when none.
	Judgments *judgments.Set
	// Topics and Corpus, given together, leave out the items that are not
	// acceptable evidence for their query (InvalidEvidence).
	Topics *topics.Set
	Corpus *corpus.Corpus
}

// JudgedScale is the grade scale existing judgments are read on: any
// grade, a negative one marking a pair pooled but not judged.
var JudgedScale = judgments.Scale{Min: judgments.MinGrade, Max: judgments.MaxGrade}

// Pool reads the ranked lists of src (Read) and pools them (Build) with
// opt, whose Judged and Invalid tests are those of src's judgments,
// topics and corpus. Topics without a corpus, or a corpus without topics,
// is an error.
func Pool(src Sources, opt Options) (*Result, error) {
	rankings, err := Read(src.Systems, src.Stage, src.Runs)
	if err != nil {
		return nil, err
	}
	if (src.Topics == nil) != (src.Corpus == nil) {
		return nil, &diag.OptionError{
			Msg: "{topics} and {corpus} go together: the topics' scopes and dates against the items' metadata"}
	}
	if src.Topics != nil {
		opt.Invalid = InvalidEvidence(src.Corpus, src.Topics)
	}
	if src.Judgments != nil {
		opt.Judged = JudgedIn(src.Judgments)
	}
	return Build(rankings, opt)
}

// JudgedIn is the judged test of a judgments set: a pair with a grade of
// zero or more is judged; a negative grade (pooled, not judged) is not.
func JudgedIn(set *judgments.Set) Judged {
	return func(q, item string) bool {
		jq := set.Query(q)
		if jq == nil {
			return false
		}
		g, ok := jq.Grade(item)
		return ok && g >= 0
	}
}
