package eval

import (
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/internal/jsonin"
)

// ReadDocMap reads an item-to-document map: TSV lines "item<TAB>doc" or JSON
// Lines {"item":..,"doc":..}. An item mapped twice is an error; an item not
// in the map is its own document.
func ReadDocMap(f *input.File) (func(string) string, error) {
	m := map[string]string{}
	first := map[string]int{}
	err := jsonin.FileLines(f, f.Name, func(line int, data []byte) error {
		item, doc, err := docMapLine(data)
		if err != nil {
			return &diag.Error{File: f.Name, Line: line, Msg: err.Error(), Hint: `write item<TAB>doc or {"item":"i","doc":"d"}`}
		}
		if l, dup := first[item]; dup {
			return &diag.Error{File: f.Name, Line: line, Item: item, Msg: fmt.Sprintf("mapped twice (also line %d)", l)}
		}
		first[item], m[item] = line, doc
		return nil
	})
	if err != nil {
		return nil, err
	}
	return func(item string) string {
		if d, ok := m[item]; ok {
			return d
		}
		return item
	}, nil
}

func docMapLine(data []byte) (item, doc string, err error) {
	if data[0] == '{' {
		var v struct {
			Item string `json:"item"`
			Doc  string `json:"doc"`
		}
		if err := jsonin.Decode(data, &v); err != nil {
			return "", "", err
		}
		item, doc = v.Item, v.Doc
	} else {
		fields := strings.Split(string(data), "\t")
		if len(fields) != 2 {
			return "", "", fmt.Errorf("expected 2 tab-separated fields, found %d", len(fields))
		}
		item, doc = fields[0], fields[1]
	}
	if strings.TrimSpace(item) == "" || strings.TrimSpace(doc) == "" {
		return "", "", fmt.Errorf("empty item or document id")
	}
	return item, doc, nil
}
