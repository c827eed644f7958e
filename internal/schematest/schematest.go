// Package schematest keeps the published JSON Schemas (docs/schema) in step
// with the Go types that read and write the formats they describe: a test
// names a schema object and a type, and fails when their field names
// differ.
package schematest

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Fields lists the JSON names of t's fields, following embedded structs and
// leaving out fields tagged "-".
func Fields(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		switch {
		case name == "-":
		case f.Anonymous && name == "":
			out = append(out, Fields(f.Type)...)
		case name != "":
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// Properties returns the property names of the object at path (such as
// "$defs", "piece") in docs/schema/file, sorted.
func Properties(tb testing.TB, file string, path ...string) []string {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(root(tb), "docs", "schema", file))
	if err != nil {
		tb.Fatal(err)
	}
	var node map[string]any
	if err := json.Unmarshal(data, &node); err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	for _, p := range path {
		next, ok := node[p].(map[string]any)
		if !ok {
			tb.Fatalf("%s: no object at %v", file, path)
		}
		node = next
	}
	props, _ := node["properties"].(map[string]any)
	return slices.Sorted(maps.Keys(props))
}

// Check fails tb when the schema object at path and the type of v name
// different fields.
func Check(tb testing.TB, file string, v any, path ...string) {
	tb.Helper()
	if got, want := Properties(tb, file, path...), Fields(reflect.TypeOf(v)); !slices.Equal(got, want) {
		tb.Errorf("%s %v: schema properties %v, %T fields %v", file, path, got, v, want)
	}
}

// root is the module root: the nearest folder above with a go.mod.
func root(tb testing.TB) string {
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}
