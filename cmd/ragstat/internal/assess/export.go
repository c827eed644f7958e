package assess

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"

	"github.com/ragstat/ragstat/judgments"
)

// Records is what export and agreement read.
type Records interface {
	Grades(ctx context.Context) ([]Grade, error)
	AllSpans(ctx context.Context) ([]Span, error)
	Scale() judgments.Scale // every grade is on it
}

// Merge rules for several assessors' grades of one pair.
const (
	MergeMajority = "majority" // the grade most assessors gave; a tie goes to the lowest tied grade
	MergeMax      = "max"
	MergeMin      = "min"
)

// ExportOptions choose whose grades become judgments and how they are written.
type ExportOptions struct {
	Format   string // "trec" (query 0 item grade) or "jsonl"
	Assessor string // one assessor's grades
	Merge    string // or all assessors' grades merged: majority, max, min
}

// gathered is one pair's grades (meta.Assessors) and spans as collect
// gathers them.
type gathered struct {
	judgments.Judgment
	meta ExportMeta
}

// ExportMeta keeps who graded what, their notes, and which span supports
// which fact; the judgments reader accepts it under "meta" and leaves it be.
type ExportMeta struct {
	Assessors map[string]int      `json:"assessors"`
	Notes     map[string]string   `json:"notes,omitempty"`
	FactSpans map[string][]string `json:"fact_spans,omitempty"`
}

// Judgments selects and merges the stored grades as opt says, one judgment
// a graded pair with its ExportMeta as Meta. Without an
// assessor or a merge rule, a database graded by several assessors is an
// error: ragstat does not pick one for you.
func Judgments(ctx context.Context, db Records, opt ExportOptions) ([]judgments.Judgment, error) {
	grades, err := db.Grades(ctx)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, g := range grades {
		if !slices.Contains(names, g.Assessor) {
			names = append(names, g.Assessor)
		}
	}
	slices.Sort(names)
	switch {
	case len(grades) == 0:
		return nil, fmt.Errorf("the database holds no grades yet")
	case opt.Assessor != "" && opt.Merge != "":
		return nil, fmt.Errorf("give --assessor or --merge, not both")
	case opt.Assessor != "" && !slices.Contains(names, opt.Assessor):
		return nil, fmt.Errorf("no grades by %q; the assessors are %s", opt.Assessor, strings.Join(names, ", "))
	case opt.Assessor == "" && opt.Merge == "" && len(names) > 1:
		return nil, fmt.Errorf("%d assessors graded (%s): choose one with --assessor NAME or merge them with --merge majority|max|min",
			len(names), strings.Join(names, ", "))
	case opt.Merge != "" && opt.Merge != MergeMajority && opt.Merge != MergeMax && opt.Merge != MergeMin:
		return nil, fmt.Errorf("unknown merge %q: use majority, max or min", opt.Merge)
	}
	spans, err := db.AllSpans(ctx)
	if err != nil {
		return nil, err
	}
	return collect(grades, spans, opt, db.Scale())
}

// collect groups the selected grades (they come sorted by query, item,
// assessor) into judgments with their spans.
func collect(grades []Grade, spans []Span, opt ExportOptions, scale judgments.Scale) ([]judgments.Judgment, error) {
	var out []gathered
	index := map[Key]int{}
	for _, g := range grades {
		if opt.Assessor != "" && g.Assessor != opt.Assessor {
			continue
		}
		if !scale.Contains(g.Grade) {
			return nil, fmt.Errorf("%s graded %q/%q %d, outside the scale %s", g.Assessor, g.Query, g.Item, g.Grade, scale)
		}
		i, ok := index[g.Key]
		if !ok {
			i = len(out)
			index[g.Key] = i
			out = append(out, gathered{Judgment: judgments.Judgment{Query: g.Query, Item: g.Item}, meta: ExportMeta{Assessors: map[string]int{}}})
		}
		j := &out[i]
		j.meta.Assessors[g.Assessor] = g.Grade
		if g.Note != "" {
			if j.meta.Notes == nil {
				j.meta.Notes = map[string]string{}
			}
			j.meta.Notes[g.Assessor] = g.Note
		}
	}
	for _, s := range spans {
		i, ok := index[s.Key]
		if !ok {
			continue
		}
		j := &out[i]
		if _, graded := j.meta.Assessors[s.Assessor]; !graded {
			continue
		}
		if !slices.Contains(j.Spans, s.Text) {
			j.Spans = append(j.Spans, s.Text)
		}
		if s.Fact != "" {
			if !slices.Contains(j.Facts, s.Fact) {
				j.Facts = append(j.Facts, s.Fact)
			}
			if j.meta.FactSpans == nil {
				j.meta.FactSpans = map[string][]string{}
			}
			if !slices.Contains(j.meta.FactSpans[s.Fact], s.Text) {
				j.meta.FactSpans[s.Fact] = append(j.meta.FactSpans[s.Fact], s.Text)
			}
		}
	}
	js := make([]judgments.Judgment, len(out))
	for i, g := range out {
		slices.Sort(g.Facts)
		meta, err := compactJSON(g.meta)
		if err != nil {
			return nil, err
		}
		js[i] = g.Judgment
		js[i].Grade, js[i].Meta = merge(g.meta.Assessors, opt.Merge, scale), meta
	}
	return js, nil
}

// compactJSON is v as one line of JSON, its text left unescaped as the
// export writes it.
func compactJSON(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// merge applies rule to the grades of one pair, all on scale.
func merge(by map[string]int, rule string, scale judgments.Scale) int {
	counts := make([]int, scale.Max-scale.Min+1)
	for _, g := range by {
		counts[g-scale.Min]++
	}
	best := -1
	for i, n := range counts {
		if n == 0 {
			continue
		}
		switch {
		case best < 0, rule == MergeMax, rule == MergeMajority && n > counts[best]:
			best = i
		}
		if rule == MergeMin {
			return scale.Min + i
		}
	}
	return scale.Min + best
}

// Export writes the judgments opt selects and returns how many it wrote.
func Export(ctx context.Context, db Records, w io.Writer, opt ExportOptions) (int, error) {
	js, err := Judgments(ctx, db, opt)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriter(w)
	switch opt.Format {
	case "trec":
		for _, j := range js {
			if err := trecID(j.Query, j.Item); err != nil {
				return 0, err
			}
			fmt.Fprintf(bw, "%s 0 %s %d\n", j.Query, j.Item, j.Grade)
		}
	case "jsonl":
		if err := judgments.WriteJSONL(bw, js); err != nil {
			return 0, err
		}
	default:
		return 0, fmt.Errorf("unknown export format %q: use trec or jsonl", opt.Format)
	}
	return len(js), bw.Flush()
}

func trecID(ids ...string) error {
	for _, id := range ids {
		if strings.ContainsFunc(id, unicode.IsSpace) {
			return fmt.Errorf("id %q has white space, which TREC qrels cannot hold: export --format jsonl", id)
		}
	}
	return nil
}
