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
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// cutServer answers GETs of one object of body under ETag "e1": answer
// decides, per request in arrival order (from 0), how: it returns the
// status line's code and reason, the headers besides Content-Length, the
// bytes to send and the Content-Length to announce (-1: the bytes' own,
// -2: none, the body ending when the connection closes).
// A connection is closed after each answer, cutting any body shorter
// than announced. Every request is recorded.
type cutServer struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (s *cutServer) start(t *testing.T, answer func(i int, r *http.Request) (status string, hdr map[string]string, send []byte, announce int)) *Client {
	return stallServer(t, func(conn net.Conn) {
		r, err := http.ReadRequest(bufio.NewReader(conn))
		if err != nil {
			return
		}
		s.mu.Lock()
		i := len(s.reqs)
		s.reqs = append(s.reqs, r)
		s.mu.Unlock()
		status, hdr, send, announce := answer(i, r)
		if announce < 0 {
			announce = len(send)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "HTTP/1.1 %s\r\nConnection: close\r\n", status)
		if announce >= 0 {
			fmt.Fprintf(&b, "Content-Length: %d\r\n", announce)
		}
		for k, v := range hdr {
			fmt.Fprintf(&b, "%s: %s\r\n", k, v)
		}
		b.WriteString("\r\n")
		conn.Write(append([]byte(b.String()), send...))
	})
}

func (s *cutServer) requests() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.reqs...)
}

var downloadBody = bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB

// TestDownloadResumesACutBody: a body cut part-way, twice, is resumed
// each time where it broke, by a ranged GET bound to the first answer's
// ETag, and the bytes written are the object's.
func TestDownloadResumesACutBody(t *testing.T) {
	cuts := []int{10000, 30000}
	var s cutServer
	c := s.start(t, func(i int, r *http.Request) (string, map[string]string, []byte, int) {
		from := 0
		if i > 0 {
			from = cuts[i-1]
		}
		to := len(downloadBody)
		if i < len(cuts) {
			to = cuts[i]
		}
		hdr := map[string]string{"ETag": `"e1"`}
		if i == 0 {
			return "200 OK", hdr, downloadBody[:to], len(downloadBody)
		}
		hdr["Content-Range"] = fmt.Sprintf("bytes %d-%d/%d", from, len(downloadBody)-1, len(downloadBody))
		return "206 Partial Content", hdr, downloadBody[from:to], len(downloadBody) - from
	})
	var got bytes.Buffer
	n, _, err := c.Download(context.Background(), "b", "packs/p.pack", &got, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(len(downloadBody)) || !bytes.Equal(got.Bytes(), downloadBody) {
		t.Fatalf("wrote %d bytes (%d buffered), want the object's %d", n, got.Len(), len(downloadBody))
	}
	reqs := s.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want the first and two resumptions", len(reqs))
	}
	if reqs[0].Header.Get("Range") != "" {
		t.Fatalf("first request asked for a range: %q", reqs[0].Header.Get("Range"))
	}
	for i, at := range cuts {
		r := reqs[i+1]
		if want := fmt.Sprintf("bytes=%d-", at); r.Header.Get("Range") != want || r.Header.Get("If-Match") != `"e1"` {
			t.Fatalf("resumption %d asked Range %q If-Match %q, want %q and the first ETag", i+1, r.Header.Get("Range"), r.Header.Get("If-Match"), want)
		}
	}
}

// TestDownloadResumeFromAServerIgnoringRanges: a server that answers a
// ranged GET with the whole object has the bytes already written
// skipped.
func TestDownloadResumeFromAServerIgnoringRanges(t *testing.T) {
	var s cutServer
	c := s.start(t, func(i int, r *http.Request) (string, map[string]string, []byte, int) {
		hdr := map[string]string{"ETag": `"e1"`}
		if i == 0 {
			return "200 OK", hdr, downloadBody[:5000], len(downloadBody)
		}
		return "200 OK", hdr, downloadBody, -1
	})
	var got bytes.Buffer
	if _, _, err := c.Download(context.Background(), "b", "k", &got, 1<<20); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), downloadBody) {
		t.Fatalf("wrote %d bytes that are not the object's %d", got.Len(), len(downloadBody))
	}
}

