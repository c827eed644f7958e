package settings

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/analysis"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/sniff"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/metric"
	"github.com/ragstat/ragstat/stages"
	"github.com/ragstat/ragstat/topics"
)

// Stages describes an evaluation of stages as the command line gives it:
// the evaluation's settings (no subtopics, the item unit; no Cutoff: each
// stage has its own), the files beside the traces, and the analyses.
// Errors about a setting are diag.OptionErrors naming it as an Option
// ("subtopics", "k").
type Stages struct {
	Eval
	// Topics (required) and Corpus are the topics and corpus files;
	// Tokenizer names the generator's tokenizer (Tokenizer), for token
	// budgets.
	Topics, Corpus, Tokenizer string
	StageCutoffs              map[string]int // stage name -> k; a stage without one is read whole
	Truncated                 string         // stages.ParseTruncated's names; "": error
	AllowNoMetadata           bool           // with scopes or dates in play, accept items with no metadata
	// Analyses turns the analyses on, with Target (analysis.ParseTarget),
	// Bins, Shingle, Jaccard and PassF1 (see stages.AnalysisOptions) and the
	// prices per million input and output tokens (0: no cost), which need
	// it.
	Analyses          bool
	Target            string
	Bins, Shingle     int
	Jaccard, PassF1   float64
	PriceIn, PriceOut float64
	// Keep, when set, evaluates one shard of a split by query: only the
	// queries it accepts, whose judgments and topics alone are held
	// (stages.Options.Shard).
	Keep func(query string) bool
	// Spill reads the judgments and topics into a temporary file in
	// TempDir (the system's when empty) instead of memory (stages.Input.Spilled),
	// checking every line as reading them does: what an evaluation holds
	// then does not grow with the number of queries. The caller closes the
	// Input, which removes the file.
	Spill   bool
	TempDir string

	// NuggetAssignments names nuggetizer's assignments: their answer lines
	// give the answers' nugget scores (stages.NuggetAnswers), their
	// retrieval lines the topics' facts their support (topics.Options);
	// "": none.
	NuggetAssignments string
}

// Policy is the evaluation's policy, with what its preset set (see
// Eval.Policy); subtopics and the doc unit are refused.
func (r Stages) Policy() (eval.Policy, []string, error) {
	if r.Subtopics != "" {
		return eval.Policy{}, nil, &diag.OptionError{Scope: "policy", Option: "subtopics",
			Msg: "is not available for stages: the diversity metrics apply to eval and compare over runs"}
	}
	if r.Unit != "" && r.Unit != string(eval.UnitItem) {
		return eval.Policy{}, nil, &diag.OptionError{Scope: "policy", Option: "unit", Value: r.Unit,
			Msg: "is not available for stages: stages evaluate the items the pipeline delivered"}
	}
	return r.Eval.Policy()
}

// Options are the options of stages.Evaluate under policy p: the metrics (none
// named: R, RR and nDCG over each stage's list at its cutoff), the
// truncation policy, the tokenizer and the analyses.
func (r Stages) Options(p eval.Policy) (stages.Options, error) {
	if r.Cutoff > 0 {
		return stages.Options{}, &diag.OptionError{Scope: "policy", Msg: "stages take per-stage cutoffs: {k} NAME=K (e.g. {k} candidates=50 {k} reranked=10)"}
	}
	names := r.Metrics
	if len(names) == 0 {
		names = []string{"R", "RR", "nDCG"}
	}
	ms, err := metric.ParseAllLike(names, p.Like)
	if err != nil {
		return stages.Options{}, err
	}
	if p.Labels == eval.LabelsPPI && r.Keep != nil {
		return stages.Options{}, &diag.OptionError{Scope: "policy", Option: "labels", Value: string(eval.LabelsPPI), Msg: "draws on the whole audit: it does not split into shards"}
	}
	opt := stages.Options{Policy: p, Metrics: ms, Cutoffs: r.StageCutoffs, Truncated: stages.TruncatedError, AllowNoMetadata: r.AllowNoMetadata, Shard: r.Keep}
	if r.Truncated != "" {
		if opt.Truncated, err = stages.ParseTruncated(r.Truncated); err != nil {
			return opt, err
		}
	}
	if opt.Tokenizer, err = Tokenizer(r.Tokenizer); err != nil {
		return opt, err
	}
	opt.Analyses, err = r.analyses()
	return opt, err
}

