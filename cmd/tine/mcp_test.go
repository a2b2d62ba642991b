package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/agents"
)

// mcpTimeout bounds every call of the stdio tests: generous for a loaded
// two-core CI machine.
const mcpTimeout = 2 * time.Minute

// mcpRepo builds a repository for the stdio tests with the CLI: heads/main
// with two events, a numeric loop t1 and a gate contract in the project
// directory. It returns the project directory.
func mcpRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	must := func(args ...string) string {
		t.Helper()
		code, out, errs := tineRun(t, "", append([]string{"--repo", dir}, args...)...)
		if code != 0 {
			t.Fatalf("tine %v: %d %s", args, code, errs)
		}
		return out
	}
	if code, _, errs := tineRun(t, "", "init", dir); code != 0 {
		t.Fatalf("init: %s", errs)
	}
	for i, ev := range []string{`{"kind":"model","model":"m1","output":"plan"}`, `{"kind":"tool","tool":"sh","output":"ok\n"}`} {
		path := filepath.Join(dir, "ev"+string(rune('0'+i))+".json")
		if err := os.WriteFile(path, []byte(ev), 0o644); err != nil {
			t.Fatal(err)
		}
		must("record", "--event", path)
	}
	must("loop", "run", "--name", "t1", "--strategy", "numeric", "--max-steps", "4")
	if err := os.WriteFile(filepath.Join(dir, "tine-gate.yml"), []byte("version: 1\nconstraints:\n  tests: {kind: command, command: [\"true\"], phases: [stop]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// mcpSession starts `tine mcp ARGS...` as a real process (the test binary
// TestMain installs as tine) and connects a client over its stdio.
func mcpSession(t *testing.T, ctx context.Context, dir string, args ...string) (*mcp.ClientSession, *exec.Cmd) {
	t.Helper()
	bin, err := exec.LookPath("tine")
	if err != nil {
		t.Fatalf("tine is not on PATH (TestMain installs it): %v", err)
	}
	cmd := exec.Command(bin, append([]string{"--repo", dir, "mcp", "--project", dir}, args...)...)
	cmd.Env = append(os.Environ(), "TINE_DIR=")
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-test", Version: "test"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to tine mcp: %v", err)
	}
	return cs, cmd
}

// mcpCall calls a tool; ok says whether it must succeed. It returns the
// structured result, or the error text.
func mcpCall(t *testing.T, ctx context.Context, cs *mcp.ClientSession, ok bool, name string, args map[string]any) (map[string]any, string) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		if ok {
			t.Fatalf("%s: %v", name, err)
		}
		return nil, err.Error()
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, isText := c.(*mcp.TextContent); isText {
			text.WriteString(tc.Text)
		}
	}
	if res.IsError == ok {
		t.Fatalf("%s %v: error %v, want %v: %.300s", name, args, res.IsError, !ok, text.String())
	}
	if !ok {
		return nil, text.String()
	}
	b, _ := json.Marshal(res.StructuredContent)
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %s: %v", name, b, err)
	}
	return out, ""
}