// TestDownloadResumeRefusals: a resumption is refused, and the download
// fails, when the key changed (412 to If-Match), when the answer is of
// another ETag or another range, and when it breaks MaxAttempts times in
// a row without a byte.
func TestDownloadResumeRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		resume func(r *http.Request) (string, map[string]string, []byte, int)
		want   string
		tries  int
	}{
		{"changed", func(*http.Request) (string, map[string]string, []byte, int) {
			return "412 Precondition Failed", map[string]string{"ETag": `"e2"`}, nil, 0
		}, "412", 2},
		{"other etag", func(*http.Request) (string, map[string]string, []byte, int) {
			return "206 Partial Content", map[string]string{"ETag": `"e2"`, "Content-Range": "bytes 100-65535/65536"}, downloadBody[100:], -1
		}, `answer of ETag "e2"`, 2},
		{"other range", func(*http.Request) (string, map[string]string, []byte, int) {
			return "206 Partial Content", map[string]string{"ETag": `"e1"`, "Content-Range": "bytes 0-65535/65536"}, downloadBody, -1
		}, "bytes 100 on were asked for", 2},
		{"no progress", func(*http.Request) (string, map[string]string, []byte, int) {
			return "206 Partial Content", map[string]string{"ETag": `"e1"`, "Content-Range": "bytes 100-65535/65536"}, nil, len(downloadBody) - 100
		}, "body broken after 100 bytes", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s cutServer
			c := s.start(t, func(i int, r *http.Request) (string, map[string]string, []byte, int) {
				if i == 0 {
					return "200 OK", map[string]string{"ETag": `"e1"`}, downloadBody[:100], len(downloadBody)
				}
				return tc.resume(r)
			})
			var got bytes.Buffer
			_, _, err := c.Download(context.Background(), "b", "k", &got, 1<<20)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("download: %v, want an error saying %q", err, tc.want)
			}
			if n := len(s.requests()); n != tc.tries {
				t.Fatalf("%d requests, want %d", n, tc.tries)
			}
		})
	}
}

// TestDownloadLimit: an answer announcing more than the limit is refused
// before its body is read, with a *SizeError.
func TestDownloadLimit(t *testing.T) {
	var s cutServer
	c := s.start(t, func(int, *http.Request) (string, map[string]string, []byte, int) {
		return "200 OK", map[string]string{"ETag": `"e1"`}, downloadBody, -1
	})
	var got bytes.Buffer
	_, _, err := c.Download(context.Background(), "b", "k", &got, 1000)
	var se *SizeError
	if !errors.As(err, &se) || se.Size != int64(len(downloadBody)) || got.Len() != 0 {
		t.Fatalf("download over the limit: %v, %d bytes written; want a SizeError and none", err, got.Len())
	}
}

// rangedServer serves body under ETag "e1": the first answer is a 200
// with the whole length announced, each later one a 206 from the byte its
// Range asks for; cut(i, from) says how many bytes answer i sends before
// its connection closes, and noLength(i) that answer i announces no
// length.
func rangedServer(t *testing.T, s *cutServer, body []byte, cut func(i, from int) int, noLength func(i int) bool) *Client {
	return s.start(t, func(i int, r *http.Request) (string, map[string]string, []byte, int) {
		hdr := map[string]string{"ETag": `"e1"`}
		from := 0
		if i > 0 {
			from, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(r.Header.Get("Range"), "bytes="), "-"))
			hdr["Content-Range"] = fmt.Sprintf("bytes %d-%d/%d", from, len(body)-1, len(body))
		}
		to := min(from+cut(i, from), len(body))
		announce := len(body) - from
		if noLength != nil && noLength(i) {
			announce = -2
		}
		if i == 0 {
			return "200 OK", hdr, body[:to], announce
		}
		return "206 Partial Content", hdr, body[from:to], announce
	})
}

