package parquetio

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/judgments"
)

type judgmentRowOut struct {
	Query string `parquet:"query"`
	Item  string `parquet:"item"`
	Grade int64  `parquet:"grade"`
}

// TestJudgmentGradeBounds walks the Parquet judgments reader with 64-bit
// grades at and past the 32-bit grades a set holds: the bounds read back
// exactly, anything past them is an error naming the file, the row and
// the limit, never a grade wrapped into another (2^32+2 read as 2).
func TestJudgmentGradeBounds(t *testing.T) {
	wide := judgments.Scale{Min: judgments.MinGrade, Max: judgments.MaxGrade}
	for _, c := range []struct {
		grade int64
		err   string
	}{
		{math.MaxInt32, ""},
		{-math.MaxInt32, ""},
		{math.MaxInt32 + 1, "outside the scale -2147483647..2147483647"},
		{math.MinInt32, "outside the scale"},
		{1<<32 + 2, "grade 4294967298 is outside the scale"},
		{1 << 62, "outside the scale"},
		{math.MinInt64, "outside the scale"},
	} {
		var buf bytes.Buffer
		w := parquet.NewGenericWriter[judgmentRowOut](&buf)
		if _, err := w.Write([]judgmentRowOut{{"q", "a", 1}, {"q", "d", c.grade}}); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		set, err := ReadJudgments(input.FromBytes("j.parquet", buf.Bytes()), wide)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "j.parquet:2") {
				t.Errorf("grade %d: %v, want an error at j.parquet:2 containing %q", c.grade, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("grade %d: %v", c.grade, err)
		}
		if g, ok := set.Query("q").Grade("d"); !ok || int64(g) != c.grade {
			t.Errorf("grade %d read as %d", c.grade, g)
		}
	}
}
