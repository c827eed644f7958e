package judgments

import (
	"bufio"
	"encoding/json"
	"io"
	"slices"
	"strings"
)

// Judgments returns the judgments of query id in reading order, with their
// spans and lines; nil when the query is not judged.
func (s *Set) Judgments(id string) []Judgment {
	q := s.queries[id]
	if q == nil {
		return nil
	}
	out := make([]Judgment, q.Len())
	for i := range out {
		item := strings.Clone(q.Key(i))
		x := q.extra[item]
		out[i] = Judgment{Query: id, Item: item, Grade: int(q.grades[i]), Spans: slices.Clone(x.spans),
			Facts: slices.Clone(x.facts), Meta: slices.Clone(x.meta), Line: int(q.lines[i])}
	}
	return out
}

// jsonlOut is the JSON Lines shape Read accepts.
type jsonlOut struct {
	Query string          `json:"query"`
	Item  string          `json:"item"`
	Grade int             `json:"grade"`
	Spans []string        `json:"spans,omitempty"`
	Facts []string        `json:"facts,omitempty"`
	Meta  json.RawMessage `json:"meta,omitempty"`
	wireProvenance
}

// WriteJSONL writes js as JSON Lines, one {"query","item","grade","spans"}
// object a line, in the order given, an LLM label with its provenance
// ("source":"llm", "model", "prompt_sha256", "endpoint", "temperature",
// "seed", "time", "audit"); Read reads the result back.
func WriteJSONL(w io.Writer, js []Judgment) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, j := range js {
		if err := enc.Encode(jsonlOut{j.Query, j.Item, j.Grade, j.Spans, j.Facts, j.Meta, j.LLM.wire()}); err != nil {
			return err
		}
	}
	return bw.Flush()
}
