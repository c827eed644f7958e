package topics

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Slice is a named subset of queries, by position in the list sliced.
type Slice struct {
	Name    string
	Queries []int
}

// sliceFields lists the fields Slices slices by.
const sliceFields = "tag, tag:PREFIX, family, answerable"

// Slices groups queries by what their topics in set say: "tag" (every tag),
// "tag:PREFIX" (tags starting with PREFIX), "family", "answerable". Slices
// are named FIELD:VALUE, sorted within each field; a query without a topic
// is an error, a query without a family lands in family:(none).
func (set *Set) Slices(queries []string, by []string) ([]Slice, error) {
	var out []Slice
	seen := map[string]bool{}
	for _, field := range by {
		keys, err := sliceKeys(field)
		if err != nil {
			return nil, err
		}
		groups := map[string][]int{}
		for i, q := range queries {
			t := set.Get(q)
			if t == nil {
				return nil, fmt.Errorf("%s: query %q has no topic", set.File, q)
			}
			for _, k := range keys(t) {
				groups[k] = append(groups[k], i)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(groups)) {
			if !seen[name] {
				seen[name] = true
				out = append(out, Slice{Name: name, Queries: groups[name]})
			}
		}
	}
	return out, nil
}

// sliceKeys returns what names the slices a topic belongs to under field.
func sliceKeys(field string) (func(*Topic) []string, error) {
	prefix, isTag := strings.CutPrefix(field, "tag:")
	if field == "tag" {
		prefix, isTag = "", true
	}
	switch {
	case isTag:
		return func(t *Topic) []string {
			var out []string
			for _, tag := range t.Tags {
				if strings.HasPrefix(tag, prefix) {
					out = append(out, "tag:"+tag)
				}
			}
			return out
		}, nil
	case field == "family":
		return func(t *Topic) []string { return []string{"family:" + orNone(t.Family)} }, nil
	case field == "answerable":
		return func(t *Topic) []string { return []string{"answerable:" + strconv.FormatBool(t.Answerable)} }, nil
	}
	return nil, fmt.Errorf("cannot slice by %q: use %s", field, sliceFields)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
