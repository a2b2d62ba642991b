package agents_test

import (
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/agents"
)

// gatedOpen makes the first tool call's repository open wait: entered is
// closed when that call reaches it, and it goes on once release is
// closed. Every later call opens at once.
func gatedOpen(f *fixture, entered, release chan struct{}) agents.Options {
	opt := f.options()
	var n atomic.Int32
	opt.Open = func() (*plumbing.Repo, error) {
		if n.Add(1) == 1 {
			close(entered)
			select {
			case <-release:
			case <-time.After(wireTimeout):
			}
		}
		return plumbing.Open(f.root)
	}
	return opt
}

// waitClosed waits for ch, failing the test after wireTimeout.
func waitClosed(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(wireTimeout):
		t.Fatalf("%s did not happen", what)
	}
}

// TestCallsRunConcurrently: a tool call still running does not hold up a
// later one: the later call is answered first, and each answer carries
// its own id.
func TestCallsRunConcurrently(t *testing.T) {
	f := newFixture(t)
	entered, release := make(chan struct{}), make(chan struct{})
	w := newWire(t, gatedOpen(f, entered, release))
	w.initialize()
	w.send(`{"jsonrpc":"2.0","id":"slow","method":"tools/call","params":{"name":"log","arguments":{"limit":1}}}`)
	waitClosed(t, entered, "the first call")
	w.send(`{"jsonrpc":"2.0","id":"fast","method":"tools/call","params":{"name":"list_refs","arguments":{"prefix":"heads/"}}}`)
	if m := w.recv(); m["id"] != "fast" || m["result"].(map[string]any)["isError"] != nil {
		t.Fatalf("first answer %v, want the second call's", m)
	}
	close(release)
	m := w.recv()
	res, _ := m["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	if m["id"] != "slow" || len(sc["entries"].([]any)) != 1 {
		t.Errorf("second answer %v, want the first call's log", m)
	}
	if err, rest := w.close(); err != nil || len(rest) != 0 {
		t.Errorf("close: %v, %v", err, rest)
	}
}

// TestCancelledCallStopsUnanswered: notifications/cancelled cancels the
// call's context; a write tool cancelled before it starts writes nothing,
// and no answer is sent for it, as MCP asks. Input ending waits for the
// calls in flight.
func TestCancelledCallStopsUnanswered(t *testing.T) {
	f := newFixture(t)
	before := f.snapshot(t)
	entered, release := make(chan struct{}), make(chan struct{})
	w := newWire(t, gatedOpen(f, entered, release))
	w.initialize()
	w.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"record_event","arguments":{"ref":"experiments/cancelled","event":"{\"kind\":\"note\"}"}}}`)
	waitClosed(t, entered, "the call")
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"user"}}`)
	// Lines are handled in order: once the ping is answered, so is the
	// cancellation.
	w.send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	if m := w.recv(); m["id"] != 8.0 {
		t.Fatalf("answer %v, want the ping's", m)
	}
	close(release)
	err, rest := w.close()
	if err != nil || len(rest) != 0 {
		t.Errorf("close: %v, answers %v; want none for the cancelled call", err, rest)
	}
	before.same(t, f.snapshot(t), "cancelled record_event")
}

// TestArgumentsCheckedAgainstSchema: tools/call checks arguments against
// the published schema, as the SDK did, and refuses with a tool error
// naming the location and keyword; integral numbers such as 2.0 and 1e2
// are integers, null is accepted where the schema allows it.
func TestArgumentsCheckedAgainstSchema(t *testing.T) {
	f := newFixture(t)
	w := newWire(t, f.options())
	w.initialize()
	for i, tc := range []struct{ tool, args, want string }{
		{"log", `{"limit":"x"}`, `/properties/limit: type: got "string", want "integer"`},
		{"log", `{"limit":1.5}`, `/properties/limit: type`},
		{"log", `{"limit":-1}`, `/properties/limit: minimum`},
		{"log", `{"limit":10001}`, `/properties/limit: maximum: 10001 is more than 10000`},
		{"log", `{"limit":1e400}`, `/properties/limit: maximum: 1e400 is more than 10000`},
		// Integers are read exactly, never through a float64: each of
		// these would pass as a float64 (5, 10000, 9007199254740992).
		{"log", `{"limit":5.0000000000000001}`, `/properties/limit: type: 5.0000000000000001 has type "number", want "integer"`},
		{"log", `{"limit":10000.000000000001}`, `/properties/limit: type`},
		{"log", `{"limit":1.00000000000000000001e4}`, `/properties/limit: type`},
		{"log", `{"limit":10000.0000000000000000000000000001e0}`, `/properties/limit: type`},
		{"log", `{"limit":-0.0000000000000000001}`, `/properties/limit: type`},
		{"log", `{"limit":9007199254740993}`, `/properties/limit: maximum: 9007199254740993 is more than 10000`},
		{"log", `{"limit":18446744073709551617}`, `/properties/limit: maximum`},
		{"log", `{"limit":123456789012345678901234567890}`, `/properties/limit: maximum`},
		{"log", `{"limit":1e99999999999999999999}`, `/properties/limit: maximum`},
		{"log", `{"limit":1e-99999999999999999999}`, `/properties/limit: type`},
		{"log", `{"limit":-9223372036854775809}`, `/properties/limit: minimum`},
		{"log", `{"all":"yes"}`, `/properties/all: type`},
		{"log", `{"rev":null}`, `/properties/rev: type: got "null"`},
		{"log", `[1]`, `want a JSON object, got "array"`},
		{"log", `{"rev":"heads/main","Rev":"x"}`, `additionalProperties: unexpected properties ["Rev"]`},
		{"fork", `{"source":"heads/main"}`, `required: missing properties ["from"]`},
		{"gate_status", `{"phase":"x"}`, `/properties/phase: enum`},
		{"fork", `{"source":"a","from":"b","reason":"` + strings.Repeat("r", 1030) + `"}`, `/properties/reason: maxLength`},
		{"evaluate", `{"target":"a","scores":[{"name":"q","value":1,"x":2}]}`, `/properties/scores/items: additionalProperties`},
		{"evaluate", `{"target":"a","scores":[{"name":"q"}]}`, `/properties/scores/items: required: missing properties ["value"]`},
		{"evaluate", `{"target":"a","scores":[{"name":"q","value":"1"}]}`, `/properties/scores/items/properties/value: type`},
		{"attest", `{"target":"a","claim":"{}","evidence":[1]}`, `/properties/evidence/items: type`},
		{"attest", `{"target":"a","claim":"{}","evidence":["` + strings.Repeat("e", 300) + `"]}`, `/properties/evidence/items: maxLength`},
		// Valid by the schema: the tool itself answers.
		{"log", `{"limit":2.0,"rev":"nope"}`, `tine log: `},
		{"log", `{"limit":1e2,"rev":"nope"}`, `tine log: `},
		{"log", `{"limit":10000.000e0,"rev":"nope"}`, `tine log: `},
		{"log", `{"limit":100000e-1,"rev":"nope"}`, `tine log: `},
		{"log", `{"limit":-0,"rev":"nope"}`, `tine log: `},
		{"context", `{"event":"nope","depth":null}`, `tine context: `},
		{"evaluate", `{"target":"nope","scores":null}`, `tine evaluate: `},
	} {
		w.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"` + tc.tool + `","arguments":` + tc.args + `}}`)
		m := w.recv()
		res, _ := m["result"].(map[string]any)
		text := ""
		if c, ok := res["content"].([]any); ok && len(c) == 1 {
			text, _ = c[0].(map[string]any)["text"].(string)
		}
		if m["id"] != float64(i) || res["isError"] != true || !strings.Contains(text, tc.want) || len(text) > agents.MaxErrorText {
			t.Errorf("%s %.80s: %.300v, want a tool error saying %q", tc.tool, tc.args, m, tc.want)
		}
	}
}

// capacity is maxInFlight: how many calls run at once.
const capacity = 16

// callsAtCapacity starts a server whose every call blocks opening the
// repository until release is closed (or wireTimeout passes), and sends
// capacity list_refs calls (ids 1 to capacity), returning once all of them
// run. entered counts the calls that opened the repository.
func callsAtCapacity(t *testing.T) (w *wire, entered *atomic.Int32, release chan struct{}) {
	t.Helper()
	f := newFixture(t)
	opt := f.options()
	entered = new(atomic.Int32)
	full, release := make(chan struct{}), make(chan struct{})
	opt.Open = func() (*plumbing.Repo, error) {
		if entered.Add(1) == capacity {
			close(full)
		}
		select {
		case <-release:
		case <-time.After(wireTimeout):
		}
		return plumbing.Open(f.root)
	}
	w = newWire(t, opt)
	w.initialize()
	for i := 1; i <= capacity; i++ {
		w.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"tools/call","params":{"name":"list_refs","arguments":{}}}`)
	}
	waitClosed(t, full, "16 calls running")
	return w, entered, release
}

