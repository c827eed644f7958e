package chunks

import (
	"testing"

	"github.com/ragstat/ragstat/internal/schematest"
)

// TestSchemasMatchReaders keeps the published JSON Schemas and the readers
// in step: every field a reader accepts is documented, and nothing more.
func TestSchemasMatchReaders(t *testing.T) {
	schematest.Check(t, "chunks.schema.json", rawChunk{})
	schematest.Check(t, "documents.schema.json", rawDocument{})
}
