package intervene

import (
	"fmt"
	"strings"

	"github.com/ragstat/ragstat/trace"
)

// A frame is the text around an item's text in a packed context, split at
// the item's id: Pre + id + Post comes right before the item's text. With
// HasID false the original showed no id, and Pre alone is written.
type frame struct {
	Pre, Post string
	HasID     bool
}

func (f frame) write(b *strings.Builder, id string) {
	b.WriteString(f.Pre)
	if f.HasID {
		b.WriteString(id)
		b.WriteString(f.Post)
	}
}

// frameOf splits seg at the last occurrence of id.
func frameOf(seg, id string) frame {
	i := strings.LastIndex(seg, id)
	if i < 0 {
		return frame{Pre: seg}
	}
	return frame{Pre: seg[:i], Post: seg[i+len(id):], HasID: true}
}

// contextLayout is how a trace's context text frames its items: the text before
// the first item (with its marker), the text between two items (with the
// next item's marker), and the text after the last. It is read from the
// trace's own context, so a verified context looks to the generator exactly
// like the original one, except for the evidence in it.
type contextLayout struct {
	first, between frame
	tail           string
	// Source says where the layout came from: "trace" (read from the
	// context text), "trace, separator assumed" (a context of one item:
	// its marker was read, the blank line between items assumed), or
	// "default" with the reason.
	Source string
}

// defaultLayout frames each item as "[id] text", items apart by a blank line.
func defaultLayout(reason string) contextLayout {
	return contextLayout{first: frame{Pre: "[", Post: "] ", HasID: true}, between: frame{Pre: "\n\n[", Post: "] ", HasID: true},
		Source: "default (" + reason + ")"}
}

// layoutOf reads the layout of a context stage: every item's packed text
// must occur in the context text, in order, and the text between two items
// must be the same for every pair once their ids are taken out.
func layoutOf(s *trace.Stage) contextLayout {
	if s == nil || s.Text == nil {
		return defaultLayout("the trace has no context text")
	}
	if len(s.Items) == 0 {
		return defaultLayout("the trace's context has no items")
	}
	text := *s.Text
	var segs []string
	pos := 0
	for _, it := range s.Items {
		if it.Text == nil || *it.Text == "" {
			return defaultLayout(fmt.Sprintf("context item %s has no text", it.ID))
		}
		i := strings.Index(text[pos:], *it.Text)
		if i < 0 {
			return defaultLayout(fmt.Sprintf("context item %s's text is not in the context text, in order", it.ID))
		}
		segs = append(segs, text[pos:pos+i])
		pos += i + len(*it.Text)
	}
	l := contextLayout{first: frameOf(segs[0], s.Items[0].ID), tail: text[pos:], Source: "trace"}
	if len(segs) == 1 {
		marker := l.first
		if nl := strings.LastIndexByte(marker.Pre, '\n'); nl >= 0 {
			marker.Pre = marker.Pre[nl+1:]
		}
		marker.Pre = "\n\n" + marker.Pre
		l.between, l.Source = marker, "trace, separator assumed"
		return l
	}
	l.between = frameOf(segs[1], s.Items[1].ID)
	for i := 2; i < len(segs); i++ {
		if f := frameOf(segs[i], s.Items[i].ID); f != l.between {
			return defaultLayout(fmt.Sprintf("the text between context items differs (%q, then %q)", l.between.Pre+l.between.Post, f.Pre+f.Post))
		}
	}
	return l
}

// Format writes items in the layout.
func (l contextLayout) Format(items []Evidence) string {
	var b strings.Builder
	for i, it := range items {
		if i == 0 {
			l.first.write(&b, it.ID)
		} else {
			l.between.write(&b, it.ID)
		}
		b.WriteString(it.Text)
	}
	if len(items) > 0 {
		b.WriteString(l.tail)
	}
	return b.String()
}
