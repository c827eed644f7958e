package parquetio

import (
	"bytes"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/ragstat/ragstat/input"
)

type row struct {
	Query string  `parquet:"query"`
	Item  string  `parquet:"item"`
	Score float64 `parquet:"score"`
	Rank  int64   `parquet:"rank"`
}

func encode(t testing.TB, rows []row) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadRun(t *testing.T) {
	data := encode(t, []row{{"q2", "b", 1, 2}, {"q1", "a", 0.5, 1}, {"q2", "a", 3, 1}})
	f := input.FromBytes("run.parquet", data)
	if ok, err := Is(f); !ok || err != nil {
		t.Fatalf("Is = %v, %v", ok, err)
	}
	lists, err := ReadRun(f)
	if err != nil {
		t.Fatal(err)
	}
	q2 := lists["q2"]
	if len(lists) != 2 || len(q2) != 2 || q2[0].Doc != "b" || q2[0].Rank != 2 || q2[0].Line != 1 || q2[1].Score != 3 || q2[1].Line != 3 {
		t.Fatalf("lists = %+v", lists)
	}
	if ok, _ := Is(input.FromBytes("run.txt", []byte("q1 Q0 a 1 1 r\n"))); ok {
		t.Error("a TREC run taken for Parquet")
	}
}

// FuzzReadRun feeds damaged Parquet to the reader: an error, never a
// panic.
func FuzzReadRun(f *testing.F) {
	good := encode(f, []row{{"q1", "a", 1, 1}, {"q1", "b", 0.5, 2}})
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte("PAR1PAR1"))
	damaged := bytes.Clone(good)
	damaged[len(damaged)/3] ^= 0xff
	f.Add(damaged)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		lists, err := ReadRun(input.FromBytes("fuzz.parquet", data))
		if err != nil && !strings.Contains(err.Error(), "fuzz.parquet") {
			t.Errorf("error does not name the file: %v", err)
		}
		if err == nil {
			for q, es := range lists {
				if q == "" || len(es) == 0 {
					t.Errorf("query %q with %d entries", q, len(es))
				}
			}
		}
	})
}
