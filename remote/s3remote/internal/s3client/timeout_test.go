package s3client

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// TestSilentServerTimesOut: a server that accepts the connection, reads
// the request and never answers does not hold the client: each try ends
// at the response-header timeout (shortened here from a minute), is
// retried as a try without an answer, and the request fails after its 3
// tries naming the timeout.
func TestSilentServerTimesOut(t *testing.T) {
	defer func(d time.Duration) { responseHeaderTimeout = d }(responseHeaderTimeout)
	responseHeaderTimeout = 100 * time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	defer func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	}()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() { // read what comes, answer nothing
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
				}
			}()
		}
	}()
	c := New(Options{Endpoint: "http://" + ln.Addr().String(), Region: "us-east-1",
		Credentials: aws.Credentials{AccessKeyID: "k", SecretAccessKey: "s"}, Backoff: waitFor(time.Millisecond)})
	done := make(chan error, 1)
	go func() {
		_, _, err := c.Head(context.Background(), "b", "k")
		done <- err
	}()
	// Generous for a loaded machine: the client gives up after 3 tries
	// of 100 ms; without a timeout it would never.
	const bound = 2 * time.Minute
	select {
	case err = <-done:
	case <-time.After(bound):
		t.Fatalf("no result within %s from a server that never answers", bound)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("error %v, want a timeout", err)
	}
	mu.Lock()
	n := len(conns)
	mu.Unlock()
	if n != 3 {
		t.Fatalf("%d connections, want 3 (one per try): %v", n, err)
	}
	t.Log(err)
}