// TestCancelWhileCallsAtCapacity: with maxInFlight (16) calls running, a
// further call waits for a free one, but the client can still cancel it:
// the cancellation is read, the waiting call is dropped unanswered, and
// the next request is served while the 16 still run. Then the 16 finish
// and are answered.
func TestCancelWhileCallsAtCapacity(t *testing.T) {
	w, entered, release := callsAtCapacity(t)
	w.send(`{"jsonrpc":"2.0","id":"waiting","method":"tools/call","params":{"name":"list_refs","arguments":{}}}`)
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"waiting"}}`)
	if m := w.ask(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`); m["id"] != "ping" || m["result"] == nil {
		t.Fatalf("answer %v, want the ping's while the 16 calls run", m)
	}
	close(release)
	seen := map[any]bool{}
	for range capacity {
		m := w.recv()
		if res, _ := m["result"].(map[string]any); res == nil || res["isError"] != nil {
			t.Errorf("answer %.200v, want a list_refs result", m)
		}
		seen[m["id"]] = true
	}
	err, rest := w.close()
	if err != nil || len(rest) != 0 || len(seen) != capacity || entered.Load() != capacity {
		t.Errorf("close: %v, extra answers %v, %d ids answered, %d calls opened the repository; want 16 and 16, none for the cancelled call", err, rest, len(seen), entered.Load())
	}
}

// TestPingWhileCallsAtCapacity: with maxInFlight (16) calls running and
// a 17th waiting for one of them to end, a ping and tools/list sent after
// them are answered at once; then every call is answered, the 17th
// once a slot is free.
func TestPingWhileCallsAtCapacity(t *testing.T) {
	w, entered, release := callsAtCapacity(t)
	w.send(`{"jsonrpc":"2.0","id":"waiting","method":"tools/call","params":{"name":"list_refs","arguments":{}}}`)
	if m := w.ask(`{"jsonrpc":"2.0","id":"ping","method":"ping"}`); m["id"] != "ping" || m["result"] == nil {
		t.Fatalf("answer %v, want the ping's while 16 calls run and one waits", m)
	}
	if m := w.ask(`{"jsonrpc":"2.0","id":"list","method":"tools/list"}`); m["id"] != "list" || m["result"] == nil {
		t.Fatalf("answer %.200v, want tools/list's while 16 calls run and one waits", m)
	}
	if n := entered.Load(); n != capacity {
		t.Fatalf("%d calls opened the repository, want %d: the 17th must wait", n, capacity)
	}
	close(release)
	seen := map[any]bool{}
	for range capacity + 1 {
		m := w.recv()
		if res, _ := m["result"].(map[string]any); res == nil || res["isError"] != nil {
			t.Errorf("answer %.200v, want a list_refs result", m)
		}
		seen[m["id"]] = true
	}
	err, rest := w.close()
	if err != nil || len(rest) != 0 || len(seen) != capacity+1 || !seen["waiting"] {
		t.Errorf("close: %v, extra answers %v, ids answered %v; want the 17 calls'", err, rest, seen)
	}
}
