package s3client

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// MaxListBytes bounds one ListObjectsV2 answer: 1,000 keys of S3's
// longest (1,024 bytes) with their ETags and sizes fit several times.
const MaxListBytes = 8 << 20

// ListedObject is one key of a listing.
type ListedObject struct {
	Key  string
	ETag string
	Size int64
}

// ListPage is one ListObjectsV2 page; Next is "" on the last.
type ListPage struct {
	Objects []ListedObject
	Next    string
}

// listResult is S3's ListBucketResult document.
type listResult struct {
	XMLName     xml.Name `xml:"ListBucketResult"`
	IsTruncated bool     `xml:"IsTruncated"`
	NextToken   string   `xml:"NextContinuationToken"`
	Contents    []struct {
		Key  string `xml:"Key"`
		ETag string `xml:"ETag"`
		Size string `xml:"Size"`
	} `xml:"Contents"`
}

// List returns the page of keys under prefix that token continues ("" for
// the first), at most maxKeys (0: the server's 1,000). The whole page is
// read and parsed within the retried request.
func (c *Client) List(ctx context.Context, bucket, prefix, token string, maxKeys int) (*ListPage, error) {
	q := map[string][]string{"list-type": {"2"}, "prefix": {prefix}}
	if token != "" {
		q["continuation-token"] = []string{token}
	}
	if maxKeys > 0 {
		q["max-keys"] = []string{strconv.Itoa(maxKeys)}
	}
	var page *ListPage
	err := c.send(ctx, &request{op: "ListObjectsV2", method: http.MethodGet, bucket: bucket, query: q},
		func(resp *http.Response) error {
			defer resp.Body.Close()
			data, err := io.ReadAll(io.LimitReader(resp.Body, MaxListBytes+1))
			if err != nil {
				return newConnError(ctx, err)
			}
			page, err = parseList(data, token)
			return err
		})
	return page, err
}

// parseList decodes a ListObjectsV2 answer, refusing one over
// MaxListBytes, malformed XML, a bad size, and a truncated page without a
// new continuation token (which would end the listing early or loop).
func parseList(data []byte, token string) (*ListPage, error) {
	if len(data) > MaxListBytes {
		return nil, fmt.Errorf("%w: a listing page over %d bytes", ErrBadAnswer, MaxListBytes)
	}
	var r listResult
	if err := xml.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%w: listing: %v", ErrBadAnswer, err)
	}
	page := &ListPage{Objects: make([]ListedObject, len(r.Contents))}
	for i, o := range r.Contents {
		n, err := strconv.ParseInt(o.Size, 10, 64)
		if err != nil || n < 0 || o.Key == "" {
			return nil, fmt.Errorf("%w: listing: entry %q with size %q", ErrBadAnswer, o.Key, o.Size)
		}
		page.Objects[i] = ListedObject{Key: o.Key, ETag: o.ETag, Size: n}
	}
	if r.IsTruncated {
		if r.NextToken == "" || r.NextToken == token {
			return nil, fmt.Errorf("%w: listing: a truncated page without a new continuation token", ErrBadAnswer)
		}
		page.Next = r.NextToken
	}
	return page, nil
}
