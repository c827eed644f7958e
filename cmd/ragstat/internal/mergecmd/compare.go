package mergecmd

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/flagname"
	"github.com/ragstat/ragstat/cmd/ragstat/internal/settings"
	"github.com/ragstat/ragstat/compare"
	"github.com/ragstat/ragstat/eval"
)

// MergeCompare combines the partial results of `ragstat compare --shard
// I/N --format json`, named by names (file names, for messages), into
// exactly the comparison one run over every query gives (compare.Merge),
// with the reasons its gate fails. It refuses parts that are not one
// split's shards each once, whose manifests disagree (judgments, topics,
// corpus, inputs, policy, metrics, tokenizer, allowed mismatches, ragstat
// version), whose statistics' or gate's settings or systems differ, and
// parts that hold a query of another shard, naming them.
func MergeCompare(names []string, parts []*compare.Result) (*compare.Result, []string, error) {
	ms := make([]*eval.Manifest, len(parts))
	for i, p := range parts {
		ms[i] = p.Manifest
		if p.Manifest != nil && p.Manifest.Shard != nil && p.Partial == nil {
			return nil, nil, fmt.Errorf("%s names a shard but carries no partial record: write each part with ragstat compare --shard I/N --format json", names[i])
		}
	}
	if _, err := checkParts(names, ms, parts, eval.KindCompare, disagreeCompare, ownCompare, strayCompare); err != nil {
		return nil, nil, err
	}
	return compare.Merge(parts, flagname.Flag)
}

// disagreeCompare names what two parts of one comparison must share and
// do not.
func disagreeCompare(a, b *compare.Result) []string {
	ma, mb := a.Manifest, b.Manifest
	d := disagree(ma, mb, "", "", nil, nil)
	files := func(m *eval.Manifest) string {
		var s []string
		for _, f := range append([]*eval.FileRecord{m.Judgments, m.Topics, m.Corpus}, ptrs(m.Inputs)...) {
			if f != nil {
				s = append(s, fmt.Sprintf("%s %s %s sha256 %.12s", f.Role, f.System, f.Path, f.SHA256))
			}
		}
		return strings.Join(s, ", ")
	}
	if fa, fb := files(ma), files(mb); fa != fb {
		d = append(d, fmt.Sprintf("the inputs (%s vs %s)", fa, fb))
	}
	if !slices.Equal(ma.Allowed, mb.Allowed) {
		d = append(d, fmt.Sprintf("the allowed mismatches (%v vs %v)", ma.Allowed, mb.Allowed))
	}
	pa, pb := a.Partial, b.Partial
	if !reflect.DeepEqual(a.Settings, b.Settings) || !reflect.DeepEqual(pa.Options, pb.Options) {
		d = append(d, fmt.Sprintf("the statistics' settings (%s vs %s)", statSettings(a), statSettings(b)))
	}
	if !slices.Equal(pa.SliceBy, pb.SliceBy) || (pa.Topics == nil) != (pb.Topics == nil) {
		d = append(d, fmt.Sprintf("the slices (by %v vs by %v)", pa.SliceBy, pb.SliceBy))
	}
	if !slices.Equal(pa.FailOn, pb.FailOn) || pa.FailOnSignificant != pb.FailOnSignificant || !slices.Equal(pa.GateSlices, pb.GateSlices) || pa.Quality != pb.Quality {
		d = append(d, fmt.Sprintf("the gate (%s vs %s)", gate(a), gate(b)))
	}
	if sa, sb := systems(a), systems(b); sa != sb {
		d = append(d, fmt.Sprintf("the systems (%s vs %s)", sa, sb))
	}
	return d
}

func ptrs(fs []eval.FileRecord) []*eval.FileRecord {
	out := make([]*eval.FileRecord, len(fs))
	for i := range fs {
		out[i] = &fs[i]
	}
	return out
}

func statSettings(r *compare.Result) string {
	b, _ := json.Marshal(r.Settings)
	return string(b)
}

func gate(r *compare.Result) string {
	p := r.Partial
	return fmt.Sprintf("--fail-on %q, significant %t, slices %v, quality %q", p.FailOn, p.FailOnSignificant, p.GateSlices, p.Quality)
}

func systems(r *compare.Result) string {
	p := r.Partial
	var s []string
	for _, side := range p.Sides {
		if side.Traced == nil { // a trace file's systems are those its shard traced
			s = append(s, side.Name+" "+strings.Join(side.Metrics, " "))
		}
	}
	return strings.Join(s, ", ")
}

// strayCompare returns a query the part holds that belongs to another
// shard.
func strayCompare(p *compare.Result, s settings.Shard) (string, bool) {
	qs := slices.Sorted(maps.Keys(p.Manifest.Shard.Positions))
	qs = append(qs, p.Queries...)
	for _, side := range p.Partial.Sides {
		qs = append(qs, side.Queries...)
	}
	if i := slices.IndexFunc(qs, func(q string) bool { return !s.Has(q) }); i >= 0 {
		return qs[i], false
	}
	return "", true
}

// ownCompare checks that a partial comparison holds what its manifest
// records: its sides' digest, and each side's queries once.
func ownCompare(name string, p *compare.Result) []string {
	problems := ownRecord(name, p.Manifest, p.Partial.Digest(), nil)
	for _, side := range p.Partial.Sides {
		seen := make(map[string]bool, len(side.Queries))
		for _, q := range side.Queries {
			if seen[q] {
				problems = append(problems, fmt.Sprintf("%s, side %q: query %q appears twice", name, side.Name, q))
			}
			seen[q] = true
		}
	}
	return problems
}
