package main

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAdapterBinary builds the adapter and talks to it through pipes, one
// request at a time: each answer must arrive before the next request is
// written, which only happens if the adapter flushes every line.
func TestAdapterBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := filepath.Join(t.TempDir(), "tine-conformance")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString
	exchanges := []struct{ request, response string }{
		{`{"id":"v3","op":"canon.v3","input":{"value":{"b":{"$i":"1"},"a":{"$f":"1.0"}}},"args":{}}`,
			`{"id":"v3","ok":true,"output":{"bytes_b64":"` + b64([]byte(`{"a":1,"b":1}`)) + `"}}`},
		{`{"id":"derive","op":"oid.derive","input":{"bytes_b64":"aGVsbG8K"},"args":{"header":{"schema":1,"type":"blob"}}}`,
			`{"id":"derive","ok":true,"output":{"oid":"blob:sha256:c5251cf4c201ede74c8e3564dc6d02e597cbc20fbd91a84704a91179757bd008"}}`},
		{`{"id":"bad-oid","op":"oid.parse","input":{"value":"blob:1111"},"args":{}}`,
			`{"id":"bad-oid","ok":false,"reason":"oid.malformed"}`},
		{`{"id":"later","op":"no.such-op","input":{"bytes_b64":""},"args":{}}`,
			`{"id":"later","ok":false,"unsupported":true}`},
		{`{"id":"text","op":"text.validate","input":{"bytes_b64":"` + b64([]byte(`{"k":"\ud800"}`)) + `"}}`,
			`{"id":"text","ok":false,"reason":"text.lone-surrogate"}`},
		{`this is not json`, `{"id":"","ok":false}`},
	}
	lines := bufio.NewReader(stdout)
	for _, ex := range exchanges {
		if _, err := io.WriteString(stdin, ex.request+"\n"); err != nil {
			t.Fatal(err)
		}
		got := readLine(t, lines)
		if !sameResponse(t, got, ex.response) {
			t.Errorf("request %s\n got %s\nwant %s", ex.request, got, ex.response)
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("adapter exit: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "malformed request") {
		t.Errorf("stderr lacks the diagnostic for the bad line: %q", stderr.String())
	}
}

func readLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	done := make(chan string, 1)
	go func() {
		line, _ := r.ReadString('\n')
		done <- line
	}()
	select {
	case line := <-done:
		if !strings.HasSuffix(line, "\n") {
			t.Fatalf("response %q is not a complete line", line)
		}
		return strings.TrimSuffix(line, "\n")
	case <-time.After(20 * time.Second):
		t.Fatal("no response line: the adapter did not answer or did not flush")
	}
	return ""
}

// sameResponse compares a response line with the expected one, ignoring
// the informative "message" field.
func sameResponse(t *testing.T, got, want string) bool {
	t.Helper()
	var g, w map[string]any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Errorf("response %q is not JSON: %v", got, err)
		return false
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	delete(g, "message")
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	return string(gb) == string(wb)
}
