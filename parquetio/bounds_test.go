package parquetio

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"

	"github.com/ragstat/ragstat/input"
)

// encodeWith writes rows as encode does, with the writer's options.
func encodeWith(t testing.TB, rows []row, opts ...parquet.WriterOption) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[row](&buf, opts...)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// patchPage rewrites the first page header of the first column chunk of
// a valid Parquet file with edit, moving what follows and the footer's
// offsets by the change in the header's length, so that the file stays
// well formed around a header that lies.
func patchPage(t *testing.T, data []byte, edit func(*format.PageHeader)) []byte {
	t.Helper()
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)), parquet.SkipPageIndex(true))
	if err != nil {
		t.Fatal(err)
	}
	meta := *pf.Metadata()
	chunk := &meta.RowGroups[0].Columns[0].MetaData
	at := chunk.DataPageOffset
	if d := chunk.DictionaryPageOffset; d > 0 && d < at {
		at = d
	}
	var protocol thrift.CompactProtocol
	var h format.PageHeader
	window := make([]byte, 64)
	n, err := readHeader(bytes.NewReader(data), at, int64(len(data)), &protocol, &h, &window)
	if err != nil {
		t.Fatal(err)
	}
	edit(&h)
	header, err := thrift.Marshal(&protocol, &h)
	if err != nil {
		t.Fatal(err)
	}
	delta := int64(len(header)) - n
	footerLen := int64(binary.LittleEndian.Uint32(data[len(data)-8:]))
	body := append(append(bytes.Clone(data[:at]), header...), data[at+n:int64(len(data))-8-footerLen]...)
	for g := range meta.RowGroups {
		for c := range meta.RowGroups[g].Columns {
			cc := &meta.RowGroups[g].Columns[c]
			for _, off := range []*int64{&cc.MetaData.DataPageOffset, &cc.MetaData.DictionaryPageOffset, &cc.FileOffset} {
				if *off > at {
					*off += delta
				}
			}
			cc.ColumnIndexOffset, cc.ColumnIndexLength, cc.OffsetIndexOffset, cc.OffsetIndexLength = 0, 0, 0, 0
		}
	}
	chunk.TotalCompressedSize += delta
	chunk.TotalUncompressedSize += delta
	footer, err := thrift.Marshal(&protocol, &meta)
	if err != nil {
		t.Fatal(err)
	}
	out := append(body, footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...)
}

// TestPageBounds: page headers that declare more than their bytes can
// hold are refused before the page is read, naming the column and the
// bound; the same file with its true header reads.
func TestPageBounds(t *testing.T) {
	rows := []row{{"q1", "a", 1, 1}, {"q1", "b", 0.5, 2}, {"q2", "a", 2, 1}}
	zstd := encodeWith(t, rows, parquet.Compression(&parquet.Zstd))
	plain := encodeWith(t, rows)
	for _, c := range []struct {
		name string
		data []byte
		edit func(*format.PageHeader)
		want string
	}{
		{"untouched", zstd, func(*format.PageHeader) {}, ""},
		{"zstd page claiming 2^31-1 bytes", zstd, func(h *format.PageHeader) { h.UncompressedPageSize = 1<<31 - 1 },
			`column "query", at byte 4: a page of`},
		{"plain page claiming 2^31-1 values", plain, func(h *format.PageHeader) {
			switch {
			case h.DictionaryPageHeader.Valid:
				h.DictionaryPageHeader.V.NumValues = 1<<31 - 1
			case h.DataPageHeader.Valid:
				h.DataPageHeader.V.NumValues = 1<<31 - 1
			default:
				h.DataPageHeaderV2.V.NumValues = 1<<31 - 1
			}
		}, "declares 2147483647 values, more than the 16777216 a page may hold"},
		{"page longer than its chunk", plain, func(h *format.PageHeader) { h.CompressedPageSize = 1 << 30 },
			"a page of 1073741824 bytes does not fit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := patchPage(t, c.data, c.edit)
			t.Logf("%d bytes", len(data))
			lists, err := ReadRun(input.FromBytes("bomb.parquet", data))
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
	data := encodeWith(t, []row{{"q1", "a", 1, 1}})
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
