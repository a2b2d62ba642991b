package agents_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/agents"
)

// FuzzServe feeds the server arbitrary input after an initialize: it must
// end without panicking, at the end of the input or with
// ErrFrameTooLarge, and write only whole JSON-RPC answers, one per line.
// Tool calls reach a repository that cannot be opened, so only the
// protocol and the argument checks run.
func FuzzServe(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"x"}}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"log","arguments":{"limit":1e2,"rev":"x"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"evaluate","arguments":{"target":"t","scores":[{"name":"q","value":1}]}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":null}` + "\r\n\n" + `{"id":{}}`,
		"\xff\xfe",
	} {
		f.Add(seed)
	}
	srv, err := agents.NewServer(agents.Options{Open: func() (*plumbing.Repo, error) { return nil, errors.New("no repository in the fuzz test") }, Version: "fuzz"})
	if err != nil {
		f.Fatal(err)
	}
	init := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}` + "\n"
	f.Fuzz(func(t *testing.T, input string) {
		var out bytes.Buffer
		err := srv.Serve(context.Background(), strings.NewReader(init+input), &out)
		if err != nil && !errors.Is(err, agents.ErrFrameTooLarge) {
			t.Fatalf("Serve: %v", err)
		}
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  json.RawMessage `json:"result"`
				Error   json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m.JSONRPC != "2.0" || m.ID == nil || (m.Result == nil) == (m.Error == nil) {
				t.Fatalf("answer %.300q is no JSON-RPC response", sc.Text())
			}
		}
	})
}
