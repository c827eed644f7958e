// Package fill is `ragstat judge fill`: it asks an LLM judge to grade the
// (query, item) pairs that runs and traces return in their top k and that
// no judgment grades yet, writes the judgments with one LLM label a line
// beside people's grades, each with its provenance, and draws the queries
// whose labels people audit.
//
// The default prompt is UMBRELA's (Upadhyay, Pradeep, Thakur, Craswell and
// Lin 2024, the TREC RAG 2024 relevance assessor): prompts/umbrela.txt is
// qrel_zeroshot_bing.txt of castorini/umbrela (Apache License 2.0) byte for
// byte, its grade scale 0 to 3, sent as UMBRELA sends it (a system message
// "You are a helpful assistant.", the prompt as the user's message,
// temperature 0, top_p 1, frequency penalty 0.5, presence penalty 0, at
// most 100 tokens). An answer is read strictly (ParseGrade): a grade on the
// scale, else the pair is reported and left a hole, never guessed.
package fill

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/diag"
)

//go:embed prompts/umbrela.txt
var umbrela string

// UMBRELA names the default prompt.
const UMBRELA = "umbrela"

// The placeholders a template holds.
const (
	queryMark   = "{query}"
	passageMark = "{passage}"
)

// Template is a judge's prompt: the text with {query} and {passage}, and
// the SHA-256 of the text, which every label records.
type Template struct {
	Name   string // "umbrela", or the file read
	Text   string
	SHA256 string
}

// maxTemplate bounds a template file.
const maxTemplate = 1 << 20

// LoadTemplate is UMBRELA's prompt for "umbrela", else the template file
// at spec, read through open: UTF-8, at most 1 MiB, holding {query} and
// {passage} each at least once.
func LoadTemplate(spec string, open func(string) (*input.File, error)) (Template, error) {
	if spec == "" || spec == UMBRELA {
		return newTemplate(UMBRELA, umbrela), nil
	}
	f, err := open(spec)
	if err != nil {
		return Template{}, err
	}
	defer f.Close()
	data, err := f.ReadAll()
	if err != nil {
		return Template{}, err
	}
	if len(data) > maxTemplate {
		return Template{}, &diag.Error{File: f.Name, Msg: fmt.Sprintf("a prompt template of more than %d bytes", maxTemplate)}
	}
	text := string(data)
	switch {
	case !utf8.ValidString(text):
		return Template{}, &diag.Error{File: f.Name, Msg: "the prompt template is not UTF-8 text"}
	case !strings.Contains(text, queryMark) || !strings.Contains(text, passageMark):
		return Template{}, &diag.Error{File: f.Name, Msg: "the prompt template needs {query} and {passage}",
			Hint: "write where the query and the passage go; the answer must end in the grade alone or as ##final score: N"}
	}
	return newTemplate(f.Name, text), nil
}

func newTemplate(name, text string) Template {
	sum := sha256.Sum256([]byte(text))
	return Template{Name: name, Text: text, SHA256: hex.EncodeToString(sum[:])}
}

// Prompt is the template with the query and the passage put in, in one
// pass: a passage that holds "{query}" is left as it is.
func (t Template) Prompt(query, passage string) string {
	return strings.NewReplacer(queryMark, query, passageMark, passage).Replace(t.Text)
}
