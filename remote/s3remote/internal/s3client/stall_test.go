package s3client

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// stallServer serves every connection with serve on a real listener and
// returns a client of it.
func stallServer(t *testing.T, serve func(c net.Conn)) *Client {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
			go func() { <-done; c.Close() }()
		}
	}()
	return New(Options{Endpoint: "http://" + ln.Addr().String(), Region: "us-east-1",
		Credentials: aws.Credentials{AccessKeyID: "k", SecretAccessKey: "s"}, Backoff: waitFor(time.Millisecond)})
}

// shortStall sets stallTimeout to d for the test.
func shortStall(t *testing.T, d time.Duration) {
	old := stallTimeout
	stallTimeout = d
	t.Cleanup(func() { stallTimeout = old })
}

// within runs f and fails the test unless it ends within a bound
// generous for a loaded machine (the stalls tested end in well under a
// second; without the guard they would never).
func within(t *testing.T, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(2 * time.Minute):
		t.Fatal("no result within 2m from a stalled server")
		return nil
	}
}

// TestStalledDownloadEnds: a server that sends an answer's headers and
// part of its body, then nothing, ends the caller's read with a stall
// error instead of holding it forever (the response-header timeout does
// not cover a body).
func TestStalledDownloadEnds(t *testing.T) {
	shortStall(t, 200*time.Millisecond)
	c := stallServer(t, func(conn net.Conn) {
		http.ReadRequest(bufio.NewReader(conn))
		fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nETag: \"e\"\r\n\r\n0123456789")
		time.Sleep(time.Hour) // ended by the test's cleanup closing conn
	})
	err := within(t, func() error {
		obj, err := c.Get(context.Background(), "b", "k")
		if err != nil {
			return err
		}
		defer obj.Body.Close()
		_, err = io.ReadAll(obj.Body)
		return err
	})
	var se *stallError
	if !errors.As(err, &se) {
		t.Fatalf("read of a stalled body: %v, want a stall error", err)
	}
}

// TestStalledUploadEnds: a server that reads a PUT's headers and then
// stops reading its body (so the client's writes block once the socket
// buffers fill) ends each try with a stall error; the tries are retried
// as ones without an answer and the PUT fails naming the stall.
func TestStalledUploadEnds(t *testing.T) {
	shortStall(t, 200*time.Millisecond)
	tries := make(chan struct{}, 16)
	c := stallServer(t, func(conn net.Conn) {
		http.ReadRequest(bufio.NewReader(conn)) // headers only
		tries <- struct{}{}
		time.Sleep(time.Hour)
	})
	body := bytes.NewReader(make([]byte, 64<<20))
	err := within(t, func() error {
		_, err := c.Put(context.Background(), "b", "k", body, body.Size(), Condition{})
		return err
	})
	var se *stallError
	if !errors.As(err, &se) {
		t.Fatalf("PUT to a server that stopped reading: %v, want a stall error", err)
	}
	if n := len(tries); n != 3 {
		t.Fatalf("%d tries, want 3", n)
	}
}

// TestSlowDownloadNotCut: a body that keeps moving, more slowly than the
// stall bound per piece but longer than it in all, is read whole: the
// bound is on a body that moves nothing, not on a slow one.
func TestSlowDownloadNotCut(t *testing.T) {
	shortStall(t, time.Second)
	const pieces = 40
	c := stallServer(t, func(conn net.Conn) {
		http.ReadRequest(bufio.NewReader(conn))
		fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n", pieces)
		for range pieces {
			time.Sleep(50 * time.Millisecond)
			if _, err := conn.Write([]byte{'x'}); err != nil {
				return
			}
		}
	})
	var got []byte
	err := within(t, func() error {
		obj, err := c.Get(context.Background(), "b", "k")
		if err != nil {
			return err
		}
		defer obj.Body.Close()
		got, err = io.ReadAll(obj.Body)
		return err
	})
	if err != nil || len(got) != pieces {
		t.Fatalf("slow body: %d bytes, %v; want %d", len(got), err, pieces)
	}
}

// TestPausingReaderNotCut: a caller that pauses between reads for longer
// than the stall bound reads the whole body: only a read waiting on the
// server is timed. Here the server sends the body's last byte soon after
// its first two, well before the caller, paused for three times the
// bound, reads on; before, the bound ran from the headers on and the
// pause cut the body.
func TestPausingReaderNotCut(t *testing.T) {
	shortStall(t, time.Second)
	c := stallServer(t, func(conn net.Conn) {
		http.ReadRequest(bufio.NewReader(conn))
		fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nab")
		time.Sleep(200 * time.Millisecond)
		conn.Write([]byte("c"))
		time.Sleep(time.Hour)
	})
	var got []byte
	err := within(t, func() error {
		obj, err := c.Get(context.Background(), "b", "k")
		if err != nil {
			return err
		}
		defer obj.Body.Close()
		time.Sleep(3 * time.Second) // the caller is busy elsewhere
		got, err = io.ReadAll(obj.Body)
		return err
	})
	if err != nil || string(got) != "abc" {
		t.Fatalf("body after a pause: %q, %v; want \"abc\"", got, err)
	}
}
