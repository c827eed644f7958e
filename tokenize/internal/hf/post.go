package hf

import (
	"encoding/json"
	"fmt"
)

// specials are the tokens a post-processor puts around one sequence when
// encoding with add_special_tokens=true.
type specials struct {
	prefix, suffix []int
}

// postJSON holds the fields of the supported post-processors.
type postJSON struct {
	Type          string                     `json:"type"`
	Single        []templateItem             `json:"single"`
	SpecialTokens map[string]templateSpecial `json:"special_tokens"`
	Cls           []json.RawMessage          `json:"cls"`
	Sep           []json.RawMessage          `json:"sep"`
	Processors    []*postJSON                `json:"processors"`
}

// templateItem is one item of a TemplateProcessing template.
type templateItem struct {
	SpecialToken *struct {
		ID string `json:"id"`
	} `json:"SpecialToken"`
	Sequence *struct {
		ID string `json:"id"`
	} `json:"Sequence"`
}

type templateSpecial struct {
	IDs []int `json:"ids"`
}

// buildPost reads the post-processor's special tokens for one sequence.
func buildPost(p *postJSON) (specials, error) {
	if p == nil {
		return specials{}, errNull
	}
	switch p.Type {
	case "ByteLevel":
		return specials{}, nil
	case "BertProcessing", "RobertaProcessing":
		cls, err := pairID(p.Cls)
		if err != nil {
			return specials{}, fmt.Errorf("%s cls: %w", p.Type, err)
		}
		sep, err := pairID(p.Sep)
		if err != nil {
			return specials{}, fmt.Errorf("%s sep: %w", p.Type, err)
		}
		return specials{[]int{cls}, []int{sep}}, nil
	case "TemplateProcessing":
		return buildTemplate(p)
	case "Sequence":
		var s specials
		for i, sub := range p.Processors {
			inner, err := buildPost(sub)
			if err != nil {
				return specials{}, fmt.Errorf("Sequence[%d]: %w", i, err)
			}
			s.prefix = append(inner.prefix, s.prefix...)
			s.suffix = append(s.suffix, inner.suffix...)
		}
		return s, nil
	}
	return specials{}, unsupported("post-processor", p.Type)
}

func buildTemplate(p *postJSON) (specials, error) {
	var s specials
	seen := false
	for _, item := range p.Single {
		switch {
		case item.Sequence != nil:
			seen = true
		case item.SpecialToken != nil:
			tok, ok := p.SpecialTokens[item.SpecialToken.ID]
			if !ok {
				return specials{}, fmt.Errorf("TemplateProcessing: special token %q is not in special_tokens", item.SpecialToken.ID)
			}
			if seen {
				s.suffix = append(s.suffix, tok.IDs...)
			} else {
				s.prefix = append(s.prefix, tok.IDs...)
			}
		}
	}
	return s, nil
}

// pairID reads the id of a ["token", id] pair.
func pairID(pair []json.RawMessage) (int, error) {
	var id int
	if len(pair) != 2 || json.Unmarshal(pair[1], &id) != nil {
		return 0, fmt.Errorf(`want ["token", id]`)
	}
	return id, nil
}
