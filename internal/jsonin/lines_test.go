package jsonin

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestUnique: a repeated key is named with its line, at any depth; text
// without one, valid or not, passes.
func TestUnique(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{`{"a":1,"b":{"a":2}}`, ""},
		{`{"a":1,`, ""},
		{"{\"a\":1,\n\"a\":2}", `f.json:2: key "a" given twice in one object`},
		{"{\"x\":[{\"k\":1},\n{\"k\":2,\n\"k\":3}]}", `f.json:3: key "k" given twice in one object in "/x/1"`},
	} {
		err := Unique("f.json", 1, []byte(c.data))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if c.want == "" && err != nil || !strings.Contains(got, c.want) {
			t.Errorf("Unique(%q) = %q, want %q", c.data, got, c.want)
		}
	}
}

// FuzzUnique: Unique never panics, and on valid JSON it finds a repeated
// key exactly when Decode's own check does.
func FuzzUnique(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":1,"b":2}}`, `[{"a":1},{"a":1}]`, `{"a\u0062":1,"ab":2}`, `{"a":`, "{\"a\":1}\n{\"a\":1,\"a\":1}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := Unique("f", 1, data)
		if !json.Valid(data) {
			return
		}
		if (err != nil) != (checkKeys(data) != nil) {
			t.Errorf("Unique %v, checkKeys %v", err, checkKeys(data))
		}
	})
}

func TestFirstLine(t *testing.T) {
	if got := string(FirstLine([]byte("\n  \n  {\"a\":1}\nnext"))); got != `{"a":1}` {
		t.Fatalf("got %q", got)
	}
}
