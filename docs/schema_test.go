package docs

import (
	"encoding/json"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

// jsonFields lists the JSON names of t's fields, following embedded structs.
func jsonFields(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		tag := strings.Split(f.Tag.Get("json"), ",")[0]
		switch {
		case tag == "-":
		case f.Anonymous && tag == "":
			out = append(out, jsonFields(f.Type)...)
		case tag != "":
			out = append(out, tag)
		}
	}
	slices.Sort(out)
	return out
}

// properties reads the property names of a schema object at path.
func properties(t *testing.T, file string, path ...string) []string {
	t.Helper()
	data, err := os.ReadFile("schema/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var node map[string]any
	if err := json.Unmarshal(data, &node); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	for _, p := range path {
		node = node[p].(map[string]any)
	}
	return slices.Sorted(maps.Keys(node["properties"].(map[string]any)))
}

// TestSchemasMatchTypes keeps the published JSON Schemas and the readers in
// step: every field a reader accepts is documented, and nothing more.
func TestSchemasMatchTypes(t *testing.T) {
	tests := []struct {
		file string
		path []string
		typ  any
	}{
		{"topic.schema.json", nil, topics.Topic{}},
		{"topic.schema.json", []string{"$defs", "piece"}, topics.Piece{}},
		{"corpus.schema.json", nil, corpus.Item{}},
		{"trace.schema.json", nil, trace.Trace{}},
		{"trace.schema.json", []string{"$defs", "stage"}, trace.Stage{}},
		{"trace.schema.json", []string{"$defs", "item"}, trace.Item{}},
		{"trace.schema.json", []string{"properties", "answer"}, trace.Answer{}},
	}
	for _, tc := range tests {
		want := jsonFields(reflect.TypeOf(tc.typ))
		if got := properties(t, tc.file, tc.path...); !slices.Equal(got, want) {
			t.Errorf("%s %v: schema properties %v, reader fields %v", tc.file, tc.path, got, want)
		}
	}
}
