package topics

import (
	"fmt"
	"testing"

	"github.com/ragstat/ragstat/input"
)

// TestStream checks that Stream hands over the topics ReadWith keeps, and
// that its parser reads each kept line back to the same topic.
func TestStream(t *testing.T) {
	for _, content := range []string{
		`{"id":"q","text":"why","facts":[{"id":"f","support":[{"item":"a","span":"x"},{"all":[{"item":"b"},{"item":"c"}]}]}],"as_of":"2026-01-01","scopes":["t"]}` + "\n" + `{"id":"u","answerable":false}` + "\n",
		"q\twhy\nr\thow\n",
		`{"qid":"q","query":"why","nuggets":[{"text":"a","importance":"vital"}]}` + "\n" + `{"qid":"r","nuggets":[{"text":"b","importance":"okay"}]}` + "\n",
		`{"id":"q"}` + "\n" + `{"nope":1}` + "\n",
	} {
		keep := Options{Keep: func(id string) bool { return id != "r" }}
		set, rerr := ReadWith(input.FromBytes("topics", []byte(content)), keep)
		var got []*Topic
		var lines [][]byte
		parse, serr := Stream(input.FromBytes("topics", []byte(content)), keep, func(tp *Topic, data []byte) error {
			got = append(got, tp)
			lines = append(lines, data)
			return nil
		})
		if fmt.Sprint(rerr) != fmt.Sprint(serr) {
			t.Fatalf("Stream: %v\nReadWith: %v", serr, rerr)
		}
		for i, data := range lines {
			again, err := parse(data)
			if err != nil {
				t.Fatal(err)
			}
			again.Line = got[i].Line
			if fmt.Sprintf("%+v", *again) != fmt.Sprintf("%+v", *got[i]) {
				t.Errorf("read again %+v, want %+v", again, got[i])
			}
		}
		if rerr == nil && fmt.Sprintf("%+v", deref(got)) != fmt.Sprintf("%+v", deref(set.Topics)) {
			t.Errorf("streamed %+v, want %+v", deref(got), deref(set.Topics))
		}
	}
}

func deref(ts []*Topic) []Topic {
	out := make([]Topic, len(ts))
	for i, t := range ts {
		out[i] = *t
	}
	return out
}
