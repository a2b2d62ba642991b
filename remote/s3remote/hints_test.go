package s3remote

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestRefusalSaysWhatToDo: the refusals a user fixes on their side say
// how. A bucket in another region (S3 answers 301 PermanentRedirect, or
// 400 AuthorizationHeaderMalformed, with the bucket's region in a
// header) names the region to set; a clock too far from the server's
// (403 RequestTimeTooSkewed, or a bare 403 whose Date is off by more than
// S3's 15 minutes) says to set the clock, not to check keys.
func TestRefusalSaysWhatToDo(t *testing.T) {
	cases := []struct {
		status       int
		code, region string
		want, not    string
	}{
		{301, "PermanentRedirect", "eu-west-3", "AWS_REGION=eu-west-3", ""},
		{307, "TemporaryRedirect", "eu-north-1", "AWS_REGION=eu-north-1", ""},
		{400, "AuthorizationHeaderMalformed", "ap-south-1", "AWS_REGION=ap-south-1", ""},
		{403, "RequestTimeTooSkewed", "", "clock", "AWS_ACCESS_KEY_ID"},
		{403, "SignatureDoesNotMatch", "", "AWS_SECRET_ACCESS_KEY", "clock"},
	}
	for _, c := range cases {
		t.Run(c.code, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if c.code == "RequestTimeTooSkewed" { // a HEAD answer has only its Date to say so
					w.Header().Set("Date", time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat))
				}
				if c.region != "" {
					w.Header().Set("X-Amz-Bucket-Region", c.region)
				}
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(c.status)
				if r.Method != http.MethodHead {
					fmt.Fprintf(w, `<Error><Code>%s</Code><Message>test answer.</Message></Error>`, c.code)
				}
			}))
			defer srv.Close()
			b := newBucket(Config{Bucket: "bkt", Endpoint: srv.URL, Region: "us-east-1",
				AccessKeyID: "k", SecretAccessKey: "s"})
			_, _, err := b.get(context.Background(), "refs/x", 100)
			_, herr := b.size(context.Background(), "refs/x")
			for _, err := range []error{err, herr} {
				msg := fmt.Sprint(err)
				if !strings.Contains(msg, c.want) || (c.not != "" && strings.Contains(msg, c.not)) {
					t.Errorf("error %q: want %q in it, not %q", msg, c.want, c.not)
				}
			}
		})
	}
}
