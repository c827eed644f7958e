package topics

import (
	"bufio"
	"encoding/json"
	"io"
)

// wire is the JSON shape of a topic as Write writes it and Read accepts it.
type wire struct {
	*Topic
	Facts []wireFact `json:"facts,omitempty"`
}

// wireFact is a fact as written and read.
type wireFact struct {
	ID         string        `json:"id"`
	Text       string        `json:"text,omitempty"`
	Importance string        `json:"importance,omitempty"`
	Support    []wireSupport `json:"support"`
}

// wireSupport is {"item":..,"span":..} or {"all":[{"item":..},..]}: Write
// writes a support of one piece the first way, one of several the second.
type wireSupport struct {
	Item string  `json:"item,omitempty"`
	Span string  `json:"span,omitempty"`
	All  []Piece `json:"all,omitempty"`
}

// Write writes ts as JSON Lines, one topic a line, in the order given; Read
// reads the result back.
func Write(w io.Writer, ts []*Topic) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, t := range ts {
		v := wire{Topic: t}
		for _, f := range t.Facts {
			v.Facts = append(v.Facts, toWire(f))
		}
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func toWire(f Fact) wireFact {
	wf := wireFact{ID: f.ID, Text: f.Text, Importance: f.Importance, Support: []wireSupport{}}
	for _, alt := range f.Support {
		if len(alt) == 1 {
			wf.Support = append(wf.Support, wireSupport{Item: alt[0].Item, Span: alt[0].Span})
		} else {
			wf.Support = append(wf.Support, wireSupport{All: alt})
		}
	}
	return wf
}
