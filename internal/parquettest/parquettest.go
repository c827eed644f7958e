// Package parquettest makes damaged Parquet files for tests: a valid file
// whose first page header is rewritten to declare what its bytes cannot
// hold, the rest of the file moved to fit.
package parquettest

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// PatchPage rewrites the first page header of the first column chunk of
// the valid Parquet file data with edit, moving what follows and the
// footer's offsets by the change in the header's length, so that the file
// stays well formed around a header that lies. The page index is dropped.
func PatchPage(data []byte, edit func(*format.PageHeader)) ([]byte, error) {
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)), parquet.SkipPageIndex(true))
	if err != nil {
		return nil, err
	}
	meta := *pf.Metadata()
	chunk := &meta.RowGroups[0].Columns[0].MetaData
	at := chunk.DataPageOffset
	if d := chunk.DictionaryPageOffset; d > 0 && d < at {
		at = d
	}
	var protocol thrift.CompactProtocol
	var h format.PageHeader
	r := protocol.NewReaderFromBytes(data[at:])
	if err := thrift.NewDecoder(r).Decode(&h); err != nil {
		return nil, fmt.Errorf("page header at byte %d: %w", at, err)
	}
	n := int64(len(data[at:]) - r.Reader().(*bytes.Reader).Len())
	edit(&h)
	header, err := thrift.Marshal(&protocol, &h)
	if err != nil {
		return nil, err
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
		return nil, err
	}
	out := append(body, footer...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(footer)))
	return append(out, "PAR1"...), nil
}

// Run is a row of a Parquet run.
type Run struct {
	Query string  `parquet:"query"`
	Item  string  `parquet:"item"`
	Score float64 `parquet:"score"`
	Rank  int64   `parquet:"rank"`
}

// Encode writes rows as a Parquet file with the writer's options.
func Encode[T any](rows []T, opts ...parquet.WriterOption) ([]byte, error) {
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf, opts...)
	if _, err := w.Write(rows); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Bombs are damaged runs of a few hundred bytes that a reader trusting
// their page headers would allocate gigabytes for: a zstd page declaring
// 2^31-1 bytes uncompressed, and a page declaring 2^31-1 values.
func Bombs() (map[string][]byte, error) {
	rows := []Run{{"q1", "a", 1, 1}, {"q1", "b", 0.5, 2}, {"q2", "a", 2, 1}}
	zstd, err := Encode(rows, parquet.Compression(&parquet.Zstd))
	if err != nil {
		return nil, err
	}
	plain, err := Encode(rows)
	if err != nil {
		return nil, err
	}
	bytesBomb, err := PatchPage(zstd, func(h *format.PageHeader) { h.UncompressedPageSize = 1<<31 - 1 })
	if err != nil {
		return nil, err
	}
	valuesBomb, err := PatchPage(plain, func(h *format.PageHeader) {
		switch {
		case h.DictionaryPageHeader.Valid:
			h.DictionaryPageHeader.V.NumValues = 1<<31 - 1
		case h.DataPageHeader.Valid:
			h.DataPageHeader.V.NumValues = 1<<31 - 1
		default:
			h.DataPageHeaderV2.V.NumValues = 1<<31 - 1
		}
	})
	if err != nil {
		return nil, err
	}
	return map[string][]byte{"bytes": bytesBomb, "values": valuesBomb}, nil
}
