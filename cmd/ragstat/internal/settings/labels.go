package settings

import (
	"fmt"

	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/judgments"
)

// RefuseLabels is an error naming set's file when it holds LLM labels, for
// a use of people's grades alone that would otherwise drop the labels
// unsaid (use says what it does); nil when it holds none.
func RefuseLabels(set *judgments.Set, use string) error {
	if n := set.LLMLen(); n > 0 {
		return &diag.Error{File: set.File, Msg: fmt.Sprintf("holds %d LLM labels; %s people's grades alone", n, use),
			Hint: "give the judgments without the LLM labels: the file judge fill read, or judge export's"}
	}
	return nil
}
