package httpserve_test

import (
	"testing"

	"github.com/tinehq/tine/objects"
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
