package topics_test

import (
	"fmt"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/topics"
)

// What a query needs, read from JSON Lines, and an answer graded against
// it: its reference answer matched after normalisation, its required fact
// supported by the items it cites.
func ExampleGradeAnswer() {
	line := `{"id":"refund","text":"How long do I have?","answers":["Within 30 days."],` +
		`"facts":[{"id":"window","support":[{"item":"policy#2"}]}]}` + "\n"
	set, err := topics.Read(input.FromBytes("topics.jsonl", []byte(line)))
	if err != nil {
		panic(err)
	}
	t := set.Get("refund")
	g := topics.GradeAnswer(t, "Within 30 days [policy#2].", []string{"policy#2"}, false)
	correct, graded := g.Correct(0)
	fmt.Println(t.Text, g.EM, g.FactsCited, correct, graded)
	// Output: How long do I have? 1 1 true true
}
