package wire

import (
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

func TestCheckTenant(t *testing.T) {
	for _, ok := range []string{"a", "acme", "a.b-c_d", "0", strings.Repeat("a", 128), "console", "com0", "com10"} {
		if err := CheckTenant(ok); err != nil {
			t.Errorf("CheckTenant(%q) = %v, want ok", ok, err)
		}
	}
	for _, bad := range []string{"", "A", "-a", ".a", "a.", "a/b", "con", "nul.x", "com1", "lpt9.txt", strings.Repeat("a", 129), "a b"} {
		if err := CheckTenant(bad); err == nil {
			t.Errorf("CheckTenant(%q) = nil, want an error", bad)
		}
	}
}

func TestFormats(t *testing.T) {
	for _, a := range []objects.Algo{objects.SHA256, objects.BLAKE3} {
		got, err := AlgoFor(FormatFor(a))
		if err != nil || got != a {
			t.Errorf("AlgoFor(FormatFor(%s)) = %s, %v", a, got, err)
		}
	}
	if FormatFor(objects.SHA256) != "opentine-v3" {
		t.Errorf("sha256 must advertise OpenTine's value")
	}
	if _, err := AlgoFor("opentine-v4"); err == nil {
		t.Errorf("AlgoFor accepted an unknown format")
	}
}

func TestMinChunk(t *testing.T) {
	for _, c := range []struct{ size, want int64 }{{1, 1}, {16, 1}, {17, 2}, {1 << 20, 64 << 10}, {256 << 20, 64 << 10}} {
		if got := MinChunk(c.size); got != c.want {
			t.Errorf("MinChunk(%d) = %d, want %d", c.size, got, c.want)
		}
	}
}