// repoState is every ref's value and the object count.
func repoState(t *testing.T, dir string) (map[string]string, int) {
	t.Helper()
	r, err := plumbing.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	lr, err := plumbing.ListRefs(context.Background(), r, plumbing.ListRefsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	refs := map[string]string{}
	for _, ref := range lr.Refs {
		refs[ref.Name] = ref.OID
	}
	co, err := plumbing.CountObjects(context.Background(), r, plumbing.CountObjectsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return refs, co.Count
}

// TestMCPOverStdio runs tine mcp as a subprocess and calls every tool over
// its stdin/stdout, then the refusals, which must change no ref and write
// no object; closing stdin ends the server with status 0.
func TestMCPOverStdio(t *testing.T) {
	dir := mcpRepo(t)
	ctx, cancel := context.WithTimeout(context.Background(), mcpTimeout)
	defer cancel()
	cs, cmd := mcpSession(t, ctx, dir)

	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
	}
	want := append(append([]string{}, agents.ReadToolNames...), agents.WriteToolNames...)
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}

	refs, _ := mcpCall(t, ctx, cs, true, "list_refs", map[string]any{})
	if len(refs["refs"].([]any)) < 3 {
		t.Errorf("list_refs: %v", refs)
	}
	log, _ := mcpCall(t, ctx, cs, true, "log", map[string]any{"rev": "heads/main"})
	entries := log["entries"].([]any)
	if len(entries) != 2 {
		t.Fatalf("log: %v", log)
	}
	tip, first := entries[0].(map[string]any)["event"].(string), entries[1].(map[string]any)["event"].(string)
	if ev, _ := mcpCall(t, ctx, cs, true, "show", map[string]any{"rev": tip}); ev["type"] != "event" {
		t.Errorf("show: %v", ev)
	}
	if c, _ := mcpCall(t, ctx, cs, true, "context", map[string]any{"event": tip, "depth": 1}); len(c["events"].([]any)) != 2 {
		t.Errorf("context: %v", c)
	}
	if l, _ := mcpCall(t, ctx, cs, true, "loop_show", map[string]any{"loop": "t1"}); l["total_steps"].(float64) != 4 {
		t.Errorf("loop_show: %v", l)
	}
	if g, _ := mcpCall(t, ctx, cs, true, "gate_status", map[string]any{"phase": "stop"}); len(g["constraints"].([]any)) != 1 {
		t.Errorf("gate_status: %v", g)
	}
	if r, _ := mcpCall(t, ctx, cs, true, "runs", map[string]any{"filters": []string{"ref=heads/main"}}); len(r["rows"].([]any)) != 1 {
		t.Errorf("runs: %v", r)
	}
	if s, _ := mcpCall(t, ctx, cs, true, "search", map[string]any{"query": "plan"}); len(s["hits"].([]any)) != 1 {
		t.Errorf("search: %v", s)
	}

	if f, _ := mcpCall(t, ctx, cs, true, "fork", map[string]any{"source": "heads/main", "from": first, "ref": "experiments/agent"}); f["ref"] != "experiments/agent" {
		t.Errorf("fork: %v", f)
	}
	mcpCall(t, ctx, cs, true, "record_event", map[string]any{"ref": "experiments/agent", "event": `{"kind":"note","output":"retry"}`, "status": "completed"})
	if r, _ := mcpCall(t, ctx, cs, true, "resume", map[string]any{"ref": "experiments/agent"}); r["previous_status"] != "completed" {
		t.Errorf("resume: %v", r)
	}
	if d, _ := mcpCall(t, ctx, cs, true, "diff", map[string]any{"a": "heads/main", "b": "experiments/agent"}); d["common_ancestor"] != first {
		t.Errorf("diff: %v", d)
	}
	mcpCall(t, ctx, cs, true, "evaluate", map[string]any{"target": "experiments/agent", "scores": []map[string]any{{"name": "quality", "value": 0.5}}})
	mcpCall(t, ctx, cs, true, "attest", map[string]any{"target": "experiments/agent", "claim": `{"kind":"review"}`})

	refsBefore, objsBefore := repoState(t, dir)
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"fork", map[string]any{"source": "heads/main", "from": first, "ref": "heads/main"}, "experiments/"},
		{"fork", map[string]any{"source": "-h", "from": first, "ref": "experiments/b"}, "begins with '-'"},
		{"record_event", map[string]any{"ref": "experiments/agent", "event": strings.Repeat(" ", agents.MaxEventBytes+1)}, "maxLength"},
		{"promote", map[string]any{"target": "experiments/agent", "name": "production"}, "unknown tool"},
	} {
		_, msg := mcpCall(t, ctx, cs, false, c.tool, c.args)
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s %v: %.200q does not say %q", c.tool, c.args, msg, c.want)
		}
	}
	refsAfter, objsAfter := repoState(t, dir)
	if objsAfter != objsBefore || !mapsEqual(refsBefore, refsAfter) {
		t.Errorf("refusals wrote: %d -> %d objects, refs %v -> %v", objsBefore, objsAfter, refsBefore, refsAfter)
	}

	if err := cs.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
		t.Errorf("tine mcp ended with %v, want status 0 once stdin closed", cmd.ProcessState)
	}
	fsckClean(t, dir)
}

