package split

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/topics"
)

// group gathers ts into groups, in the order of their first topics: topics
// sharing a key are together, and so, transitively, are topics that share a
// key with the same topic.
func group(ts []*topics.Topic, by GroupBy) [][]*topics.Topic {
	parent := make([]int, len(ts))
	root := func(i int) int {
		for parent[i] != i {
			parent[i], i = parent[parent[i]], parent[i]
		}
		return i
	}
	first := map[string]int{}
	for i, t := range ts {
		parent[i] = i
		for _, k := range by.keys(t) {
			if j, ok := first[k]; ok {
				a, b := root(i), root(j)
				parent[max(a, b)] = min(a, b)
			} else {
				first[k] = i
			}
		}
	}
	at := map[int]int{}
	var groups [][]*topics.Topic
	for i, t := range ts {
		r := root(i)
		if _, ok := at[r]; !ok {
			at[r] = len(groups)
			groups = append(groups, nil)
		}
		groups[at[r]] = append(groups[at[r]], t)
	}
	return groups
}

// balance tracks, for the whole and for every slice, how many topics are
// placed and how many of them are held out.
type balance struct {
	share     float64
	total     int // topics
	slack     float64
	by        GroupBy
	placed    map[string]int // per slice
	held      map[string]int
	all, hold int
}

func newBalance(ts []*topics.Topic, opt Options, largest int) *balance {
	return &balance{share: opt.HeldOut, total: len(ts), slack: float64(largest), by: opt.GroupBy,
		placed: map[string]int{}, held: map[string]int{}}
}

// tags counts the slices of the topics of g.
func (b *balance) tags(g []*topics.Topic) map[string]int {
	n := map[string]int{}
	for _, t := range g {
		seen := map[string]bool{}
		for _, tag := range b.by.slices(t) {
			if !seen[tag] {
				seen[tag] = true
				n[tag]++
			}
		}
	}
	return n
}

// choose says whether g goes to the held-out side.
func (b *balance) choose(g []*topics.Topic, rng *rand.Rand) bool {
	n := float64(len(g))
	switch {
	case float64(b.hold)+n > b.share*float64(b.total)+b.slack:
		return false
	case float64(b.all-b.hold)+n > (1-b.share)*float64(b.total)+b.slack:
		return true
	}
	held, dev := b.cost(g, true), b.cost(g, false)
	if held == dev {
		return rng.IntN(2) == 0
	}
	return held < dev
}

// cost is how far the whole and the slices of g would end from the
// held-out share, in topics, with g on the held-out side or not.
func (b *balance) cost(g []*topics.Topic, held bool) float64 {
	off := func(hold, placed, n int) float64 {
		if held {
			hold += n
		}
		return math.Abs(float64(hold) - b.share*float64(placed+n))
	}
	c := off(b.hold, b.all, len(g))
	tags := b.tags(g)
	for _, tag := range slices.Sorted(maps.Keys(tags)) { // one order of the sum: equal costs stay equal
		c += off(b.held[tag], b.placed[tag], tags[tag])
	}
	return c
}

// place records g on its side.
func (b *balance) place(g []*topics.Topic, held bool) {
	b.all += len(g)
	if held {
		b.hold += len(g)
	}
	for tag, n := range b.tags(g) {
		b.placed[tag] += n
		if held {
			b.held[tag] += n
		}
	}
}

// slices lists every slice's topics on each side, by tag.
func (b *balance) slices() []Slice {
	var out []Slice
	for tag, n := range b.placed {
		out = append(out, Slice{Tag: tag, Dev: n - b.held[tag], HeldOut: b.held[tag]})
	}
	slices.SortFunc(out, func(x, y Slice) int { return strings.Compare(x.Tag, y.Tag) })
	return out
}

// improve swaps held-out groups with development groups of the same size
// (which keeps the sides' sizes) while a swap brings the slices closer to
// the held-out share; held says which groups are held out. Groups with the
// same size and slices are interchangeable, so swaps are sought between
// classes of them.
func (b *balance) improve(groups [][]*topics.Topic, held []bool) {
	classes := b.classes(groups, held)
	for range len(groups) {
		if !b.swap(classes, held) {
			return
		}
	}
}

// class is the groups of one size with the same slices, by side.
type class struct {
	size      int
	tags      map[string]int
	held, dev []int // group indexes
}

func (b *balance) classes(groups [][]*topics.Topic, held []bool) []*class {
	byKey := map[string]*class{}
	var out []*class
	for i, g := range groups {
		tags := b.tags(g)
		key := fmt.Sprint(len(g), tags) // fmt sorts map keys
		c := byKey[key]
		if c == nil {
			c = &class{size: len(g), tags: tags}
			byKey[key] = c
			out = append(out, c)
		}
		if held[i] {
			c.held = append(c.held, i)
		} else {
			c.dev = append(c.dev, i)
		}
	}
	return out
}

// swap makes the first swap that helps, and reports whether there was one.
func (b *balance) swap(classes []*class, held []bool) bool {
	for _, out := range classes {
		for _, in := range classes {
			if out == in || out.size != in.size || len(out.held) == 0 || len(in.dev) == 0 || b.gain(out.tags, in.tags) <= 1e-9 {
				continue
			}
			i, j := out.held[len(out.held)-1], in.dev[len(in.dev)-1]
			out.held, out.dev = out.held[:len(out.held)-1], append(out.dev, i)
			in.dev, in.held = in.dev[:len(in.dev)-1], append(in.held, j)
			held[i], held[j] = false, true
			b.move(out.tags, -1)
			b.move(in.tags, +1)
			return true
		}
	}
	return false
}

// gain is how much closer the slices end to the held-out share when the
// group with slices out leaves the held-out side and the one with in joins.
func (b *balance) gain(out, in map[string]int) float64 {
	g := 0.0
	tags := slices.Sorted(maps.Keys(out))
	for tag := range in {
		if _, ok := out[tag]; !ok {
			tags = append(tags, tag)
		}
	}
	slices.Sort(tags) // one order of the sum, whatever the maps' order
	for _, tag := range tags {
		target := b.share * float64(b.placed[tag])
		g += math.Abs(float64(b.held[tag])-target) - math.Abs(float64(b.held[tag]-out[tag]+in[tag])-target)
	}
	return g
}

// move adds sign times the slices of a group to the held-out side.
func (b *balance) move(tags map[string]int, sign int) {
	for tag, n := range tags {
		b.held[tag] += sign * n
	}
}
