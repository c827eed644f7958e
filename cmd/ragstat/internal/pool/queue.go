package pool

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/jsonin"
)

// WriteQueue writes the queue as JSON Lines, one entry a line in order:
//
//	{"query":"refund","item":"policy#2","systems":["bm25","dense"],"order":1}
func WriteQueue(w io.Writer, q []Entry) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, e := range q {
		if e.Systems == nil {
			e.Systems = []string{}
		}
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return bw.Flush()
}

type rawEntry struct {
	Query   *string  `json:"query"`
	Item    *string  `json:"item"`
	Systems []string `json:"systems"`
	Order   *int     `json:"order"`
}

// ReadQueue reads a queue file strictly: every line names a query and an
// item and has a positive order; a (query, item) pair or an order given
// twice is an error naming both lines. The entries come back sorted by
// order. Problems are gathered (up to diag.Max) into one error.
func ReadQueue(f *input.File) ([]Entry, error) {
	var out []Entry
	pairs := map[key]int{}
	orders := map[int]int{}
	err := jsonin.FileLines(f, f.Name, func(line int, data []byte) error {
		bad := func(q, item, msg, hint string) error {
			return &diag.Error{File: f.Name, Line: line, Query: q, Item: item, Msg: msg, Hint: hint}
		}
		var v rawEntry
		if err := jsonin.Decode(data, &v); err != nil {
			return bad("", "", err.Error(), `write {"query":"q","item":"d","systems":["s"],"order":1}`)
		}
		switch {
		case v.Query == nil || strings.TrimSpace(*v.Query) == "":
			return bad("", "", `missing or empty "query"`, "")
		case v.Item == nil || strings.TrimSpace(*v.Item) == "":
			return bad(*v.Query, "", `missing or empty "item"`, "")
		case v.Order == nil || *v.Order < 1:
			return bad(*v.Query, *v.Item, `missing "order" or not a positive integer`, "number the entries from 1")
		}
		k := key{*v.Query, *v.Item}
		if first, dup := pairs[k]; dup {
			return bad(k.query, k.item, fmt.Sprintf("duplicate queue entry (also line %d)", first),
				"each (query, item) pair is judged once: remove the repeated line")
		}
		if first, dup := orders[*v.Order]; dup {
			return bad(k.query, k.item, fmt.Sprintf("order %d repeats line %d", *v.Order, first), "every entry needs its own order")
		}
		pairs[k], orders[*v.Order] = line, line
		out = append(out, Entry{Query: k.query, Item: k.item, Systems: v.Systems, Order: *v.Order, Line: line})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, &diag.Error{File: f.Name, Msg: "the queue is empty"}
	}
	slices.SortFunc(out, func(a, b Entry) int { return a.Order - b.Order })
	return out, nil
}