// analyses are the analyses' options, nil when they are off.
func (r Stages) analyses() (*stages.AnalysisOptions, error) {
	if !r.Analyses {
		if r.Target != "" || r.PriceIn != 0 || r.PriceOut != 0 || r.PassF1 != 0 {
			return nil, &diag.OptionError{Scope: "policy", Msg: "{target}, {pass_f1}, {price_in} and {price_out} belong to {analyses}"}
		}
		return nil, nil
	}
	t, err := analysis.ParseTarget(r.Target)
	if err != nil {
		return nil, err
	}
	o := &stages.AnalysisOptions{Target: t, Bins: r.Bins, Shingle: r.Shingle, Jaccard: r.Jaccard, PassF1: r.PassF1}
	if r.PriceIn != 0 || r.PriceOut != 0 {
		o.Price = &analysis.Cost{Input: r.PriceIn, Output: r.PriceOut}
	}
	return o, nil
}

// Read reads the judgments (on p's scale, read as p's label choice), the
// topics and, when named, the corpus and the nugget assignments into s.
// It adds the files it opened to s.Files, with their roles, to be closed
// by the caller, also on error.
func (r Stages) Read(s *Sources, p eval.Policy, files Files) error {
	in := &s.Input
	open := func(role, path string) (*input.File, error) {
		f, err := files.Open(path)
		if err == nil {
			s.add(role, f)
		}
		return f, err
	}
	readJudgments := files.ReadJudgments
	if readJudgments == nil {
		readJudgments = judgments.Read
	}
	format, _ := input.ParseFormat(r.JudgmentsFormat)
	opt := judgments.Options{Format: format, Scale: p.Scale, NumericIDs: r.NumericIDs, Keep: r.Keep}
	jf, err := files.openJudgments(r.Judgments, opt)
	if err == nil {
		s.add("judgments", jf)
	}
	if err == nil && r.Spill && p.Labels != eval.LabelsPPI {
		*in, err = r.spill(jf, files, readJudgments, opt, open)
		if !errors.Is(err, errLabelled) {
			return err
		}
		for _, f := range s.Files[1:] { // LLM labels: the judgments are read into memory
			f.Close()
		}
		s.Files, s.Roles, err = s.Files[:1], s.Roles[:1], nil
	}
	if err == nil {
		in.Judgments, err = readJudgments(jf, opt)
	}
	if err == nil {
		s.Labelled = in.Judgments
		in.Judgments, s.LabelNotes, err = p.Labels.Choose(in.Judgments)
	}
	if err != nil {
		return err
	}
	topt, err := r.topicsOptions(open)
	var tf *input.File
	if err == nil {
		tf, err = r.openTopics(open, topt)
	}
	if err == nil {
		in.Topics, err = topics.ReadWith(tf, topt)
	}
	if err == nil && r.Corpus != "" {
		in.Corpus, err = r.readCorpus(open)
	}
	if err == nil {
		in.Nuggets, err = r.nuggets(topt)
	}
	return err
}

// errLabelled stops a spill of judgments that hold LLM labels: they are
// read into memory instead, where the label choice reads them.
var errLabelled = errors.New("the judgments hold LLM labels")

// spill reads the nugget assignments, the judgments (file jf, already
// opened) and the topics into a temporary file (stages.Input.Spilled),
// then the corpus, each opened by open. Judgments that hold LLM labels are not spilled: it
// returns errLabelled, the spill removed.
func (r Stages) spill(jf *input.File, files Files, readJudgments func(*input.File, judgments.Options) (*judgments.Set, error),
	opt judgments.Options, open func(role, path string) (*input.File, error)) (stages.Input, error) {
	var in stages.Input
	var err error
	dir := r.TempDir
	if dir == "" {
		dir = os.TempDir()
	}
	labelled := false
	src := func(emit func(judgments.Judgment)) (input.Format, error) {
		if head, _ := jf.Head(4); string(head) == "PAR1" && files.ReadJudgments != nil || jf.Name == files.merged {
			set, err := readJudgments(jf, opt)
			if err != nil {
				return input.FormatAuto, err
			}
			if set.LLMLen() > 0 {
				return input.FormatAuto, errLabelled
			}
			emitSet(set, emit)
			return set.Format, nil
		}
		return judgments.Stream(jf, opt, func(j judgments.Judgment) {
			if j.LLM != nil {
				labelled = true
				return
			}
			emit(j)
		})
	}
	topt, err := r.topicsOptions(open)
	if err != nil {
		return in, err
	}
	in.Spilled, err = stages.Spill(jf.Name, src, func() (*input.File, error) { return r.openTopics(open, topt) }, topt, opt.Scale, dir)
	if errors.Is(err, errLabelled) || err == nil && labelled {
		in.Spilled.Close()
		return stages.Input{}, errLabelled
	}
	if err == nil && r.Corpus != "" {
		in.Corpus, err = r.readCorpus(open)
	}
	if err == nil {
		in.Nuggets, err = r.nuggets(topt)
	}
	return in, err
}

