package s3client

import (
	"bytes"
	"context"
	"github.com/tinehq/tine/internal/rawreply"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/tinehq/tine/remote/wire"
)

// TestHostileAnswerTrailer: a chunked answer whose trailer is malformed
// (net/http quotes the line, up to its 4 KiB buffer, into the body's read
// error) fails a download, a listing and an error answer with an error that
// is bounded and cannot drive the user's terminal, as a malformed header
// does (TestHostileAnswerHeader).
func TestHostileAnswerTrailer(t *testing.T) {
	trailer := "X-Evil\x1b]2;owned\x07\x1b[2J\u202e" + strings.Repeat("A", 3000) + "\r\n\r\n"
	chunked := func(status string) string {
		return "HTTP/1.1 " + status + "\r\nTransfer-Encoding: chunked\r\nContent-Type: application/xml\r\n\r\n5\r\nhello\r\n0\r\n" + trailer
	}
	newClient := func(addr string) *Client {
		return New(Options{Endpoint: "http://" + addr, Region: "us-east-1", MaxAttempts: 1,
			Credentials: aws.Credentials{AccessKeyID: "k", SecretAccessKey: "s"}, Backoff: waitFor(time.Millisecond)})
	}
	check := func(t *testing.T, err error) {
		t.Helper()
		if err == nil {
			t.Fatal("no error")
		}
		msg := err.Error()
		if bound := 200 + wire.MaxRefusalMessage; len(msg) > bound {
			t.Errorf("error of %d bytes, want at most %d: %.300q", len(msg), bound, msg)
		}
		for _, r := range msg {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				t.Fatalf("error holds %U: %.300q", r, msg)
			}
		}
		if !strings.Contains(msg, "malformed MIME header") {
			t.Errorf("error %.300q does not say what was wrong", msg)
		}
	}
	t.Run("download", func(t *testing.T) {
		c := newClient(rawreply.Serve(t, chunked("200 OK")))
		var buf bytes.Buffer
		_, _, err := c.Download(context.Background(), "b", "k", &buf, 1<<20)
		check(t, err)
	})
	t.Run("list", func(t *testing.T) {
		c := newClient(rawreply.Serve(t, chunked("200 OK")))
		_, err := c.List(context.Background(), "b", "", "", 10)
		check(t, err)
	})
	t.Run("error answer", func(t *testing.T) {
		c := newClient(rawreply.Serve(t, chunked("404 Not Found")))
		var buf bytes.Buffer
		_, _, err := c.Download(context.Background(), "b", "k", &buf, 1<<20)
		check(t, err)
	})
}
