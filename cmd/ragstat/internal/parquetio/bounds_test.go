package parquetio

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/format"

	"github.com/ragstat/ragstat/input"
	"github.com/ragstat/ragstat/internal/parquettest"
)

// TestPageBounds: page headers that declare more than their bytes can
// hold are refused before the page is read, naming the column and the
// bound; the same file with its true header reads.
func TestPageBounds(t *testing.T) {
	bombs, err := parquettest.Bombs()
	if err != nil {
		t.Fatal(err)
	}
	plain, err := parquettest.Encode([]parquettest.Run{{Query: "q1", Item: "a", Score: 1}, {Query: "q2", Item: "a", Score: 2}})
	if err != nil {
		t.Fatal(err)
	}
	long, err := parquettest.PatchPage(plain, func(h *format.PageHeader) { h.CompressedPageSize = 1 << 30 })
	if err != nil {
		t.Fatal(err)
	}
	same, err := parquettest.PatchPage(plain, func(*format.PageHeader) {})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"untouched", same, ""},
		{"zstd page claiming 2^31-1 bytes", bombs["bytes"], `column "query", at byte 4: a page of`},
		{"page claiming 2^31-1 values", bombs["values"], "declares 2147483647 values, more than the 16777216 a page may hold"},
		{"page longer than its chunk", long, "a page of 1073741824 bytes does not fit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			lists, err := ReadRun(input.FromBytes("bomb.parquet", c.data))
			switch {
			case c.want == "" && (err != nil || len(lists) != 2):
				t.Errorf("%d lists, %v", len(lists), err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bomb.parquet: not a readable Parquet file")):
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}

// TestFooterBounds: a footer whose list declares more elements than it
// has bytes is refused before the library allocates the list.
func TestFooterBounds(t *testing.T) {
	data := encode(t, []row{{"q1", "a", 1, 1}})
	footerLen := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	footer := data[len(data)-8-footerLen : len(data)-8]
	// FileMetaData field 4 is row_groups, a list of structs: header 0x19
	// (delta 1 from field 3, type 9) then the size and type byte 0x1c.
	i := bytes.Index(footer, []byte{0x19, 0x1c})
	if i < 0 {
		t.Fatal("no row_groups list of one in the footer")
	}
	bomb := bytes.Clone(data)
	at := len(data) - 8 - footerLen + i + 1
	bomb = append(append(bomb[:at:at], 0xfc, 0xff, 0xff, 0xff, 0xff, 0x07), data[at+1:]...)
	binary.LittleEndian.PutUint32(bomb[len(bomb)-8:], uint32(footerLen+5))
	_, err := ReadRun(input.FromBytes("bomb.parquet", bomb))
	if err == nil || !strings.Contains(err.Error(), "footer: damaged") {
		t.Errorf("error %v", err)
	}
}
