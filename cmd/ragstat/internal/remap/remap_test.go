package remap

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/chunks"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
	"github.com/ragstat/ragstat/topics"
)

// The refund policy in two revisions: revision 2 changes "30" to "45" and
// adds a sentence that repeats "not refunded".
const docs = `{"doc":"policy","revision":"1","text":"Refunds are accepted within 30 days of purchase. Shipping costs are not refunded. Contact support to start a refund."}
{"doc":"policy","revision":"2","text":"Refunds are accepted within 45 days of purchase. Shipping costs are not refunded. Gift cards are not refunded. Contact support to start a refund."}
{"doc":"faq","revision":"1","text":"How do refunds work?"}
`

// Old chunks: one a sentence of revision 1, and the FAQ.
const oldChunks = `{"id":"o1","doc":"policy","revision":"1","start":0,"end":49}
{"id":"o2","doc":"policy","revision":"1","start":49,"end":82}
{"id":"o3","doc":"policy","revision":"1","start":82,"end":116}
{"id":"f1","doc":"faq","revision":"1","start":0,"end":20}
`

// Shifted: revision 1 in three chunks whose boundaries cut sentences.
const shifted = `{"id":"n1","doc":"policy","revision":"1","start":0,"end":30}
{"id":"n2","doc":"policy","revision":"1","start":25,"end":60}
{"id":"n3","doc":"policy","revision":"1","start":55,"end":116}
`

// Revised: revision 2, a chunk a sentence.
const revised = `{"id":"m1","doc":"policy","revision":"2","start":0,"end":49}
{"id":"m2","doc":"policy","revision":"2","start":49,"end":82}
{"id":"m3","doc":"policy","revision":"2","start":82,"end":111}
{"id":"m4","doc":"policy","revision":"2","start":111,"end":145}
`

