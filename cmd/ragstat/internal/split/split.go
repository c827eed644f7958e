// Package split divides topics into a development side and a held-out side
// without leaks: topics of one group (a query family, or a tag with a given
// prefix) always land on the same side, so a tuning loop never sees a
// paraphrase of a held-out query. Within that constraint it balances every
// slice (tag) across the sides and keeps the held-out share within one
// group of the target. The split depends only on the topics and the seed.
// A Request is the whole of `ragstat split`: files in, a folder of files
// out.
package split

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/ragstat/ragstat/internal/diag"
	"github.com/ragstat/ragstat/topics"
)

// GroupBy says which topics belong together.
type GroupBy struct {
	TagPrefix string // group by the tags with this prefix; empty: by family
}

// ParseGroupBy reads "family" or "tag:PREFIX". Anything else is a
// diag.OptionError on "group_by".
func ParseGroupBy(s string) (GroupBy, error) {
	if s == "family" {
		return GroupBy{}, nil
	}
	if p, ok := strings.CutPrefix(s, "tag:"); ok && p != "" {
		return GroupBy{TagPrefix: p}, nil
	}
	return GroupBy{}, &diag.OptionError{Option: "group_by", Value: strconv.Quote(s), Msg: ": use family, or tag:PREFIX (e.g. tag:source=)"}
}

// String writes the grouping as ParseGroupBy reads it.
func (g GroupBy) String() string {
	if g.TagPrefix == "" {
		return "family"
	}
	return "tag:" + g.TagPrefix
}

// keys are the group keys of t; a topic with none is a group of its own.
func (g GroupBy) keys(t *topics.Topic) []string {
	if g.TagPrefix == "" {
		if t.Family == "" {
			return nil
		}
		return []string{t.Family}
	}
	var ks []string
	for _, tag := range t.Tags {
		if strings.HasPrefix(tag, g.TagPrefix) {
			ks = append(ks, tag)
		}
	}
	return ks
}

// slices are the tags of t that are balanced across sides: every tag but
// those that group.
func (g GroupBy) slices(t *topics.Topic) []string {
	if g.TagPrefix == "" {
		return t.Tags
	}
	return slices.DeleteFunc(slices.Clone(t.Tags), func(tag string) bool { return strings.HasPrefix(tag, g.TagPrefix) })
}

// Options say how to split.
type Options struct {
	HeldOut float64 // the share of topics to hold out, in (0, 1)
	Seed    uint64
	GroupBy GroupBy
}

// Slice is one tag's topics on each side.
type Slice struct {
	Tag          string
	Dev, HeldOut int
}

// Result is a split.
type Result struct {
	Dev, HeldOut             []*topics.Topic // each in the input order
	DevGroups, HeldOutGroups int
	Slices                   []Slice         // by tag
	held                     map[string]bool // every topic: held out or not
	opt                      Options
}

// IsHeldOut reports whether topic id is on the held-out side.
func (r *Result) IsHeldOut(id string) bool { return r.held[id] }

// Split divides ts. Groups are placed largest first, in an order shuffled
// by the seed among groups of one size; each goes to the side that leaves
// the slices (and the whole) closest to the held-out share, ties broken by
// the seed, and never to a side that would take the held-out count more
// than one largest group away from its target. Then groups of one size
// swap sides while that brings the slices closer to the share.
func Split(ts []*topics.Topic, opt Options) (*Result, error) {
	if !(opt.HeldOut > 0 && opt.HeldOut < 1) {
		return nil, fmt.Errorf("held-out share %g must be between 0 and 1", opt.HeldOut)
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("no topics to split")
	}
	groups := group(ts, opt.GroupBy)
	rng := rand.New(rand.NewPCG(opt.Seed, 0x5eed))
	rng.Shuffle(len(groups), func(i, j int) { groups[i], groups[j] = groups[j], groups[i] })
	slices.SortStableFunc(groups, func(a, b []*topics.Topic) int { return cmp.Compare(len(b), len(a)) })
	b := newBalance(ts, opt, len(groups[0]))
	held := make([]bool, len(groups))
	for i, g := range groups {
		held[i] = b.choose(g, rng)
		b.place(g, held[i])
	}
	b.improve(groups, held)
	r := &Result{held: map[string]bool{}, opt: opt}
	for i, g := range groups {
		for _, t := range g {
			r.held[t.ID] = held[i]
		}
		if held[i] {
			r.HeldOutGroups++
		} else {
			r.DevGroups++
		}
	}
	for _, t := range ts {
		if r.held[t.ID] {
			r.HeldOut = append(r.HeldOut, t)
		} else {
			r.Dev = append(r.Dev, t)
		}
	}
	r.Slices = b.slices()
	return r, nil
}
