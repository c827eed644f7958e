package topics

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ragstat/ragstat/input"
)

func TestSlices(t *testing.T) {
	set, err := Read(input.FromBytes("topics.jsonl", []byte(
		`{"id":"a","answerable":true,"tags":["lang:en","legal"],"family":"f1"}
{"id":"b","answerable":false,"tags":["lang:de"]}
{"id":"c","answerable":true,"tags":["legal"],"family":"f1"}
`)))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		by   []string
		want string
	}{
		{[]string{"tag"}, "tag:lang:de=[1] tag:lang:en=[0] tag:legal=[0 2]"},
		{[]string{"tag:lang:"}, "tag:lang:de=[1] tag:lang:en=[0]"},
		{[]string{"family", "answerable"}, "family:(none)=[1] family:f1=[0 2] answerable:false=[1] answerable:true=[0 2]"},
		{[]string{"tag:legal", "tag"}, "tag:legal=[0 2] tag:lang:de=[1] tag:lang:en=[0]"},
	}
	for _, tt := range tests {
		got, err := set.Slices([]string{"a", "b", "c"}, tt.by)
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, s := range got {
			parts = append(parts, fmt.Sprintf("%s=%v", s.Name, s.Queries))
		}
		if s := strings.Join(parts, " "); s != tt.want {
			t.Errorf("%v: %s, want %s", tt.by, s, tt.want)
		}
	}
	if _, err := set.Slices([]string{"a"}, []string{"colour"}); err == nil {
		t.Error("an unknown field was accepted")
	}
	if _, err := set.Slices([]string{"z"}, []string{"tag"}); err == nil || !strings.Contains(err.Error(), `"z" has no topic`) {
		t.Errorf("a query without a topic: %v", err)
	}
}
