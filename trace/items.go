package trace

import (
	"math"
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// itemLists decodes a stage's items as the fast decoder does, into a list
// of exactly their number: the decoder's own lists grow by doubling, and
// an item is 128 bytes, so a 50-item stage would allocate room for 127.
// The items are decoded into a pooled buffer first, each score into a
// pooled slot the item points to (the decoder would allocate every score
// on its own), and the scores given are then copied into one block for
// the list. A slot starts as NaN, which no JSON number decodes to, so a
// slot still NaN is an item without a score; a null score leaves no
// pointer, as the decoder does.
var itemLists = jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, items *[]Item) error {
	if dec.PeekKind() != '[' {
		return jsonv2.SkipFunc // null, or an error the decoder reports
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	buf := itemBufs.Get().(*itemBuf)
	defer itemBufs.Put(buf)
	defer func() { clear(buf.items); buf.items = buf.items[:0]; buf.scores = buf.scores[:0] }()
	for dec.PeekKind() != ']' {
		buf.scores = append(buf.scores, math.NaN())
		buf.items = append(buf.items, Item{Score: &buf.scores[len(buf.scores)-1]})
		if err := jsonv2.UnmarshalDecode(dec, &buf.items[len(buf.items)-1]); err != nil {
			return err
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	scored := 0
	for _, it := range buf.items {
		if it.Score != nil && !math.IsNaN(*it.Score) {
			scored++
		}
	}
	scores := make([]float64, 0, scored)
	*items = make([]Item, len(buf.items))
	for i, it := range buf.items {
		if it.Score != nil && !math.IsNaN(*it.Score) {
			scores = append(scores, *it.Score)
			it.Score = &scores[len(scores)-1]
		} else {
			it.Score = nil
		}
		(*items)[i] = it
	}
	return nil
})

// itemBuf is itemLists' scratch: the items of a list and their score slots.
type itemBuf struct {
	items  []Item
	scores []float64
}

var itemBufs = sync.Pool{New: func() any { return new(itemBuf) }}
