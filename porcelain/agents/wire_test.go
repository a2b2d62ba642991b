package agents_test

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"io"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/tinehq/tine/porcelain/agents"
)

// wireTimeout bounds each wait for a line of the raw-protocol tests;
// generous for a loaded two-core CI machine, only a guard against a hang.
const wireTimeout = 2 * time.Minute

// wire is a server driven line by line, as a client speaks to tine mcp on
// stdio, for what the SDK's client never sends.
type wire struct {
	t    *testing.T
	in   *io.PipeWriter
	out  chan map[string]any
	done chan error
}

// newWire starts a server with opt over pipes.
func newWire(t *testing.T, opt agents.Options) *wire {
	t.Helper()
	srv, err := agents.NewServer(opt)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &wire{t: t, in: inW, out: make(chan map[string]any, 64), done: make(chan error, 1)}
	go func() {
		err := srv.Serve(context.Background(), inR, outW)
		outW.Close()
		inR.Close()
		w.done <- err
	}()
	go func() {
		defer close(w.out)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("server wrote a line that is no JSON object: %.200q", sc.Text())
				continue
			}
			w.out <- m
		}
	}()
	t.Cleanup(func() { inW.Close() })
	return w
}

// send writes one line.
func (w *wire) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatalf("sending %.100q: %v", line, err)
	}
}

// recv reads the next answer.
func (w *wire) recv() map[string]any {
	w.t.Helper()
	select {
	case m, ok := <-w.out:
		if !ok {
			w.t.Fatal("the server closed its output")
		}
		return m
	case <-time.After(wireTimeout):
		w.t.Fatal("no answer")
	}
	return nil
}

// close ends the client's stream and returns Serve's error and every
// answer not yet read.
func (w *wire) close() (error, []map[string]any) {
	w.t.Helper()
	w.in.Close()
	return w.wait()
}

// wait returns Serve's error and every answer not yet read, once Serve
// returns.
func (w *wire) wait() (error, []map[string]any) {
	w.t.Helper()
	var rest []map[string]any
	for m := range w.out {
		rest = append(rest, m)
	}
	select {
	case err := <-w.done:
		return err, rest
	case <-time.After(wireTimeout):
		w.t.Fatal("Serve did not return once its input ended")
	}
	return nil, nil
}

// initialize opens the session with protocol version 2025-11-25.
func (w *wire) initialize() map[string]any {
	w.t.Helper()
	w.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	res := w.recv()
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return res
}

// wantError checks that m answers id with a JSON-RPC error of code.
func wantError(t *testing.T, m map[string]any, id any, code float64) string {
	t.Helper()
	e, _ := m["error"].(map[string]any)
	if !reflect.DeepEqual(m["id"], id) || e == nil || e["code"] != code {
		t.Errorf("answer %v, want error %v for id %v", m, code, id)
		return ""
	}
	return e["message"].(string)
}

// update rewrites testdata/tools_list.golden.json from the server, for a
// deliberate change of a tool; review the diff.
var update = flag.Bool("update", false, "rewrite testdata/tools_list.golden.json")

// TestToolsListMatchesGolden: tools/list publishes the tools, schemas and
// annotations the MCP SDK with jsonschema-go published before tine served
// MCP itself (testdata/tools_list.golden.json, captured from SDK v1.8.0
// without its ttlMs and cacheScope cache hints), so clients see the same
// tools.
func TestToolsListMatchesGolden(t *testing.T) {
	f := newFixture(t)
	opt := f.options()
	opt.AllowPromotion = true
	w := newWire(t, opt)
	w.initialize()
	w.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	got := w.recv()["result"]
	const golden = "testdata/tools_list.golden.json"
	if *update {
		b, err := json.MarshalIndent(got, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var want any
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		gb, _ := json.MarshalIndent(got, "", "  ")
		t.Errorf("tools/list differs from the golden file:\n%s", gb)
	}
	// The same list with a params object and an empty cursor.
	w.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":""}}`)
	if again := w.recv()["result"]; !reflect.DeepEqual(again, want) {
		t.Errorf("tools/list with an empty cursor: %v", again)
	}
}