// topicsOptions are the options the topics are read under: the shard's
// queries, and the nugget assignments, when named, read (held in memory)
// for the support their retrieval lines give the facts.
func (r Stages) topicsOptions(open func(role, path string) (*input.File, error)) (topics.Options, error) {
	topt := topics.Options{Keep: r.Keep}
	if r.NuggetAssignments == "" {
		return topt, nil
	}
	f, err := open("nugget_assignments", r.NuggetAssignments)
	if err == nil {
		topt.Assignments, err = topics.ReadAssignments(f)
		topt.AssignmentsFile = f.Name
	}
	return topt, err
}

// openTopics opens the topics file, refused when NuggetSupport refuses it.
func (r Stages) openTopics(open func(role, path string) (*input.File, error), topt topics.Options) (*input.File, error) {
	f, err := open("topics", r.Topics)
	if err == nil {
		err = NuggetSupport(f, topt)
	}
	return f, err
}

// NuggetSupport refuses topics file f, to be read under topt, for fact
// coverage when it is a nugget file and topt holds no assignment of a
// retrieved passage: its nuggets name no passage, so no stage could cover
// one and coverage would read 0 by construction.
func NuggetSupport(f *input.File, topt topics.Options) error {
	head, err := f.Head(4096)
	if err != nil || !sniff.NuggetFile(head) || slices.ContainsFunc(topt.Assignments, func(a topics.Assignment) bool { return a.Doc != "" }) {
		return err
	}
	return &diag.OptionError{Option: "topics", Value: diag.Literal(f.Name), Msg: "is nuggetizer's nugget file, whose nuggets name no passage: " +
		"give {nugget_assignments} the assignments of retrieved passages (each \"support\" is a nugget's support), " +
		"or, for the metrics and nugget scores alone, topics without facts (the queries' TSV)"}
}

// nuggets are the answers' four scores of the assignments topt holds,
// nil when none are named.
func (r Stages) nuggets(topt topics.Options) (map[string]topics.NuggetScores, error) {
	if r.NuggetAssignments == "" {
		return nil, nil
	}
	return stages.NuggetAnswers(topt.AssignmentsFile, topt.Assignments)
}

// readCorpus reads the corpus file.
func (r Stages) readCorpus(open func(role, path string) (*input.File, error)) (*corpus.Corpus, error) {
	cf, err := open("corpus", r.Corpus)
	if err != nil {
		return nil, err
	}
	return corpus.Read(cf)
}

// emitSet hands every judgment of a set read whole (a Parquet file) to
// emit, as judgments.Stream would: each query opens with an empty item at
// its first line.
func emitSet(set *judgments.Set, emit func(judgments.Judgment)) {
	for _, id := range set.IDs() {
		q := set.Query(id)
		emit(judgments.Judgment{Query: id, Line: q.FirstLine()})
		for k := range q.Len() {
			item := q.Key(k)
			emit(judgments.Judgment{Query: id, Item: item, Grade: q.GradeAt(k), Spans: q.Spans(item), Line: q.FirstLine()})
		}
	}
}

// Cutoffs are the cutoffs the command line gives with -k, one value each
// time the flag repeats: K sets Default, the cutoff of every list (of the
// default metrics in an evaluation of runs); STAGE=K sets one stage's in
// ByStage. A later value for the same list replaces an earlier one.
type Cutoffs struct {
	Default int
	ByStage map[string]int
}

// UnmarshalText reads one value (ParseCutoff), so that flag parsers such
// as kong fill Cutoffs; its errors quote the value after "-k".
func (c *Cutoffs) UnmarshalText(text []byte) error {
	stage, k, err := parseCutoff(string(text))
	switch {
	case err != nil:
		return fmt.Errorf("-k %q: %w", text, err)
	case stage == "":
		c.Default = k
	default:
		if c.ByStage == nil {
			c.ByStage = map[string]int{}
		}
		c.ByStage[stage] = k
	}
	return nil
}

// parseCutoff reads a cutoff as the command line gives it: K, a cutoff for
// every list (stage ""), or STAGE=K, one stage's; K is a positive integer.
func parseCutoff(s string) (stage string, k int, err error) {
	stage, v, staged := strings.Cut(s, "=")
	if !staged {
		stage, v = "", s
	}
	if k, err = strconv.Atoi(strings.TrimSpace(v)); err != nil || k <= 0 {
		return "", 0, errors.New("the cutoff must be a positive integer")
	}
	if staged && strings.TrimSpace(stage) == "" {
		return "", 0, errors.New("name the stage, as in reranked=10")
	}
	return stage, k, nil
}
