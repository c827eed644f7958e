package topics

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/jsonin"
)

// The importance of a fact, as TREC RAG 2024's nuggets grade it.
const (
	Vital = "vital"
	Okay  = "okay"
)

// The assignments of a nugget to an answer or a passage, as nuggetizer
// writes them.
const (
	Supported       = "support"
	PartlySupported = "partial_support"
	NotSupported    = "not_support"
)

// nuggetLine is a line of nuggetizer's nugget file (create's output): one
// query and its scored nuggets. trace is nuggetizer's optional record of
// the LLM calls, accepted and not read.
type nuggetLine struct {
	QID     *string         `json:"qid"`
	Query   string          `json:"query"`
	Nuggets []wireNugget    `json:"nuggets"`
	Trace   json.RawMessage `json:"trace"`
}

// wireNugget is one nugget as nuggetizer writes it; Assignment is present
// in assignment files only.
type wireNugget struct {
	Text       string          `json:"text"`
	Importance string          `json:"importance"`
	Assignment *string         `json:"assignment"`
	Reasoning  string          `json:"reasoning"`
	Trace      json.RawMessage `json:"trace"`
}

// parseNuggets reads one line of a nugget file.
func parseNuggets(data []byte) (*Topic, error) {
	var v nuggetLine
	if err := jsonin.Decode(data, &v); err != nil {
		return nil, err
	}
	if v.QID == nil || strings.TrimSpace(*v.QID) == "" {
		return nil, fmt.Errorf(`missing or empty "qid"`)
	}
	t := &Topic{ID: *v.QID, Text: v.Query, Answerable: true}
	seen := map[string]int{}
	for i, n := range v.Nuggets {
		if n.Assignment != nil {
			return t, fmt.Errorf("nugget %d has an assignment: this is an assignment file, not a nugget file", i+1)
		}
		if err := checkNugget(n, i, seen); err != nil {
			return t, err
		}
		t.Facts = append(t.Facts, Fact{ID: strconv.Itoa(i + 1), Text: n.Text, Importance: n.Importance})
	}
	if len(t.Facts) == 0 {
		return t, fmt.Errorf(`no nuggets: "nuggets" lists the query's facts`)
	}
	return t, nil
}

// checkNugget checks nugget i's text and importance, and that its text is
// not one seen (text -> 1-based position) before.
func checkNugget(n wireNugget, i int, seen map[string]int) error {
	if strings.TrimSpace(n.Text) == "" {
		return fmt.Errorf("nugget %d: empty text", i+1)
	}
	if j, ok := seen[n.Text]; ok {
		return fmt.Errorf("nugget %d repeats nugget %d's text %q", i+1, j, n.Text)
	}
	seen[n.Text] = i + 1
	switch n.Importance {
	case Vital, Okay:
		return nil
	case "failed":
		return fmt.Errorf("nugget %d: importance %q: nuggetizer could not score it; score it again or remove it", i+1, n.Importance)
	}
	return fmt.Errorf("nugget %d: importance %q is neither %q nor %q", i+1, n.Importance, Vital, Okay)
}

// Assigned is one nugget of an assignment: its text and importance, and
// whether the answer or passage supports it: Supported, PartlySupported
// or NotSupported.
type Assigned struct {
	Text, Importance, Assignment string
}

// Assignment is one line of nuggetizer's assignment output: the query's
// nuggets, each assigned to one answer (Doc empty; Run is the answer's
// run_id, when given) or to one retrieved passage (Doc its docid).
type Assignment struct {
	Query, Run, Doc string
	Nuggets         []Assigned
	Line            int
}

// assignmentLine is the JSON shape of both kinds of assignment line:
// answers ({"qid", "query", "answer_text", "response_length", "run_id",
// "nuggets"}) and retrieved passages ({"qid", "text", "docid",
// "candidate_text", "nuggets"}), each with nuggetizer's optional "trace".
type assignmentLine struct {
	QID            *string         `json:"qid"`
	Query          string          `json:"query"`
	Text           string          `json:"text"`
	AnswerText     string          `json:"answer_text"`
	ResponseLength json.RawMessage `json:"response_length"`
	RunID          string          `json:"run_id"`
	DocID          string          `json:"docid"`
	CandidateText  string          `json:"candidate_text"`
	Nuggets        []wireNugget    `json:"nuggets"`
	Trace          json.RawMessage `json:"trace"`
}

