package httpserve_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote/httpclient"
	"github.com/tinehq/tine/remote/httpserve"
	"github.com/tinehq/tine/remote/wire"
)

// BenchmarkGetRefs is one small authenticated request over real HTTP, its
// audit row included (one write and fsync, one head replaced atomically).
func BenchmarkGetRefs(b *testing.B) {
	ts := startServer(b, httpserve.Config{})
	for b.Loop() {
		if status, _, _ := ts.raw(b, "GET", "/v1/tenants/acme/refs", "", "", nil); status != 200 {
			b.Fatal(status)
		}
	}
}

// BenchmarkInstall4kEvents installs a 4,000-event run (8,001 objects) as
// one direct pack into an empty blake3 tenant, the search journals
// included.
func BenchmarkInstall4kEvents(b *testing.B) {
	src := newSource(b, objects.BLAKE3, "e", 4000)
	frame := src.frame(b, src.run)
	for b.Loop() {
		b.StopTimer()
		ts := startServer(b, httpserve.Config{ObjectFormat: objects.BLAKE3})
		b.StartTimer()
		if status, body, _ := ts.raw(b, "POST", "/v1/tenants/acme/packs", "", wire.PackContentType, frame); status != 201 {
			b.Fatal(status, body)
		}
	}
}

// BenchmarkUploadFrame4kEvents uploads a 4,000-event run (8,001 objects,
// read from the source's storage pack) in one PATCH into an empty blake3
// tenant: as a version 1 binary frame (every object's envelope, stored by
// compressing it again) and as a version 2 frame (the source's blocks,
// kept as they are), both uncompressed as to a loopback server.
func BenchmarkUploadFrame4kEvents(b *testing.B) {
	src := newSource(b, objects.BLAKE3, "e", 4000)
	objs, boundary, err := objects.PackClosure(context.Background(), src.repo.Objects(), []objects.OID{src.run}, nil)
	if err != nil {
		b.Fatal(err)
	}
	v1, _, err := wire.WriteFrame(objs, boundary, objects.DefaultPackLimits, false)
	if err != nil {
		b.Fatal(err)
	}
	v2, _ := blocksFrame(b, src, 0)
	for _, c := range []struct {
		name, version string
		frame         []byte
	}{{"version1", "1", v1}, {"version2", "2", v2}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				ts := startServer(b, httpserve.Config{ObjectFormat: objects.BLAKE3})
				b.StartTimer()
				if status, body := ts.uploadFrame(b, c.frame, map[string]string{wire.HeaderFrame: c.version}); status != 201 {
					b.Fatal(status, body)
				}
			}
		})
	}
}

// BenchmarkPutRef4kEvents moves a ref over real HTTP to a 4,000-event run
// the tenant stores (8,001 objects): created in a tenant with no ref, which
// walks the run's whole history to check it is stored (as a push of a new
// run does right after its pack); created as a second name for it, which
// reads nothing; created as a fork of its first 3,000 events (a new run
// object each time), which reads the run heads/main names instead of the
// fork's events; and appended to, which walks only the new event (the old
// run's events are held).
func BenchmarkPutRef4kEvents(b *testing.B) {
	ctx := context.Background()
	src := newSource(b, objects.BLAKE3, "e", 4000)
	frame := src.frame(b, src.run)
	b.Run("create", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			ts := startServer(b, httpserve.Config{ObjectFormat: objects.BLAKE3})
			c := ts.client(b, httpclient.Options{})
			if _, err := c.Upload(ctx, frame); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if ok, err := c.UpdateRef(ctx, "heads/main", objects.OID{}, src.run); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
	ts := startServer(b, httpserve.Config{ObjectFormat: objects.BLAKE3})
	c := ts.client(b, httpclient.Options{})
	if _, err := c.Upload(ctx, frame); err != nil {
		b.Fatal(err)
	}
	if ok, err := c.UpdateRef(ctx, "heads/main", objects.OID{}, src.run); err != nil || !ok {
		b.Fatal(ok, err)
	}
	b.Run("second-name", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			if ok, err := c.UpdateRef(ctx, fmt.Sprintf("heads/b%d", i), objects.OID{}, src.run); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("fork", func(b *testing.B) {
		tenant, err := plumbing.Open(filepath.Join(ts.root, "tenants", "acme"))
		if err != nil {
			b.Fatal(err)
		}
		defer tenant.Close()
		evs := src.events[:3000]
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			fork := jsonObject(b, objects.BLAKE3, objects.TypeRun, fmt.Sprintf(`{"events":%s,"roots":%s,"tips":%s,"title":"fork %d"}`,
				oidList(evs), oidList(evs[:1]), oidList(evs[len(evs)-1:]), i))
			if err := tenant.Objects().Put(ctx, fork); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if ok, err := c.UpdateRef(ctx, fmt.Sprintf("experiments/f%d", i), objects.OID{}, fork.ID); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("append", func(b *testing.B) {
		old, evs := src.run, src.events
		for i := 0; b.Loop(); i++ {
			b.StopTimer()
			next, ev := src.appendEvent(b, evs, fmt.Sprintf("n%d", i))
			if _, err := c.Upload(ctx, src.frame(b, next)); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if ok, err := c.UpdateRef(ctx, "heads/main", old, next); err != nil || !ok {
				b.Fatal(ok, err)
			}
			old, evs = next, append(evs, ev)
		}
	})
}
