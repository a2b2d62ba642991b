package httpserve

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestRecentObjectsBounded: the cache keeps non-blob objects per tenant,
// drops the oldest past maxRecentBytes, and answers ErrNotFound for what
// it does not hold.
func TestRecentObjectsBounded(t *testing.T) {
	ctx := context.Background()
	c := newRecentObjects()
	body := make([]byte, 1<<20)
	var first, last objects.OID
	for i := 0; i < 2*maxRecentBytes/len(body); i++ {
		v, err := objects.ParseJSON([]byte(fmt.Sprintf(`{"i":%d}`, i)), objects.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o, err := objects.NewJSONObject(objects.SHA256, objects.TypeEvent, 1, v)
		if err != nil {
			t.Fatal(err)
		}
		o.Body = append(o.Body, body...) // only the size matters here
		if i == 0 {
			first = o.ID
		}
		last = o.ID
		c.add("acme", []*objects.Object{o, objects.NewBlob(objects.SHA256, []byte(fmt.Sprint(i)))})
	}
	if c.bytes > maxRecentBytes || len(c.order) == 0 {
		t.Fatalf("cache holds %d bytes in %d entries, bound %d", c.bytes, len(c.order), maxRecentBytes)
	}
	for _, e := range c.order {
		if e.id.Type == objects.TypeBlob {
			t.Fatalf("the cache kept blob %s", e.id)
		}
	}
	if _, err := c.getter("acme").Get(ctx, first); !errors.Is(err, objects.ErrNotFound) {
		t.Errorf("the oldest object survived past the bound: %v", err)
	}
	if _, err := c.getter("acme").Get(ctx, last); err != nil {
		t.Errorf("the newest object: %v", err)
	}
	if _, err := c.getter("other").Get(ctx, last); !errors.Is(err, objects.ErrNotFound) {
		t.Errorf("another tenant sees acme's object: %v", err)
	}
}

// TestRecentObjectsCopyBodies: a kept object does not share its body with
// what was installed (a decoded frame's objects share one buffer).
func TestRecentObjectsCopyBodies(t *testing.T) {
	c := newRecentObjects()
	v, err := objects.ParseJSON([]byte(`{"kind":"model"}`), objects.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	o, err := objects.NewJSONObject(objects.SHA256, objects.TypeEvent, 1, v)
	if err != nil {
		t.Fatal(err)
	}
	c.add("acme", []*objects.Object{o})
	got, err := c.getter("acme").Get(context.Background(), o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if &got.Body[0] == &o.Body[0] || string(got.Body) != string(o.Body) {
		t.Fatalf("kept body %q shares the installed object's buffer or differs", got.Body)
	}
}
