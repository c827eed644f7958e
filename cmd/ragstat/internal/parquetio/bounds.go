package parquetio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/parquet-go/parquet-go/encoding/thrift"
	"github.com/parquet-go/parquet-go/format"
)

// The bounds of one page, checked before the Parquet library reads it: a
// page header is taken as a damaged file past them rather than trusted
// with an allocation.
const (
	// MaxPage is the most bytes one page may hold once decompressed;
	// writers make pages of a few hundred KiB to a few MiB.
	MaxPage = 256 << 20
	// MaxPageValues is the most values (nulls included) one page may hold.
	MaxPageValues = 1 << 24
	// maxHeader is the most bytes a page header (its statistics included)
	// is read in.
	maxHeader = 16 << 20
)

// maxRatio is the most a codec expands its input (a deflate block at most
// 1032 times, say); a codec with no useful bound (Brotli) has MaxPage's.
func maxRatio(c format.CompressionCodec) (int64, bool) {
	switch c {
	case format.Uncompressed:
		return 1, true
	case format.Snappy:
		return 24, true
	case format.Gzip:
		return 1040, true
	case format.Lz4, format.Lz4Raw, format.LZO:
		return 1024, true
	case format.Zstd:
		return 1 << 16, true
	case format.Brotli:
		return MaxPage, true
	}
	return 0, false
}

