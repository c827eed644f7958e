package trace

import (
	"sync"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// itemLists decodes a stage's items as the fast decoder does, into a list
// of exactly their number: the decoder's own lists grow by doubling, and
// an item is 128 bytes, so a 50-item stage would allocate room for 127.
// The items are decoded into a pooled buffer first.
var itemLists = jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, items *[]Item) error {
	if dec.PeekKind() != '[' {
		return jsonv2.SkipFunc // null, or an error the decoder reports
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	buf := itemBufs.Get().(*[]Item)
	defer itemBufs.Put(buf)
	defer func() { clear(*buf); *buf = (*buf)[:0] }()
	for dec.PeekKind() != ']' {
		*buf = append(*buf, Item{})
		if err := jsonv2.UnmarshalDecode(dec, &(*buf)[len(*buf)-1]); err != nil {
			return err
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	*items = make([]Item, len(*buf))
	copy(*items, *buf)
	return nil
})

var itemBufs = sync.Pool{New: func() any { return new([]Item) }}
