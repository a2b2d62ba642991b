package agents_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tinehq/tine/porcelain/agents"
)

// TestInitializeNegotiates: initialize answers the client's protocol
// version when the server speaks it, else its newest; it names the
// server, says the tool list never changes and carries the instructions.
// A second initialize and a call before the first are refused; ping is
// always answered.
func TestInitializeNegotiates(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct{ asked, want string }{
		{"2025-11-25", "2025-11-25"}, {"2025-06-18", "2025-06-18"}, {"2024-11-05", "2024-11-05"},
		{"2026-07-28", agents.ProtocolVersions[0]}, {"1999-01-01", agents.ProtocolVersions[0]},
	} {
		w := newWire(t, f.options())
		w.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
		if m := w.recv(); m["id"] != "p" || m["result"] == nil {
			t.Errorf("ping before initialize: %v", m)
		}
		w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
		wantError(t, w.recv(), 1.0, -32600)
		w.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"log"}}`)
		wantError(t, w.recv(), 2.0, -32600)
		w.send(`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"` + tc.asked + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
		res, _ := w.recv()["result"].(map[string]any)
		caps, _ := res["capabilities"].(map[string]any)
		info, _ := res["serverInfo"].(map[string]any)
		if res["protocolVersion"] != tc.want || caps["tools"].(map[string]any)["listChanged"] != false ||
			info["name"] != "tine" || info["version"] != "test" || !strings.Contains(res["instructions"].(string), "experiments/") {
			t.Errorf("initialize %s: %v, want version %s", tc.asked, res, tc.want)
		}
		w.send(`{"jsonrpc":"2.0","id":4,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
		wantError(t, w.recv(), 4.0, -32600)
		if err, rest := w.close(); err != nil || len(rest) != 0 {
			t.Errorf("close: %v, unread answers %v", err, rest)
		}
	}
}

// TestMalformedLinesAreAnswered: a line that is no JSON is a parse error,
// one that is no JSON-RPC request an invalid request, an unknown method
// "method not found" (server/discover included, so a 2026-07-28 client
// falls back to initialize), bad params "invalid params"; each is
// answered, with the id when it could be read, and the session goes on.
// Notifications, known or not, and blank lines are never answered.
func TestMalformedLinesAreAnswered(t *testing.T) {
	f := newFixture(t)
	w := newWire(t, f.options())
	w.initialize()
	for _, tc := range []struct {
		line string
		id   any
		code float64
		want string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":`, nil, -32700, "parse error"},
		{`not json at all`, nil, -32700, "parse error"},
		{`[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, nil, -32600, "batches"},
		{`"ping"`, nil, -32600, "invalid request"},
		{`{"id":3,"method":"ping"}`, 3.0, -32600, `"2.0"`},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, nil, -32600, "id"},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, nil, -32600, "id"},
		{`{"jsonrpc":"2.0","id":4}`, 4.0, -32600, "no method"},
		{`{"jsonrpc":"2.0","id":5,"method":"resources/list"}`, 5.0, -32601, "resources/list"},
		{`{"jsonrpc":"2.0","id":"six","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, "six", -32601, "server/discover"},
		{`{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"abc"}}`, 7.0, -32602, "cursor"},
		{`{"jsonrpc":"2.0","id":8,"method":"tools/list","params":[1]}`, 8.0, -32602, "object"},
		{`{"jsonrpc":"2.0","id":9,"method":"tools/call"}`, 9.0, -32602, "object"},
		{`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{}}`, 10.0, -32602, "tool name"},
		{`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"nope"}}`, 11.0, -32602, `unknown tool "nope"`},
		{`{"jsonrpc":"2.0","id":12,"method":"initialize","params":"x"}`, 12.0, -32602, "object"},
	} {
		w.send("")
		w.send(`{"jsonrpc":"2.0","method":"notifications/unknown","params":{}}`)
		w.send(`{"jsonrpc":"2.0","id":99,"result":{}}`)
		w.send(tc.line)
		if msg := wantError(t, w.recv(), tc.id, tc.code); !strings.Contains(msg, tc.want) {
			t.Errorf("%s: message %q does not say %q", tc.line, msg, tc.want)
		}
	}
	w.send("{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"ping\"}\r")
	if m := w.recv(); m["id"] != 13.0 || m["result"] == nil {
		t.Errorf("ping after the malformed lines, CRLF ended: %v", m)
	}
	if err, rest := w.close(); err != nil || len(rest) != 0 {
		t.Errorf("close: %v, unanswered %v", err, rest)
	}
}

// TestOversizedLineEndsSession: a line over MaxFrameBytes cannot be
// answered (its id is beyond the bound), so the session ends with
// ErrFrameTooLarge; the calls before it were answered and the tool call
// it carried never ran.
func TestOversizedLineEndsSession(t *testing.T) {
	f := newFixture(t)
	before := f.snapshot(t)
	w := newWire(t, f.options())
	w.initialize()
	w.send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	w.recv()
	big := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"record_event","arguments":{"ref":"experiments/big","event":"{\"kind\":\"note\",\"text\":\"` +
		strings.Repeat("x", agents.MaxFrameBytes) + `\"}"}}}`
	// The server stops reading within the line; the write ends when the
	// server closes its input.
	go w.in.Write([]byte(big + "\n"))
	err, rest := w.wait()
	if !errors.Is(err, agents.ErrFrameTooLarge) || len(rest) != 0 {
		t.Errorf("Serve: %v, answers %v; want ErrFrameTooLarge and none", err, rest)
	}
	before.same(t, f.snapshot(t), "oversized line")
}

// TestSDKClientOfEachVersion: the SDK's client asking for each protocol
// version the server speaks (and for 2026-07-28, which it does not, so the
// client falls back) gets a session, the tools and a call's structured
// result.
func TestSDKClientOfEachVersion(t *testing.T) {
	f := newFixture(t)
	for _, v := range append([]string{"2026-07-28"}, agents.ProtocolVersions...) {
		cs := connectWith(t, f.options(), &mcp.ClientSessionOptions{ProtocolVersion: v})
		want := v
		if v == "2026-07-28" {
			want = agents.ProtocolVersions[0]
		}
		if got := cs.InitializeResult().ProtocolVersion; got != want {
			t.Errorf("asked for %s: negotiated %s, want %s", v, got, want)
		}
		if tools := toolNames(t, cs); len(tools) != len(agents.ReadToolNames)+len(agents.WriteToolNames) {
			t.Errorf("%s: %d tools", v, len(tools))
		}
		if refs := call(t, cs, "list_refs", map[string]any{"prefix": "heads/"}); len(refs["refs"].([]any)) != 1 {
			t.Errorf("%s: list_refs heads/: %v", v, refs)
		}
		cs.Close()
	}
}
