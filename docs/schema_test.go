package docs

import (
	"testing"

	"github.com/ragstat/ragstat/corpus"
	"github.com/ragstat/ragstat/eval"
	"github.com/ragstat/ragstat/internal/schematest"
	"github.com/ragstat/ragstat/topics"
	"github.com/ragstat/ragstat/trace"
)

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
		{"manifest.schema.json", nil, eval.Manifest{}},
		{"manifest.schema.json", []string{"$defs", "file"}, eval.FileRecord{}},
		{"manifest.schema.json", []string{"$defs", "policy"}, eval.Policy{}},
	}
	for _, tc := range tests {
		schematest.Check(t, tc.file, tc.typ, tc.path...)
	}
}
