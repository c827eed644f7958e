package corpus_test

import (
	"fmt"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/input"
)

// Item metadata read from a corpus file: the document and revision an
// item comes from and the dates it is in effect.
func ExampleRead() {
	lines := `{"id":"policy#2","doc":"refund-policy","revision":"2026-03","valid_from":"2026-03-01","text":"Refunds within 30 days."}` + "\n"
	c, err := corpus.Read(input.FromBytes("corpus.jsonl", []byte(lines)))
	if err != nil {
		panic(err)
	}
	it := c.Get("policy#2")
	fmt.Println(it.Doc, it.Revision, it.ValidFrom, it.Text)
	// Output: refund-policy 2026-03 2026-03-01 Refunds within 30 days.
}
