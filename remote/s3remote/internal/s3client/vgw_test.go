package s3client_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/tinehq/tine/remote/s3remote/internal/s3client"
	"github.com/tinehq/tine/remote/s3remote/vgwtest"
)

// TestAgainstVersitygw: a real S3 server, which checks every signature,
// accepts the client's requests: keys that need percent-encoding, a
// listing paged by continuation tokens, conditional writes with their
// 412s, a body large enough for 100-continue, and deletes.
func TestAgainstVersitygw(t *testing.T) {
	srv := vgwtest.Start(t)
	bucket := srv.Bucket(t)
	c := srv.Client()
	ctx := context.Background()
	keys := []string{"p/a b", "p/c+d", "p/e%f", "p/g=h&i", "p/j~k", "p/l/m/n", "p/ö"}
	for _, k := range keys {
		if _, err := c.Put(ctx, bucket, k, strings.NewReader(k), int64(len(k)), s3client.Condition{IfNoneMatch: "*"}); err != nil {
			t.Fatalf("put %q: %v", k, err)
		}
	}
	var listed []string
	pages, token := 0, ""
	for {
		page, err := c.List(ctx, bucket, "p/", token, 2)
		if err != nil {
			t.Fatalf("list after %q: %v", token, err)
		}
		pages++
		for _, o := range page.Objects {
			listed = append(listed, o.Key)
			if o.Size != int64(len(o.Key)) || o.ETag == "" {
				t.Fatalf("listed %+v", o)
			}
		}
		if token = page.Next; token == "" {
			break
		}
	}
	slices.Sort(keys)
	if !slices.Equal(listed, keys) || pages != 4 {
		t.Fatalf("%d pages listed %q, want %q", pages, listed, keys)
	}
	obj, err := c.Get(ctx, bucket, "p/e%f")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := io.ReadAll(obj.Body)
	obj.Body.Close()
	if string(data) != "p/e%f" {
		t.Fatalf("read %q", data)
	}

	big := bytes.Repeat([]byte("0123456789abcdef"), 3<<16) // 3 MiB: Expect: 100-continue
	etag, err := c.Put(ctx, bucket, "big", bytes.NewReader(big), int64(len(big)), s3client.Condition{IfNoneMatch: "*"})
	if err != nil || etag == "" {
		t.Fatalf("put 3 MiB: %q, %v", etag, err)
	}
	_, err = c.Put(ctx, bucket, "big", bytes.NewReader(big), int64(len(big)), s3client.Condition{IfNoneMatch: "*"})
	if !isStatus(err, 412) {
		t.Fatalf("second create: %v, want 412", err)
	}
	if _, err := c.Put(ctx, bucket, "big", bytes.NewReader(big[:10]), 10, s3client.Condition{IfMatch: `"stale"`}); !isStatus(err, 412) {
		t.Fatalf("replace of a stale ETag: %v, want 412", err)
	}
	if _, err := c.Put(ctx, bucket, "big", bytes.NewReader(big[:10]), 10, s3client.Condition{IfMatch: etag}); err != nil {
		t.Fatalf("replace of the current ETag: %v", err)
	}
	if n, _, err := c.Head(ctx, bucket, "big"); err != nil || n != 10 {
		t.Fatalf("head: %d, %v", n, err)
	}
	if err := c.Delete(ctx, bucket, "big"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Head(ctx, bucket, "big"); !isStatus(err, 404) {
		t.Fatalf("head after delete: %v", err)
	}
}

func isStatus(err error, status int) bool {
	var e *s3client.Error
	return errors.As(err, &e) && e.Status == status
}

// TestResumeAgainstVersitygw: a real S3 server answers a download's
// resumption (Range from a byte on, If-Match the ETag) with what the
// client checks, the rest of the object, and refuses it with 412 once
// the key holds another version.
func TestResumeAgainstVersitygw(t *testing.T) {
	srv := vgwtest.Start(t)
	bucket := srv.Bucket(t)
	c := srv.Client()
	ctx := context.Background()
	body := bytes.Repeat([]byte("resumable "), 1000)
	etag, err := c.Put(ctx, bucket, "packs/p.pack", bytes.NewReader(body), int64(len(body)), s3client.Condition{IfNoneMatch: "*"})
	if err != nil {
		t.Fatal(err)
	}
	obj, err := s3client.GetFrom(c, ctx, bucket, "packs/p.pack", 4321, etag)
	if err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(obj.Body)
	obj.Body.Close()
	if err != nil || !bytes.Equal(rest, body[4321:]) || obj.Size != int64(len(body)-4321) {
		t.Fatalf("resumed read: %d bytes (size %d), %v; want the last %d", len(rest), obj.Size, err, len(body)-4321)
	}
	if _, err := c.Put(ctx, bucket, "packs/p.pack", strings.NewReader("another version"), 15, s3client.Condition{IfMatch: etag}); err != nil {
		t.Fatal(err)
	}
	if _, err := s3client.GetFrom(c, ctx, bucket, "packs/p.pack", 10, etag); err == nil || !strings.Contains(err.Error(), "412") {
		t.Fatalf("resumption of a replaced key: %v, want a 412", err)
	}
}
