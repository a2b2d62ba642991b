package main

import (
	"bufio"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// TestCloneHostileReplyHeader: a server whose reply header is malformed,
// with terminal escapes in a line of 40 KiB, cannot print them, nor the
// line, through tine's error: clone fails with one bounded line naming
// the remote and what was wrong.
func TestCloneHostileReplyHeader(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	reply := "HTTP/1.1 200 OK\r\nX-Evil\x1b]2;owned\x07\x1b[2J\u202e" + strings.Repeat("A", 40<<10) + "\r\nContent-Length: 0\r\n\r\n"
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for { // the request's header; clone's first requests have no body
					line, err := br.ReadString('\n')
					if err != nil {
						return
					}
					if line == "\r\n" {
						break
					}
				}
				_, _ = c.Write([]byte(reply))
			}()
		}
	}()
	t.Setenv("TINE_HOSTILE_TOKEN", "hostile-token-0123456789")
	url := "http://" + ln.Addr().String() + "/v1/tenants/acme"
	code, _, stderr := tineRun(t, "", "clone", url, filepath.Join(t.TempDir(), "work"), "--token-env", "TINE_HOSTILE_TOKEN")
	if code != exitFailure {
		t.Fatalf("exit %d, want %d: %.300q", code, exitFailure, stderr)
	}
	assertOneErrorLine(t, stderr, "tine clone: ")
	if len(stderr) > 1400 {
		t.Errorf("error line of %d bytes: %.300q", len(stderr), stderr)
	}
	for _, r := range strings.TrimSuffix(stderr, "\n") {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			t.Fatalf("error line holds %U: %.300q", r, stderr)
		}
	}
	for _, w := range []string{ln.Addr().String(), "malformed MIME header", "more bytes not shown"} {
		if !strings.Contains(stderr, w) {
			t.Errorf("error line %.400q does not say %q", stderr, w)
		}
	}
}