func mapper(t *testing.T, newChunks string, minOverlap float64) *Mapper {
	t.Helper()
	ds, err := chunks.ReadDocuments(input.FromBytes("docs.jsonl", []byte(docs)))
	if err != nil {
		t.Fatal(err)
	}
	old, err := chunks.Read(input.FromBytes("old.jsonl", []byte(oldChunks)))
	if err != nil {
		t.Fatal(err)
	}
	nw, err := chunks.Read(input.FromBytes("new.jsonl", []byte(newChunks)))
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(old, nw, ds, minOverlap)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// j writes one JSONL judgment of query q.
func j(item string, grade int, spans ...string) string {
	s := fmt.Sprintf(`{"query":"q","item":%q,"grade":%d`, item, grade)
	if len(spans) > 0 {
		s += `,"spans":["` + strings.Join(spans, `","`) + `"]`
	}
	return s + "}\n"
}

// reviews summarises review lines as "status item|old: reason".
func reviews(rs []Review) []string {
	var out []string
	for _, r := range rs {
		who := r.Item
		if who == "" {
			who = r.Old[0].Item
		}
		out = append(out, fmt.Sprintf("%s %s: %s", r.Status, who, r.Reason))
	}
	return out
}

func TestJudgments(t *testing.T) {
	for _, tc := range []struct {
		name, chunks, in, out string
		review                []string
		counts                Counts // of query q
	}{
		{"span held whole", shifted, j("o3", 3, "start a refund"), j("n3", 3, "start a refund"), nil,
			Counts{Total: 1, Mapped: 1}},
		{"whole chunk covered", shifted, j("o3", 2), j("n3", 2), nil, Counts{Total: 1, Mapped: 1}},
		{"span cut", shifted, j("o1", 3, "within 30 days"), "",
			[]string{"ambiguous o1: the span is cut across new chunks n1, n2; none holds it whole"}, Counts{Total: 1, Ambiguous: 1}},
		{"partial overlap", shifted, j("o2", 1), "",
			[]string{"ambiguous o2: new chunks cover only part of the old chunk (n2 33%, n3 82%; --min-overlap 0.9)"}, Counts{Total: 1, Ambiguous: 1}},
		{"one span cut, one held", shifted, j("o1", 3, "are accepted", "within 30 days"), j("n1", 3, "are accepted"),
			[]string{"ambiguous o1: the span is cut across new chunks n1, n2; none holds it whole"}, Counts{Total: 1, Ambiguous: 1}},
		{"span not in the old chunk", shifted, j("o1", 3, "Gift"), "",
			[]string{`unmapped o1: the span is not in the text of old chunk "o1"`}, Counts{Total: 1, Unmapped: 1}},
		{"document not rechunked", shifted, j("f1", 2), "",
			[]string{`unmapped f1: document "faq" has no new chunks`}, Counts{Total: 1, Unmapped: 1}},
		{"conflicting grades", shifted, j("o2", 1, "not refunded") + j("o3", 3, "start a refund"), "",
			[]string{`conflicting n3: new chunk "n3" would take different grades from several old judgments; it takes none`},
			Counts{Total: 2, Conflicting: 2}},
		{"agreeing grades", shifted, j("o2", 2, "not refunded") + j("o3", 2), j("n3", 2, "not refunded"), nil, Counts{Total: 2, Mapped: 2}},
		{"revision changed, span found once", revised, j("o3", 3, "start a refund"), j("m4", 3, "start a refund"), nil,
			Counts{Total: 1, Mapped: 1}},
		{"revision changed, chunk text found once", revised, j("o2", 1), j("m2", 1), nil, Counts{Total: 1, Mapped: 1}},
		{"revision changed, span gone", revised, j("o1", 3, "within 30 days"), "",
			[]string{`unmapped o1: the span is not in revision "2"`}, Counts{Total: 1, Unmapped: 1}},
		{"revision changed, chunk text gone", revised, j("o1", 3), "",
			[]string{`unmapped o1: the old chunk's text is not in revision "2"`}, Counts{Total: 1, Unmapped: 1}},
		{"revision changed, span repeated", revised, j("o2", 1, "not refunded"), "",
			[]string{`ambiguous o2: the span occurs 2 times in revision "2"`}, Counts{Total: 1, Ambiguous: 1}},
		{"both revisions rechunked", shifted + revised, j("o3", 3, "start a refund"), j("n3", 3, "start a refund") + j("m4", 3, "start a refund"), nil,
			Counts{Total: 1, Mapped: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			js, err := judgments.Read(input.FromBytes("j.jsonl", []byte(tc.in)), judgments.Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := mapper(t, tc.chunks, 0.9).Judgments(js)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := judgments.WriteJSONL(&buf, res.Judgments); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tc.out {
				t.Errorf("judgments:\n%s\nwant:\n%s", buf.String(), tc.out)
			}
			if got := reviews(res.Review); strings.Join(got, "\n") != strings.Join(tc.review, "\n") {
				t.Errorf("review:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.review, "\n"))
			}
			tc.counts.ID = "q"
			if len(res.Counts) != 1 || res.Counts[0] != tc.counts {
				t.Errorf("counts %+v, want %+v", res.Counts, tc.counts)
			}
		})
	}
}

func TestMinOverlap(t *testing.T) {
	js, _ := judgments.Read(input.FromBytes("j.jsonl", []byte(j("o2", 1))), judgments.Options{})
	res, err := mapper(t, shifted, 0.8).Judgments(js)
	if err != nil {
		t.Fatal(err)
	}
	// n3 covers 82% of o2 and takes its grade; n2's 33% still goes to review.
	if len(res.Judgments) != 1 || res.Judgments[0].Item != "n3" || len(res.Review) != 1 || res.Review[0].Partial[0] != "n2" {
		t.Errorf("judgments %+v, review %+v", res.Judgments, res.Review)
	}
	if _, err := New(nil, nil, nil, 0); err == nil || !strings.Contains(err.Error(), "min-overlap 0 must be in (0, 1]") {
		t.Errorf("min-overlap 0: %v", err)
	}
}

func TestUnknownItems(t *testing.T) {
	js, _ := judgments.Read(input.FromBytes("j.jsonl", []byte(j("o1", 1)+j("gone", 2))), judgments.Options{})
	_, err := mapper(t, shifted, 0.9).Judgments(js)
	if err == nil || !strings.Contains(err.Error(), `j.jsonl:2: query "q", item "gone": judged item is not in the old chunk file old.jsonl`) {
		t.Errorf("error %v", err)
	}
	ts, _ := topics.Read(input.FromBytes("t.jsonl", []byte(`{"id":"q","facts":[{"id":"f","support":[{"item":"gone"}]}]}`)))
	_, err = mapper(t, shifted, 0.9).Topics(ts)
	if err == nil || !strings.Contains(err.Error(), `t.jsonl:1: query "q", item "gone": fact "f": supporting item is not in the old chunk file`) {
		t.Errorf("error %v", err)
	}
}

func TestTopics(t *testing.T) {
	in := `{"id":"q","facts":[{"id":"window","support":[{"item":"o3","span":"start a refund"},{"all":[{"item":"o1","span":"within 30 days"},{"item":"o2"}]}]},{"id":"lost","support":[{"item":"o1","span":"within 30 days"}]}]}
{"id":"plain","answerable":false}
`
	ts, err := topics.Read(input.FromBytes("t.jsonl", []byte(in)))
	if err != nil {
		t.Fatal(err)
	}
	res, err := mapper(t, shifted+revised, 0.9).Topics(ts)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := topics.Write(&buf, res.Topics); err != nil {
		t.Fatal(err)
	}
	want := `{"id":"q","answerable":true,"facts":[{"id":"window","support":[{"item":"n3","span":"start a refund"},{"item":"m4","span":"start a refund"}]}]}
{"id":"plain","answerable":false}
`
	if buf.String() != want {
		t.Errorf("topics:\n%s\nwant:\n%s", buf.String(), want)
	}
	if _, err := topics.Read(input.FromBytes("out.jsonl", buf.Bytes())); err != nil {
		t.Errorf("written topics do not read back: %v", err)
	}
	wantReview := []string{
		`ambiguous o1: the span is cut across new chunks n1, n2; none holds it whole; the span is not in revision "2"; the supporting alternative is dropped`,
		`ambiguous o2: new chunks cover only part of the old chunk (n2 33%, n3 82%; --min-overlap 0.9)`,
		`ambiguous o1: the span is cut across new chunks n1, n2; none holds it whole; the span is not in revision "2"; the supporting alternative is dropped`,
		`unmapped o1: no supporting alternative survived; the fact is left out of the new topics`,
	}
	if got := reviews(res.Review); strings.Join(got, "\n") != strings.Join(wantReview, "\n") {
		t.Errorf("review:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantReview, "\n"))
	}
	if want := (Counts{ID: "q", Total: 4, Mapped: 1, Ambiguous: 3}); len(res.Counts) != 1 || res.Counts[0] != want {
		t.Errorf("counts %+v, want %+v", res.Counts, want)
	}
}
