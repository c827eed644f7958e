package evalemit

import (
	"regexp"
	"testing"
)

// FuzzRejected: whatever a collector answers, reading its partial success
// ends with nil or an error that says how many were rejected.
func FuzzRejected(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `not json`,
		`{"partialSuccess":{}}`,
		`{"partialSuccess":{"rejectedLogRecords":"3","errorMessage":"too old"}}`,
		`{"partialSuccess":{"rejectedSpans":2}}`,
		`{"partialSuccess":{"rejectedSpans":"-1"}}`,
		`{"partialSuccess":{"rejectedSpans":1e400}}`,
	} {
		f.Add([]byte(seed))
	}
	said := regexp.MustCompile(`^[1-9][0-9]* rejected: `)
	f.Fuzz(func(t *testing.T, reply []byte) {
		if err := rejected(reply); err != nil && !said.MatchString(err.Error()) {
			t.Errorf("%q: %v", reply, err)
		}
	})
}
