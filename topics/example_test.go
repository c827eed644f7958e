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

// TREC RAG 2024's nuggets as topics: the nugget file read as it comes,
// its facts supported by the passages nuggetizer's retrieval assignments
// mark "support" (partial support gives none).
func ExampleReadWith() {
	nuggets := `{"qid":"2024-1","query":"what is python","nuggets":[` +
		`{"text":"Python is a language","importance":"vital"},{"text":"Guido made it","importance":"okay"}]}` + "\n"
	assigned := `{"qid":"2024-1","text":"what is python","docid":"doc#3","candidate_text":"...","nuggets":[` +
		`{"text":"Python is a language","importance":"vital","assignment":"support"},` +
		`{"text":"Guido made it","importance":"okay","assignment":"partial_support"}]}` + "\n"
	af := input.FromBytes("assignments.jsonl", []byte(assigned))
	as, err := topics.ReadAssignments(af)
	if err != nil {
		panic(err)
	}
	set, err := topics.ReadWith(input.FromBytes("nuggets.jsonl", []byte(nuggets)), topics.Options{Assignments: as, AssignmentsFile: af.Name})
	if err != nil {
		panic(err)
	}
	for _, f := range set.Get("2024-1").Facts {
		fmt.Println(f.ID, f.Importance, f.Text, f.Support)
	}
	// Output:
	// 1 vital Python is a language [[{doc#3 }]]
	// 2 okay Guido made it []
}
