package s3remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/remote"
)

// markerKey is the object that makes a prefix a tine remote and names its
// object format; it is created once, with If-None-Match: *, by the first
// push, and never rewritten.
const markerKey = "tine-remote.json"

// markerVersion is the layout version this package writes and reads.
const markerVersion = "tine-s3/1"

// maxMarkerBytes bounds the marker read.
const maxMarkerBytes = 4096

// marker is the content of markerKey.
type marker struct {
	Layout       string       `json:"layout"`
	ObjectFormat objects.Algo `json:"object_format"`
}

// parseMarker decodes and validates a marker strictly.
func parseMarker(data []byte) (objects.Algo, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m marker
	if err := dec.Decode(&m); err != nil || dec.More() {
		return "", fmt.Errorf("%s: %w: not a tine remote marker", markerKey, ErrRemoteCorrupt)
	}
	if m.Layout != markerVersion {
		return "", fmt.Errorf("%s: %w: layout %q, this tine reads %q", markerKey, ErrRemoteCorrupt, m.Layout, markerVersion)
	}
	if !m.ObjectFormat.Valid() {
		return "", fmt.Errorf("%s: %w: unknown object format %q", markerKey, ErrRemoteCorrupt, m.ObjectFormat)
	}
	return m.ObjectFormat, nil
}

// format returns the remote's object format, reading the marker once; a
// prefix without one is not a remote yet (remote.ErrNotFound).
func (t *Transport) format(ctx context.Context) (objects.Algo, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.algo != "" {
		return t.algo, nil
	}
	data, _, err := t.b.get(ctx, markerKey, maxMarkerBytes)
	if errors.Is(err, errNoSuchBucket) {
		return "", fmt.Errorf("%s: %w", t.url, err)
	}
	if errors.Is(err, errNoSuchKey) {
		t.absent = true
		return "", fmt.Errorf("%s: %w: no tine remote here yet (a push creates it)", t.url, remote.ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", t.url, err)
	}
	algo, err := parseMarker(data)
	if err != nil {
		return "", fmt.Errorf("%s: %w", t.url, err)
	}
	t.algo = algo
	return algo, nil
}

// create writes the marker for format a unless one exists (a concurrent
// first push may have won: then its format must be a too).
func (t *Transport) create(ctx context.Context, a objects.Algo) (objects.Algo, error) {
	if !a.Valid() {
		return "", fmt.Errorf("%s: %w: cannot create a remote of object format %q", t.url, remote.ErrObjectFormat, a)
	}
	data, err := json.Marshal(marker{Layout: markerVersion, ObjectFormat: a})
	if err != nil {
		return "", err
	}
	_, err = t.b.putBytes(ctx, markerKey, append(data, '\n'), "")
	if err == nil {
		t.mu.Lock()
		t.algo, t.absent = a, false
		t.mu.Unlock()
		return a, nil
	}
	if !errors.Is(err, errPrecondition) {
		return "", fmt.Errorf("%s: create: %w", t.url, err)
	}
	return t.format(ctx) // a concurrent first push created it: read its format
}

// requireFormat fails unless the remote's format is a.
func (t *Transport) requireFormat(ctx context.Context, a objects.Algo) error {
	have, err := t.format(ctx)
	if errors.Is(err, remote.ErrNotFound) && a != "" {
		have, err = t.create(ctx, a)
	}
	if err != nil {
		return err
	}
	if have != a {
		return fmt.Errorf("%s: %w: the remote holds %s objects, this repository %s", t.url, remote.ErrObjectFormat, have, a)
	}
	return nil
}