// checkPages walks the page headers of every column chunk of meta in r
// (size bytes) and refuses a chunk that does not fit in the file or that
// declares more than its bytes can hold: a page larger than its codec can
// expand its compressed bytes to, or than MaxPage, or more values than
// MaxPageValues. It reads headers only.
func checkPages(r io.ReaderAt, size int64, meta *format.FileMetaData) error {
	for g, rg := range meta.RowGroups {
		for _, cc := range rg.Columns {
			if err := checkChunk(r, size, g, &cc.MetaData); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkChunk(r io.ReaderAt, size int64, group int, m *format.ColumnMetaData) error {
	fail := func(at int64, msg string, args ...any) error {
		return fmt.Errorf("row group %d, column %q, at byte %d: %s", group+1, strings.Join(m.PathInSchema, "."), at, fmt.Sprintf(msg, args...))
	}
	ratio, known := maxRatio(m.Codec)
	if !known {
		return fail(m.DataPageOffset, "unknown compression codec %d", m.Codec)
	}
	start := m.DataPageOffset
	if d := m.DictionaryPageOffset; d > 0 && d < start {
		start = d
	}
	end := start + m.TotalCompressedSize
	switch {
	case start < 4 || m.TotalCompressedSize < 0 || end > size-8 || end < start:
		return fail(start, "a column chunk of %d bytes does not fit in a file of %d bytes", m.TotalCompressedSize, size)
	case m.TotalUncompressedSize < 0 || m.TotalUncompressedSize > m.TotalCompressedSize*ratio:
		return fail(start, "a column chunk of %d bytes declares %d bytes uncompressed, more than %s expands them to", m.TotalCompressedSize, m.TotalUncompressedSize, m.Codec)
	}
	var protocol thrift.CompactProtocol
	window := make([]byte, min(64<<10, end-start))
	for at := start; at < end; {
		var h format.PageHeader
		n, err := readHeader(r, at, end, &protocol, &h, &window)
		if err != nil {
			return fail(at, "unreadable page header: %v", err)
		}
		c, u := int64(h.CompressedPageSize), int64(h.UncompressedPageSize)
		values := int64(-1)
		switch {
		case h.DataPageHeader.Valid:
			values = int64(h.DataPageHeader.V.NumValues)
		case h.DataPageHeaderV2.Valid:
			values = int64(h.DataPageHeaderV2.V.NumValues)
		case h.DictionaryPageHeader.Valid:
			values = int64(h.DictionaryPageHeader.V.NumValues)
		}
		switch {
		case c < 0 || c > end-at-n:
			return fail(at, "a page of %d bytes does not fit in the %d bytes left of its column chunk", c, end-at-n)
		case u < 0 || u > c*ratio:
			return fail(at, "a page of %d bytes declares %d bytes uncompressed, more than %s expands them to (at most %d times)", c, u, m.Codec, ratio)
		case u > MaxPage:
			return fail(at, "a page declares %d bytes uncompressed, more than the %d MiB a page may hold", u, MaxPage>>20)
		case values > MaxPageValues:
			return fail(at, "a page declares %d values, more than the %d a page may hold", values, MaxPageValues)
		}
		at += n + c
	}
	return nil
}

// readHeader decodes the page header at offset at into h and returns its
// length: from a window of the file grown (up to maxHeader, and not past
// end) until the header fits, so that no length the header declares is
// allocated before it is known to lie within the file.
func readHeader(r io.ReaderAt, at, end int64, protocol *thrift.CompactProtocol, h *format.PageHeader, window *[]byte) (int64, error) {
	for {
		buf := (*window)[:min(int64(len(*window)), end-at)]
		n, err := r.ReadAt(buf, at)
		if n < len(buf) {
			return 0, fmt.Errorf("reading: %w", err)
		}
		br := protocol.NewReaderFromBytes(buf)
		err = thrift.NewDecoder(br).Decode(h)
		if err == nil {
			rest := br.Reader().(*bytes.Reader).Len()
			return int64(len(buf) - rest), nil
		}
		if int64(len(buf)) == end-at || len(buf) >= maxHeader || !truncated(err) {
			return 0, err
		}
		*window = make([]byte, min(2*len(*window), maxHeader))
		*h = format.PageHeader{}
	}
}

// truncated reports an error of a decoder that ran out of bytes.
func truncated(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "out of range")
}

// checkFooter refuses a footer whose thrift lists declare more elements
// than its bytes can hold (each takes a byte at least), or that nests
// deeper than any Parquet footer: the library's decoder would allocate
// a declared list before reading it.
func checkFooter(r io.ReaderAt, size int64) error {
	if size < 12 {
		return fmt.Errorf("%d bytes: too short for a Parquet file", size)
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	if string(tail[4:]) != "PAR1" {
		return nil // encrypted or not Parquet: the library says which
	}
	n := int64(tail[0]) | int64(tail[1])<<8 | int64(tail[2])<<16 | int64(tail[3])<<24
	if n > size-12 {
		return fmt.Errorf("a footer of %d bytes does not fit in a file of %d bytes", n, size)
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-8-n); err != nil {
		return err
	}
	w := thriftWalk{data: footer}
	if err := w.structure(0); err != nil {
		return fmt.Errorf("footer: %w", err)
	}
	return nil
}

// thriftWalk reads a thrift compact-protocol value only to check its list
// lengths and nesting.
type thriftWalk struct {
	data []byte
	at   int
}

var errFooter = errors.New("damaged (a list longer than its bytes, or nested too deep)")

func (w *thriftWalk) uvarint() (uint64, error) {
	var u uint64
	for shift := 0; shift < 64; shift += 7 {
		if w.at >= len(w.data) {
			return 0, errFooter
		}
		b := w.data[w.at]
		w.at++
		u |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return u, nil
		}
	}
	return 0, errFooter
}

func (w *thriftWalk) skip(n uint64) error {
	if n > uint64(len(w.data)-w.at) {
		return errFooter
	}
	w.at += int(n)
	return nil
}

// structure reads fields up to the stop byte.
func (w *thriftWalk) structure(depth int) error {
	if depth > 64 {
		return errFooter
	}
	for {
		if w.at >= len(w.data) {
			return errFooter
		}
		b := w.data[w.at]
		w.at++
		if b == 0 {
			return nil
		}
		if b>>4 == 0 { // a field id as a zigzag varint follows
			if _, err := w.uvarint(); err != nil {
				return err
			}
		}
		if err := w.value(b&0x0f, depth); err != nil {
			return err
		}
	}
}

// value reads one value of compact type t.
func (w *thriftWalk) value(t byte, depth int) error {
	switch t {
	case 1, 2: // true, false: in the field header
		return nil
	case 3: // byte
		return w.skip(1)
	case 4, 5, 6: // i16, i32, i64
		_, err := w.uvarint()
		return err
	case 7: // double
		return w.skip(8)
	case 8: // binary
		n, err := w.uvarint()
		if err != nil {
			return err
		}
		return w.skip(n)
	case 9, 10: // list, set
		if w.at >= len(w.data) {
			return errFooter
		}
		b := w.data[w.at]
		w.at++
		n := uint64(b >> 4)
		if n == 15 {
			var err error
			if n, err = w.uvarint(); err != nil {
				return err
			}
		}
		if n > uint64(len(w.data)-w.at) {
			return errFooter
		}
		for range n {
			if err := w.element(b&0x0f, depth+1); err != nil {
				return err
			}
		}
		return nil
	case 11: // map
		n, err := w.uvarint()
		if err != nil || n == 0 {
			return err
		}
		if w.at >= len(w.data) || n > uint64(len(w.data)-w.at) {
			return errFooter
		}
		kv := w.data[w.at]
		w.at++
		for range n {
			if err := w.element(kv>>4, depth+1); err != nil {
				return err
			}
			if err := w.element(kv&0x0f, depth+1); err != nil {
				return err
			}
		}
		return nil
	case 12: // struct
		return w.structure(depth + 1)
	}
	return errFooter
}

// element reads a list element: a boolean takes a byte there.
func (w *thriftWalk) element(t byte, depth int) error {
	if t == 1 || t == 2 {
		return w.skip(1)
	}
	return w.value(t, depth)
}