// TestDownloadProgressEndsARowOfBreaks: breaks after bodies that each
// moved more than resumeProgress bytes are resumed however many there
// are; MaxAttempts bounds only breaks in a row without that progress.
func TestDownloadProgressEndsARowOfBreaks(t *testing.T) {
	body := bytes.Repeat(downloadBody, 96) // 6 MiB: four breaks, more than MaxAttempts
	var s cutServer
	c := rangedServer(t, &s, body, func(int, int) int { return resumeProgress + resumeProgress/4 }, nil)
	var got bytes.Buffer
	if _, _, err := c.Download(context.Background(), "b", "k", &got, 1<<30); err != nil || !bytes.Equal(got.Bytes(), body) {
		t.Fatalf("download: %v, %d of %d bytes", err, got.Len(), len(body))
	}
	if n := len(s.requests()); n != 5 {
		t.Fatalf("%d requests, want the first and four resumptions", n)
	}
}

// TestDownloadFewBytesPerConnection: a server that cuts every connection
// after a few bytes fails the download after MaxAttempts requests, not
// one request per few bytes.
func TestDownloadFewBytesPerConnection(t *testing.T) {
	var s cutServer
	c := rangedServer(t, &s, downloadBody, func(int, int) int { return 7 }, nil)
	_, _, err := c.Download(context.Background(), "b", "k", io.Discard, 1<<20)
	if err == nil || !strings.Contains(err.Error(), "body broken after 21 bytes") {
		t.Fatalf("download from a server cutting every 7 bytes: %v", err)
	}
	if n := len(s.requests()); n != 3 {
		t.Fatalf("%d requests, want MaxAttempts (3)", n)
	}
}

// TestDownloadResumedAnswerCutWithoutLength: a resumed answer that
// announced no length ends at its cut as if whole; the first answer's
// size shows it short, and it is resumed again.
func TestDownloadResumedAnswerCutWithoutLength(t *testing.T) {
	var s cutServer
	c := rangedServer(t, &s, downloadBody, func(i, _ int) int { return []int{100, 200, len(downloadBody)}[i] }, func(i int) bool { return i == 1 })
	var got bytes.Buffer
	if _, _, err := c.Download(context.Background(), "b", "k", &got, 1<<20); err != nil || !bytes.Equal(got.Bytes(), downloadBody) {
		t.Fatalf("download: %v, %d of %d bytes", err, got.Len(), len(downloadBody))
	}
	if n := len(s.requests()); n != 3 {
		t.Fatalf("%d requests, want 3", n)
	}
}

// TestDownloadInterruptedWhileWaiting: a context ended while a
// resumption waits ends the download at once, with an error that
// matches the context's cause (how tine tells an interrupt from a
// failure).
func TestDownloadInterruptedWhileWaiting(t *testing.T) {
	var s cutServer
	base := rangedServer(t, &s, downloadBody, func(int, int) int { return 100 }, nil)
	c := New(Options{Endpoint: base.opt.Endpoint, Region: "us-east-1",
		Credentials: aws.Credentials{AccessKeyID: "k", SecretAccessKey: "s"}, Backoff: waitFor(time.Hour)})
	cause := errors.New("interrupt")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(200*time.Millisecond, func() { cancel(cause) })
	err := within(t, func() error {
		_, _, err := c.Download(ctx, "b", "k", io.Discard, 1<<20)
		return err
	})
	if !errors.Is(err, cause) {
		t.Fatalf("download interrupted while waiting to resume: %v, want the interrupt", err)
	}
}

// TestDownloadWriterFailureNotRetried: a failure of the destination ends
// the download with that failure after one request.
func TestDownloadWriterFailureNotRetried(t *testing.T) {
	var s cutServer
	c := rangedServer(t, &s, downloadBody, func(int, int) int { return len(downloadBody) }, nil)
	full := errors.New("disk full")
	_, _, err := c.Download(context.Background(), "b", "k", failingWriter{full}, 1<<20)
	if !errors.Is(err, full) || len(s.requests()) != 1 {
		t.Fatalf("download into a failing writer: %v after %d requests, want the writer's error after 1", err, len(s.requests()))
	}
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }
