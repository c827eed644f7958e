// Package baseline ranks corpus passages for topics with BM25, using the
// bleve search library's in-memory index (English analysis: possessives
// stripped, lower case, English stop words removed, Porter stemming; bleve's
// BM25 with k1 = 1.2, b = 0.75, the term frequency entering as its square
// root as in Lucene's classic similarity, and the average field length
// estimated by bleve). It gives every assessment pool at least one
// lexical system that is not the one under test. The same corpus and topics
// always give the same run, byte for byte: ties are broken by item id. A
// Request is the whole of `ragstat baseline`: files in, a TREC run out.
package baseline

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// Doc is one passage to index.
type Doc struct{ ID, Text string }

// Query is one topic's text.
type Query struct{ ID, Text string }

// Hit is one retrieved passage.
type Hit struct {
	Item  string
	Score float64 // BM25, rounded to 6 decimals as written in the run
}

// Ranking is one query's hits, best first.
type Ranking struct {
	Query string
	Hits  []Hit
}

// Options say how many passages to return per query.
type Options struct {
	K int // at least 1
}

const field = "text"

// Search indexes docs in memory and returns the top opt.K passages of each
// query, in the order of queries. A query whose words are all stop words, or
// that matches nothing, gets an empty ranking.
func Search(docs []Doc, queries []Query, opt Options) ([]Ranking, error) {
	if opt.K < 1 {
		return nil, fmt.Errorf("-k %d: return at least 1 passage per query", opt.K)
	}
	idx, err := build(docs)
	if err != nil {
		return nil, err
	}
	defer idx.Close()
	out := make([]Ranking, len(queries))
	errs := make([]error, len(queries))
	var wg sync.WaitGroup
	next := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for i := range next {
				out[i], errs[i] = search(idx, queries[i], opt.K)
			}
		})
	}
	for i := range queries {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func build(docs []Doc) (bleve.Index, error) {
	text := bleve.NewTextFieldMapping()
	text.Analyzer = en.AnalyzerName
	text.Store, text.IncludeTermVectors, text.IncludeInAll, text.DocValues = false, false, false, false
	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(field, text)
	m := mapping.NewIndexMapping()
	m.DefaultMapping = doc
	m.DefaultAnalyzer = en.AnalyzerName
	m.ScoringModel = index.BM25Scoring
	idx, err := bleve.NewUsing("", m, scorch.Name, scorch.Name, nil) // "" keeps it in memory
	if err != nil {
		return nil, fmt.Errorf("creating the BM25 index: %w", err)
	}
	b := idx.NewBatch()
	for _, d := range docs {
		if err := b.Index(d.ID, map[string]string{field: d.Text}); err != nil {
			idx.Close()
			return nil, fmt.Errorf("indexing %q: %w", d.ID, err)
		}
		if b.Size() >= 2000 {
			if err := idx.Batch(b); err != nil {
				idx.Close()
				return nil, fmt.Errorf("indexing: %w", err)
			}
			b.Reset()
		}
	}
	if err := idx.Batch(b); err != nil {
		idx.Close()
		return nil, fmt.Errorf("indexing: %w", err)
	}
	return idx, nil
}

func search(idx bleve.Index, q Query, k int) (Ranking, error) {
	mq := bleve.NewMatchQuery(q.Text)
	mq.SetField(field)
	mq.Analyzer = en.AnalyzerName
	req := bleve.NewSearchRequestOptions(mq, k, 0, false)
	req.SortBy([]string{"-_score", "-_id"})
	res, err := idx.Search(req)
	if err != nil {
		return Ranking{}, fmt.Errorf("query %q: %w", q.ID, err)
	}
	r := Ranking{Query: q.ID, Hits: make([]Hit, 0, len(res.Hits))}
	for _, h := range res.Hits {
		r.Hits = append(r.Hits, Hit{Item: h.ID, Score: math.Round(h.Score*1e6) / 1e6})
	}
	// The run is read back ranked by score, ties by item id descending
	// (trec_eval's rule): order the rounded scores the same way, so the
	// rank column and the reader agree.
	slices.SortStableFunc(r.Hits, func(a, b Hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), strings.Compare(b.Item, a.Item))
	})
	return r, nil
}

// WriteRun writes rankings as a TREC run: query Q0 item rank score tag. An
// id with white space cannot be written in that format and is an error.
func WriteRun(w io.Writer, rs []Ranking, tag string) error {
	var buf []byte
	for _, r := range rs {
		if err := plainID("query", r.Query); err != nil {
			return err
		}
		for i, h := range r.Hits {
			if err := plainID("item", h.Item); err != nil {
				return err
			}
			buf = buf[:0]
			buf = append(buf, r.Query...)
			buf = append(buf, " Q0 "...)
			buf = append(buf, h.Item...)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(i+1), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, h.Score, 'f', 6, 64)
			buf = append(buf, ' ')
			buf = append(buf, tag...)
			buf = append(buf, '\n')
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
	}
	return nil
}

func plainID(what, id string) error {
	if id == "" || strings.ContainsFunc(id, unicode.IsSpace) {
		return fmt.Errorf("%s id %q is empty or has white space, which a TREC run cannot hold", what, id)
	}
	return nil
}
