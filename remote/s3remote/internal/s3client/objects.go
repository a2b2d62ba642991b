package s3client

import (
	"context"
	"io"
	"net/http"
)

// Object is a GetObject answer: the caller reads and closes Body.
type Object struct {
	Body io.ReadCloser
	// Size is the Content-Length the server announced (-1 if none).
	Size int64
	ETag string
}

// Get starts reading key (GetObject). Only the answer's headers are
// retried: a body broken while the caller reads it is the caller's error.
func (c *Client) Get(ctx context.Context, bucket, key string) (*Object, error) {
	var obj *Object
	err := c.send(ctx, &request{op: "GetObject", method: http.MethodGet, bucket: bucket, key: key},
		func(resp *http.Response) error {
			obj = &Object{Body: resp.Body, Size: resp.ContentLength, ETag: resp.Header.Get("ETag")}
			return nil
		})
	return obj, err
}

// Head returns the size and ETag of key (HeadObject).
func (c *Client) Head(ctx context.Context, bucket, key string) (size int64, etag string, err error) {
	err = c.send(ctx, &request{op: "HeadObject", method: http.MethodHead, bucket: bucket, key: key},
		func(resp *http.Response) error {
			resp.Body.Close()
			size, etag = resp.ContentLength, resp.Header.Get("ETag")
			return nil
		})
	return size, etag, err
}

// Condition is the precondition of a PUT: IfNoneMatch "*" creates only,
// IfMatch an ETag replaces only that version; both empty writes always.
type Condition struct {
	IfMatch     string
	IfNoneMatch string
}

// Put writes size bytes of body to key (PutObject) under cond and returns
// the new ETag. body is rewound for every try.
func (c *Client) Put(ctx context.Context, bucket, key string, body io.ReadSeeker, size int64, cond Condition) (string, error) {
	h := map[string]string{}
	if cond.IfMatch != "" {
		h["If-Match"] = cond.IfMatch
	}
	if cond.IfNoneMatch != "" {
		h["If-None-Match"] = cond.IfNoneMatch
	}
	var etag string
	err := c.send(ctx, &request{op: "PutObject", method: http.MethodPut, bucket: bucket, key: key, header: h, body: body, size: size},
		func(resp *http.Response) error {
			etag = resp.Header.Get("ETag")
			return drain(resp)
		})
	return etag, err
}

// Delete removes key (DeleteObject); an absent key is no error (S3
// answers 204 either way).
func (c *Client) Delete(ctx context.Context, bucket, key string) error {
	return c.send(ctx, &request{op: "DeleteObject", method: http.MethodDelete, bucket: bucket, key: key}, drain)
}

// CreateBucket creates bucket in the client's default location (for test
// servers; tine itself never creates buckets).
func (c *Client) CreateBucket(ctx context.Context, bucket string) error {
	return c.send(ctx, &request{op: "CreateBucket", method: http.MethodPut, bucket: bucket}, drain)
}

// maxDrain bounds what is read of a success answer nobody needs, so the
// connection can be reused; a larger body closes it instead.
const maxDrain = 64 << 10

// drain reads and closes a body whose content is not used.
func drain(resp *http.Response) error {
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	return resp.Body.Close()
}
