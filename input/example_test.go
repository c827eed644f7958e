package input_test

import (
	"bytes"
	"compress/gzip"
	"fmt"

	"github.com/ragstat/ragstat/input"
)

// A file recognised as gzip by its content, whatever its name, and read
// more than once: every reader of ragstat takes a File.
func ExampleFromBytes() {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte("refund 0 policy 3\n"))
	z.Close()
	f := input.FromBytes("qrels.txt", b.Bytes())
	head, err := f.Head(6)
	if err != nil {
		panic(err)
	}
	all, err := f.ReadAll()
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v %q %q\n", f.Gzip(), head, all)
	// Output: true "refund" "refund 0 policy 3\n"
}
