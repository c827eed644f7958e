package report

import (
	"slices"
	"testing"

	"github.com/ragstat/ragstat/cmd/ragstat/internal/flagname"
)

func TestCheckRows(t *testing.T) {
	tests := []struct {
		perQuery, summary bool
		want              string // as a command line writes it; "" accepted
	}{
		{false, false, ""},
		{true, false, ""},
		{false, true, ""},
		{true, true, "--per-query and --summary exclude each other"},
	}
	for _, tt := range tests {
		err := CheckRows(tt.perQuery, tt.summary)
		if got := flagname.Flagged(err); tt.want == "" && err != nil || tt.want != "" && got != tt.want {
			t.Errorf("CheckRows(%v, %v) = %v, want %q", tt.perQuery, tt.summary, err, tt.want)
		}
	}
}

func TestPresetNotes(t *testing.T) {
	tests := []struct {
		like   string
		preset []string
		want   []string
	}{
		{"", nil, nil},
		{"trec_eval", nil, nil},
		{"trec_eval", []string{"unjudged nonrelevant (a)"}, []string{"--like trec_eval set: unjudged nonrelevant (a)"}},
		{"ranx", []string{"a", "b"}, []string{"--like ranx set: a; b"}},
	}
	for _, tt := range tests {
		if got := PresetNotes(tt.like, tt.preset); !slices.Equal(got, tt.want) {
			t.Errorf("PresetNotes(%q, %q) = %q, want %q", tt.like, tt.preset, got, tt.want)
		}
	}
}
