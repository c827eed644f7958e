// Package llmtest stands in for an OpenAI-compatible Batch API in tests:
// it reads the requests a batch file holds and writes the output file the
// API would return for them.
package llmtest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/ragstat/ragstat/internal/llm"
)

// AnswerBatch reads a Batch API input file as the API does, one
// {"custom_id","method","url","body"} request a line and nothing else,
// stopping the test at a line that is not a POST to /v1/chat/completions
// with a custom id and a chat request. It returns the output file, one
// successful response a line in input order whose body is what respond
// gives for the request (a chat completion's JSON), and the requests'
// bodies as written.
func AnswerBatch(t testing.TB, in []byte, respond func(id string, req llm.Request) string) (out []byte, bodies [][]byte) {
	t.Helper()
	var b bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(in))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var line map[string]json.RawMessage
		var id, method, url string
		err := json.Unmarshal(sc.Bytes(), &line)
		if err == nil && len(line) == 4 {
			err = errors.Join(json.Unmarshal(line["custom_id"], &id), json.Unmarshal(line["method"], &method), json.Unmarshal(line["url"], &url))
		}
		if err != nil || len(line) != 4 || line["body"] == nil || method != "POST" || url != "/v1/chat/completions" || id == "" {
			t.Fatalf("batch line %d: %v: %s", n, err, sc.Bytes())
		}
		var req llm.Request
		d := json.NewDecoder(bytes.NewReader(line["body"]))
		d.DisallowUnknownFields()
		if err := d.Decode(&req); err != nil {
			t.Fatalf("batch line %d: the body is not a chat request: %v", n, err)
		}
		bodies = append(bodies, line["body"])
		fmt.Fprintf(&b, `{"id":"batch_req_%d","custom_id":%q,"response":{"status_code":200,"request_id":"req_%d","body":%s},"error":null}`+"\n",
			n, id, n, respond(id, req))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), bodies
}
