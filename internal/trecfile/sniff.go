package trecfile

import (
	"bytes"
	"strconv"

	"github.com/ragstat/ragstat/internal/jsonin"
)

// LooksLikeRun reports whether the start of a file reads as a run rather
// than judgments: a TREC run line (query Q0 item rank score tag) or a JSON
// ranked list ({"query","items":[...]}).
func LooksLikeRun(head []byte) bool {
	if f := bytes.Fields(jsonin.FirstLine(head)); len(f) == 6 && bytes.EqualFold(f[1], []byte("Q0")) {
		return true
	}
	items := jsonin.FirstKeys(head)["items"]
	return len(items) > 0 && items[0] == '[' // not a query named "items"
}

// LooksLikeJudgments reports whether the start of a file reads as
// judgments rather than a run: a qrels line (four columns, the last an
// integer) or a JSON judgment (with "grade").
func LooksLikeJudgments(head []byte) bool {
	if f := bytes.Fields(jsonin.FirstLine(head)); len(f) == 4 {
		if _, err := strconv.Atoi(string(f[3])); err == nil {
			return true
		}
	}
	grade := jsonin.FirstKeys(head)["grade"]
	return len(grade) > 0 && grade[0] != '{' // not a query named "grade"
}