// ReadAssignments reads nuggetizer's assignment file (JSON Lines, as its
// assign step writes them for answers or for retrieved passages). Every
// line is checked: a missing qid, a nugget without an assignment or with
// one other than "support", "partial_support" or "not_support", and the
// nugget errors of a nugget file (Read) name the file and line. The same query
// assigned twice to the same run's answer, or to the same passage, is an
// error naming both lines.
func ReadAssignments(f *input.File) ([]Assignment, error) {
	var out []Assignment
	lines := map[[3]string]int{}
	err := jsonin.FileLines(f, f.Name, func(line int, data []byte) error {
		a, err := parseAssignment(data)
		if err != nil {
			return &diag.Error{File: f.Name, Line: line, Query: a.Query, Msg: err.Error()}
		}
		key := [3]string{a.Query, a.Run, a.Doc}
		if old, ok := lines[key]; ok {
			what := "answer"
			if a.Doc != "" {
				what = "passage"
			}
			return &diag.Error{File: f.Name, Line: line, Query: a.Query, Item: a.Doc, Msg: fmt.Sprintf("the same %s assigned again (also line %d)", what, old)}
		}
		lines[key] = line
		a.Line = line
		out = append(out, a)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func parseAssignment(data []byte) (Assignment, error) {
	var v assignmentLine
	if err := jsonin.Decode(data, &v); err != nil {
		return Assignment{}, err
	}
	if v.QID == nil || strings.TrimSpace(*v.QID) == "" {
		return Assignment{}, fmt.Errorf(`missing or empty "qid"`)
	}
	a := Assignment{Query: *v.QID, Run: v.RunID, Doc: v.DocID}
	seen := map[string]int{}
	for i, n := range v.Nuggets {
		if err := checkNugget(n, i, seen); err != nil {
			return a, err
		}
		if n.Assignment == nil {
			return a, fmt.Errorf("nugget %d has no assignment: this is a nugget file, not an assignment file", i+1)
		}
		switch *n.Assignment {
		case Supported, PartlySupported, NotSupported:
		default:
			return a, fmt.Errorf("nugget %d: assignment %q is none of %q, %q, %q", i+1, *n.Assignment, Supported, PartlySupported, NotSupported)
		}
		a.Nuggets = append(a.Nuggets, Assigned{Text: n.Text, Importance: n.Importance, Assignment: *n.Assignment})
	}
	if len(a.Nuggets) == 0 {
		return a, fmt.Errorf(`no nuggets: "nuggets" lists the query's assigned nuggets`)
	}
	return a, nil
}

// NuggetScores are nuggetizer's four scores of one answer: the share of
// its vital nuggets, and of all its nuggets, that the answer supports,
// strictly (support counts 1, partial support 0) and with partial support
// counting 1/2. As nuggetizer computes them, the vital scores are 0 when
// the query has no vital nugget (Vital is then 0).
type NuggetScores struct {
	StrictVital, VitalScore, StrictAll, AllScore float64
	// Vital and All count the nuggets scored.
	Vital, All int
}

// Scores returns the assignment's four scores.
func (a Assignment) Scores() NuggetScores {
	var s NuggetScores
	var strictV, partialV, strictA, partialA float64
	for _, n := range a.Nuggets {
		credit, strict := 0.0, 0.0
		switch n.Assignment {
		case Supported:
			credit, strict = 1, 1
		case PartlySupported:
			credit = 0.5
		}
		s.All++
		strictA += strict
		partialA += credit
		if n.Importance == Vital {
			s.Vital++
			strictV += strict
			partialV += credit
		}
	}
	if s.Vital > 0 {
		s.StrictVital, s.VitalScore = strictV/float64(s.Vital), partialV/float64(s.Vital)
	}
	if s.All > 0 {
		s.StrictAll, s.AllScore = strictA/float64(s.All), partialA/float64(s.All)
	}
	return s
}

// support gives facts the support of retrieval assignments
// (Options.Assignments); nil gives none.
type support struct {
	file    string
	opt     Options
	byQuery map[string][]*Assignment // the retrieval assignments, in line order
	read    map[string]bool          // the queries of those read
}

func newSupport(opt Options) *support {
	var s *support
	for i := range opt.Assignments {
		a := &opt.Assignments[i]
		if a.Doc == "" {
			continue
		}
		if s == nil {
			s = &support{file: opt.AssignmentsFile, opt: opt, byQuery: map[string][]*Assignment{}, read: map[string]bool{}}
		}
		s.byQuery[a.Query] = append(s.byQuery[a.Query], a)
	}
	return s
}

// give gives t, read from file, its support, and notes that its query
// was read.
func (s *support) give(t *Topic, file string) error {
	if s == nil {
		return nil
	}
	s.read[t.ID] = true
	return s.join(t, file)
}

// join makes each passage assigned Supported an alternative of the fact
// of t with the nugget's text.
func (s *support) join(t *Topic, file string) error {
	as := s.byQuery[t.ID]
	if len(as) == 0 {
		return nil
	}
	byText := make(map[string]int, len(t.Facts))
	for i, f := range t.Facts {
		if _, ok := byText[f.Text]; !ok {
			byText[f.Text] = i
		}
	}
	for _, a := range as {
		for _, n := range a.Nuggets {
			i, ok := byText[n.Text]
			bad := func(msg string) error {
				return &diag.Error{File: s.file, Line: a.Line, Query: a.Query, Item: a.Doc, Msg: fmt.Sprintf("nugget %q %s (%s:%d)", n.Text, msg, file, t.Line)}
			}
			switch {
			case !ok:
				return bad("is none of the query's facts")
			case t.Facts[i].Importance != "" && t.Facts[i].Importance != n.Importance:
				return bad(fmt.Sprintf("is %s here and %s in the topics: the assignments are of other nuggets", n.Importance, t.Facts[i].Importance))
			case n.Assignment == Supported && !supportedBy(t.Facts[i], a.Doc):
				t.Facts[i].Support = append(t.Facts[i].Support, Support{{Item: a.Doc}})
			}
		}
	}
	return nil
}

// unread reports the retrieval assignments of queries not in the topics
// file, once a query.
func (s *support) unread(file string) error {
	if s == nil {
		return nil
	}
	var errs diag.List
	for _, a := range s.opt.Assignments {
		if a.Doc != "" && !s.read[a.Query] {
			s.read[a.Query] = true
			errs.Add(&diag.Error{File: s.file, Line: a.Line, Query: a.Query, Item: a.Doc, Msg: "no such query in " + file})
		}
	}
	return errs.Err()
}

// parser is parse giving each topic its support.
func (s *support) parser(parse Parser) Parser {
	if s == nil {
		return parse
	}
	return func(data []byte) (*Topic, error) {
		t, err := parse(data)
		if err == nil {
			err = s.join(t, "the topics")
		}
		return t, err
	}
}

func supportedBy(f Fact, item string) bool {
	for _, alt := range f.Support {
		if len(alt) == 1 && alt[0].Item == item {
			return true
		}
	}
	return false
}
