package remap

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/chunks"
	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
)

// corpus is a generated set of documents, chunked twice.
type corpus struct {
	texts    [][]rune
	old, new string // chunk files
	docs     string // documents file
}

// chunking writes a chunk file cutting every text into chunks of size code
// points, consecutive chunks sharing overlap code points.
func chunking(prefix string, texts [][]rune, size, overlap int) string {
	var b strings.Builder
	for d, text := range texts {
		for i, start := 0, 0; ; i, start = i+1, start+size-overlap {
			end := min(start+size, len(text))
			fmt.Fprintf(&b, `{"id":"%s%d#%d","doc":"d%d","revision":"r","start":%d,"end":%d}`+"\n", prefix, d, i, d, start, end)
			if end == len(text) {
				break
			}
		}
	}
	return b.String()
}

// drawCorpus draws texts from a small alphabet (so spans repeat, and code
// points are not bytes), an old chunking, and a new chunking whose overlap
// is at least minNewOverlap.
func drawCorpus(t *rapid.T, minNewOverlap int) corpus {
	alphabet := []rune("ab é文.")
	var c corpus
	var docs strings.Builder
	for d := range rapid.IntRange(1, 3).Draw(t, "docs") {
		text := rapid.SliceOfN(rapid.SampledFrom(alphabet), 20, 300).Draw(t, "text")
		c.texts = append(c.texts, text)
		fmt.Fprintf(&docs, `{"doc":"d%d","revision":"r","text":%q}`+"\n", d, string(text))
	}
	c.docs = docs.String()
	size := rapid.IntRange(5, 60).Draw(t, "old size")
	c.old = chunking("old", c.texts, size, rapid.IntRange(0, size-1).Draw(t, "old overlap"))
	newSize := rapid.IntRange(minNewOverlap+1, 80).Draw(t, "new size")
	c.new = chunking("new", c.texts, newSize, rapid.IntRange(minNewOverlap, newSize-1).Draw(t, "new overlap"))
	return c
}

// drawJudgments draws judgments of old chunks, each with a span of its text
// (or, when spanless, none) of at most maxSpan code points; oneQuery gives
// every judgment a query of its own, so no two can conflict.
func drawJudgments(t *rapid.T, c corpus, old *chunks.Set, maxSpan int, spanless, oneQuery bool) *judgments.Set {
	var b strings.Builder
	seen := map[string]bool{}
	for range rapid.IntRange(1, 12).Draw(t, "judgments") {
		ch := rapid.SampledFrom(old.Chunks).Draw(t, "chunk")
		q := rapid.SampledFrom([]string{"q1", "q2"}).Draw(t, "query")
		if oneQuery {
			q = "q-" + ch.ID
		}
		span := ""
		if !spanless || !rapid.Bool().Draw(t, "spanless") {
			n := rapid.IntRange(1, min(maxSpan, ch.Len())).Draw(t, "span length")
			at := ch.Start + rapid.IntRange(0, ch.Len()-n).Draw(t, "span start")
			if span = string(c.texts[docIndex(ch.Doc)][at : at+n]); strings.TrimSpace(span) == "" {
				continue // a blank span is not evidence
			}
		}
		if seen[q+"\x00"+ch.ID] {
			continue
		}
		seen[q+"\x00"+ch.ID] = true
		fmt.Fprintf(&b, `{"query":%q,"item":%q,"grade":%d`, q, ch.ID, rapid.IntRange(0, 3).Draw(t, "grade"))
		if span != "" {
			fmt.Fprintf(&b, `,"spans":[%q]`, span)
		}
		b.WriteString("}\n")
	}
	if b.Len() == 0 {
		t.Skip("every drawn span was blank")
	}
	js, err := judgments.Read(input.FromBytes("j.jsonl", []byte(b.String())), judgments.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return js
}

func docIndex(doc string) int {
	var d int
	fmt.Sscanf(doc, "d%d", &d)
	return d
}

func load(t *rapid.T, c corpus) (*Mapper, *chunks.Set, *chunks.Documents) {
	ds, err := chunks.ReadDocuments(input.FromBytes("docs.jsonl", []byte(c.docs)))
	if err != nil {
		t.Fatal(err)
	}
	old, err := chunks.Read(input.FromBytes("old.jsonl", []byte(c.old)))
	if err != nil {
		t.Fatal(err)
	}
	nw, err := chunks.Read(input.FromBytes("new.jsonl", []byte(c.new)))
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(old, nw, ds, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	return m, nw, ds
}

// TestRoundTripAllMap: when every new chunk overlaps the next by at least a
// span's length, every span lies whole in some new chunk, so every
// span-bearing judgment maps and nothing goes to review.
func TestRoundTripAllMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		const maxSpan = 8
		c := drawCorpus(t, maxSpan-1)
		m, nw, ds := load(t, c)
		js := drawJudgments(t, c, m.old, maxSpan, false, true)
		res, err := m.Judgments(js)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Review) > 0 {
			t.Fatalf("review %+v", res.Review)
		}
		for _, n := range res.Counts {
			if n.Mapped != n.Total {
				t.Fatalf("counts %+v", n)
			}
		}
		checkSound(t, res, nw, ds)
	})
}

// TestRoundTripNoneLost: with any chunkings, every old judgment either
// reaches a new chunk with its grade or is named in a review line, and
// what is written is sound.
func TestRoundTripNoneLost(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := drawCorpus(t, 0)
		m, nw, ds := load(t, c)
		js := drawJudgments(t, c, m.old, 30, true, false)
		res, err := m.Judgments(js)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range js.IDs() {
			for _, j := range js.Judgments(q) {
				if !carried(res, j) && !reviewed(res.Review, j) {
					t.Fatalf("judgment %+v lost silently", j)
				}
			}
		}
		checkSound(t, res, nw, ds)
	})
}

// checkSound checks the written judgments: every span lies in its new
// chunk's text, no (query, item) is written twice, and they read back.
func checkSound(t *rapid.T, res *Judgments, nw *chunks.Set, ds *chunks.Documents) {
	seen := map[string]bool{}
	for _, j := range res.Judgments {
		c := nw.Get(j.Item)
		text := ds.Get(c.Doc, c.Revision).Slice(c.Start, c.End)
		for _, sp := range j.Spans {
			if !strings.Contains(text, sp) {
				t.Fatalf("span %q granted to %s, whose text is %q", sp, c.ID, text)
			}
		}
		if seen[j.Query+"\x00"+j.Item] {
			t.Fatalf("%s %s written twice", j.Query, j.Item)
		}
		seen[j.Query+"\x00"+j.Item] = true
	}
}

func carried(res *Judgments, old judgments.Judgment) bool {
	return slices.ContainsFunc(res.Judgments, func(j judgments.Judgment) bool {
		return j.Query == old.Query && j.Grade == old.Grade && (len(old.Spans) == 0 || slices.Contains(j.Spans, old.Spans[0]))
	})
}

func reviewed(rs []Review, j judgments.Judgment) bool {
	return slices.ContainsFunc(rs, func(r Review) bool {
		return r.Query == j.Query && slices.ContainsFunc(r.Old, func(s Source) bool { return s.Item == j.Item })
	})
}
