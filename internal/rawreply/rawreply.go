// Package rawreply is a test helper: a loopback TCP server that answers
// every HTTP request with bytes given as they are, which net/http's own
// server cannot send (a malformed status line or header, a header block
// over a client's bound, a broken chunked body). Tests of tine's HTTP
// clients use it to play a hostile server.
package rawreply

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
)

// Serve listens on a loopback port until the test ends and answers every
// request with reply, after reading the request's header and its
// Content-Length body. It returns the port's address ("127.0.0.1:PORT").
func Serve(t testing.TB, reply string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go answer(c, reply)
		}
	}()
	return ln.Addr().String()
}

// answer reads one request from c and writes reply.
func answer(c net.Conn, reply string) {
	defer c.Close()
	br := bufio.NewReader(c)
	length := 0
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return
		}
		if line == "\r\n" {
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "Content-Length") {
			length, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	if _, err := io.CopyN(io.Discard, br, int64(length)); err != nil {
		return
	}
	_, _ = c.Write([]byte(reply))
}