// mapsEqual compares two string maps.
func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestMCPModesOverStdio: --read-only serves only the read tools and
// --allow-promotion adds promote, each in its own process.
func TestMCPModesOverStdio(t *testing.T) {
	dir := mcpRepo(t)
	ctx, cancel := context.WithTimeout(context.Background(), mcpTimeout)
	defer cancel()
	for _, tc := range []struct {
		flag string
		want int
		has  string
	}{{"--read-only", len(agents.ReadToolNames), "log"}, {"--allow-promotion", len(agents.ReadToolNames) + len(agents.WriteToolNames) + 1, "promote"}} {
		cs, _ := mcpSession(t, ctx, dir, tc.flag)
		lt, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, tl := range lt.Tools {
			found = found || tl.Name == tc.has
			if tc.flag == "--read-only" && !tl.Annotations.ReadOnlyHint {
				t.Errorf("%s serves %s, which is not read-only", tc.flag, tl.Name)
			}
		}
		if len(lt.Tools) != tc.want || !found {
			t.Errorf("%s: %d tools, want %d with %s", tc.flag, len(lt.Tools), tc.want, tc.has)
		}
		cs.Close()
	}
}

// TestMCPUsageErrors: flags that contradict or would be ignored are usage
// errors (exit 2), and a missing repository fails before serving.
func TestMCPUsageErrors(t *testing.T) {
	dir := mcpRepo(t)
	for _, args := range [][]string{
		{"--repo", dir, "mcp", "--read-only", "--allow-promotion"},
		{"--repo", dir, "mcp", "--policy", "p.json"},
		{"--repo", dir, "mcp", "--key-file", "k"},
	} {
		code, out, errs := tineRun(t, "", args...)
		if code != exitUsage || out != "" {
			t.Errorf("%v: exit %d, stdout %q, want 2 and nothing", args, code, out)
		}
		assertOneErrorLine(t, errs, "tine mcp: ")
	}
	code, _, errs := tineRun(t, "", "--repo", t.TempDir(), "mcp")
	if code != exitFailure {
		t.Errorf("mcp without a repository: exit %d, want 1", code)
	}
	assertOneErrorLine(t, errs, "tine mcp: ")
}

// TestMCPOversizedMessage: a message longer than agents.MaxFrameBytes
// cannot be answered (its id is never read), so tine mcp ends the session
// with one line on stderr and exit 1, and the record_event it carried
// wrote nothing.
func TestMCPOversizedMessage(t *testing.T) {
	dir := mcpRepo(t)
	refs, objects := repoState(t, dir)
	event, err := json.Marshal(map[string]any{"kind": "note", "text": strings.Repeat("x", 2*agents.MaxFrameBytes)})
	if err != nil {
		t.Fatal(err)
	}
	msg, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "record_event", "arguments": map[string]any{"ref": "experiments/big", "event": string(event)}}})
	if err != nil {
		t.Fatal(err)
	}
	initialize := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	code, out, errs := tineRun(t, initialize+string(msg)+"\n", "--repo", dir, "mcp", "--project", dir)
	if code != exitFailure || strings.Count(out, "\n") > 1 {
		t.Errorf("exit %d, stdout %.300q: want 1 and at most the initialize answer", code, out)
	}
	assertOneErrorLine(t, errs, "tine mcp: ")
	if !strings.Contains(errs, "frame exceeded") {
		t.Errorf("stderr %q does not say the message was too long", errs)
	}
	after, n := repoState(t, dir)
	if n != objects || len(after) != len(refs) {
		t.Errorf("%d objects and %d refs before, %d and %d after", objects, len(refs), n, len(after))
	}
}

// TestMCPMalformedLineAnswered: a line that is not JSON is answered with
// a JSON-RPC parse error (id null) on stdout and the session goes on;
// stdout carries protocol messages only, and closing stdin exits 0.
func TestMCPMalformedLineAnswered(t *testing.T) {
	dir := mcpRepo(t)
	in := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		"this is not json\n" +
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	code, out, errs := tineRun(t, in, "--repo", dir, "mcp", "--project", dir)
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q: want 0 and nothing", code, errs)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("stdout %q: want three answers", out)
	}
	var answers []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stdout line %q is no JSON object", l)
		}
		answers = append(answers, m)
	}
	if res, _ := answers[0]["result"].(map[string]any); res["protocolVersion"] != "2025-06-18" {
		t.Errorf("initialize: %v", answers[0])
	}
	if e, _ := answers[1]["error"].(map[string]any); answers[1]["id"] != nil || e["code"] != -32700.0 {
		t.Errorf("malformed line: %v, want a parse error with id null", answers[1])
	}
	if answers[2]["id"] != 1.0 || answers[2]["result"] == nil {
		t.Errorf("ping after it: %v", answers[2])
	}
}
