package agents_test

import (
	"strings"
	"testing"
)

// TestMalformedMembersKeepTheirID: a request whose jsonrpc or method has
// the wrong JSON type is answered -32600 with its id, which could be read
// (a client waits on it), and says what is wrong; an id that is neither a
// string nor an integer is never echoed, even when something else is
// wrong too.
func TestMalformedMembersKeepTheirID(t *testing.T) {
	f := newFixture(t)
	w := newWire(t, f.options())
	w.initialize()
	for _, tc := range []struct {
		line string
		id   any
		want string
	}{
		{`{"jsonrpc":2,"id":7,"method":"ping"}`, 7.0, `"jsonrpc"`},
		{`{"jsonrpc":"2.0","id":"eight","method":5}`, "eight", `"method"`},
		{`{"jsonrpc":"2.0","id":9,"method":{"a":1},"params":{}}`, 9.0, `"method"`},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":5}`, nil, "id"},
		{`{"jsonrpc":"1.0","id":{"a":1},"method":"ping"}`, nil, "id"},
		{`{"jsonrpc":"1.0","id":1.5,"method":"ping"}`, nil, "id"},
		{`{"id":[1],"method":"ping"}`, nil, "id"},
		{`5`, nil, "one JSON-RPC object per line"},
	} {
		msg := wantError(t, w.ask(tc.line), tc.id, -32600)
		if !strings.Contains(msg, tc.want) || strings.Contains(msg, "Go ") || strings.Contains(msg, "batch") {
			t.Errorf("%s: message %q, want one saying %q", tc.line, msg, tc.want)
		}
	}
	if err, rest := w.close(); err != nil || len(rest) != 0 {
		t.Errorf("close: %v, unanswered %v", err, rest)
	}
}

// ask sends line and returns the next answer.
func (w *wire) ask(line string) map[string]any {
	w.t.Helper()
	w.send(line)
	return w.recv()
}

// TestNonUTF8LineRefused: MCP messages are UTF-8; a line that is not is
// refused with -32700 (its id echoed), not decoded with U+FFFD in place
// of its bad bytes: the event an agent sent is never recorded altered.
func TestNonUTF8LineRefused(t *testing.T) {
	f := newFixture(t)
	before := f.snapshot(t)
	w := newWire(t, f.options())
	w.initialize()
	line := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"record_event","arguments":{"ref":"experiments/utf8","event":"{\"kind\":\"note\",\"text\":\"a` + "\xff\xfe" + `b\"}"}}}`
	if msg := wantError(t, w.ask(line), 3.0, -32700); !strings.Contains(msg, "UTF-8") {
		t.Errorf("message %q does not say UTF-8", msg)
	}
	if err, rest := w.close(); err != nil || len(rest) != 0 {
		t.Errorf("close: %v, unanswered %v", err, rest)
	}
	before.same(t, f.snapshot(t), "record_event of a line that is not UTF-8")
}

// TestNonUTF8IDNotEchoed: an id holding bytes that are not UTF-8 is not
// echoed (the answer would not be UTF-8 either); the answer's id is null.
func TestNonUTF8IDNotEchoed(t *testing.T) {
	f := newFixture(t)
	w := newWire(t, f.options())
	w.initialize()
	wantError(t, w.ask(`{"jsonrpc":"2.0","id":"a`+"\xff"+`","method":"ping"}`), nil, -32700)
	wantError(t, w.ask(`{"jsonrpc":2,"id":"a`+"\xff"+`","method":"ping"}`), nil, -32600)
	if err, rest := w.close(); err != nil || len(rest) != 0 {
		t.Errorf("close: %v, unanswered %v", err, rest)
	}
}

// TestDuplicateKeysRefused: a message with a key twice in one object is
// refused with -32600 before anything runs: parsers disagree on which one
// counts (a proxy allowing list_refs must not let record_event through),
// so neither is chosen. A duplicated top-level id is not echoed.
func TestDuplicateKeysRefused(t *testing.T) {
	f := newFixture(t)
	before := f.snapshot(t)
	w := newWire(t, f.options())
	w.initialize()
	for _, tc := range []struct {
		line string
		id   any
	}{
		{`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list_refs","name":"record_event","arguments":{"ref":"experiments/dup","event":"{\"kind\":\"note\"}"}}}`, 4.0},
		{`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"record_event","arguments":{"ref":"experiments/dup","event":"{}","event":"{\"kind\":\"note\"}"}}}`, 5.0},
		{`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"evaluate","arguments":{"target":"experiments/explore","scores":[{"name":"q","value":1,"value":2}]}}}`, 6.0},
		{`{"jsonrpc":"2.0","id":7,"id":8,"method":"ping"}`, nil},
		{`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"x":1e400,"name":"list_refs","name":"record_event","arguments":{"ref":"experiments/dup","event":"{\"kind\":\"note\"}"}}}`, 10.0},
	} {
		if msg := wantError(t, w.ask(tc.line), tc.id, -32600); !strings.Contains(msg, "twice") {
			t.Errorf("%s: message %q does not say a key is there twice", tc.line, msg)
		}
	}
	// The same key in two objects is no duplicate.
	if m := w.ask(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"log","arguments":{"rev":"heads/main","limit":1}},"x":{"name":1,"arguments":[{"limit":1},{"limit":2}]}}`); m["result"] == nil {
		t.Errorf("answer %.300v, want log's result", m)
	}
	if err, rest := w.close(); err != nil || len(rest) != 0 {
		t.Errorf("close: %v, unanswered %v", err, rest)
	}
	before.same(t, f.snapshot(t), "messages with duplicate keys")
}
