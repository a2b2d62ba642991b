package s3client

import (
	"context"
	"github.com/tinehq/tine/internal/rawreply"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/tinehq/tine/remote/wire"
)

// TestHostileAnswerHeader: an answer whose header is malformed (an escape
// sequence and a line of 40 KiB) or larger than wire.MaxReplyHeader fails
// the request with an error naming the URL and what was wrong, bounded and
// unable to drive the user's terminal, on the client New builds.
func TestHostileAnswerHeader(t *testing.T) {
	var big strings.Builder
	for big.Len() <= wire.MaxReplyHeader {
		big.WriteString("X-Amz-Meta-Pad: " + strings.Repeat("p", 100) + "\r\n")
	}
	for _, tc := range []struct{ name, reply, want string }{
		{"malformed", "HTTP/1.1 200 OK\r\nX-Evil\x1b]2;owned\x07\u202e" + strings.Repeat("A", 40<<10) + "\r\nContent-Length: 0\r\n\r\n",
			"malformed MIME header"},
		{"too large", "HTTP/1.1 200 OK\r\n" + big.String() + "ETag: \"e\"\r\nContent-Length: 0\r\n\r\n",
			"server response headers exceeded 65536 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := rawreply.Serve(t, tc.reply)
			c := New(Options{Endpoint: "http://" + addr, Region: "us-east-1", MaxAttempts: 1,
				Credentials: aws.Credentials{AccessKeyID: "k", SecretAccessKey: "s"}, Backoff: waitFor(time.Millisecond)})
			_, _, err := c.Head(context.Background(), "b", "k")
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if bound := 200 + wire.MaxRefusalMessage; len(msg) > bound {
				t.Errorf("error of %d bytes, want at most %d: %.300q", len(msg), bound, msg)
			}
			for _, r := range msg {
				if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
					t.Errorf("error holds %U: %.300q", r, msg)
					break
				}
			}
			for _, w := range []string{"HeadObject: ", "http://" + addr + "/b/k", tc.want} {
				if !strings.Contains(msg, w) {
					t.Errorf("error %.400q does not say %q", msg, w)
				}
			}
		})
	}
}
