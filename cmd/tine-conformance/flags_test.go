package main

import (
	"io"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestObjectHashFlag: --object-hash blake3 makes the adapter derive blake3
// oids (the worked blob of testdata/conformance-blake3's 13-oid); a
// profile tine does not know is a usage error.
func TestObjectHashFlag(t *testing.T) {
	for _, c := range []struct {
		args []string
		want objects.Algo
	}{
		{nil, objects.SHA256},
		{[]string{"--object-hash", "blake3"}, objects.BLAKE3},
		{[]string{"--object-hash=sha256"}, objects.SHA256},
	} {
		got, err := parseFlags(c.args, io.Discard)
		if err != nil || got != c.want {
			t.Errorf("%v: %q, %v; want %q", c.args, got, err, c.want)
		}
	}
	for _, bad := range [][]string{{"--object-hash", "sha1"}, {"extra"}, {"--verbose"}} {
		if _, err := parseFlags(bad, io.Discard); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
	var out strings.Builder
	req := `{"id":"d","op":"oid.derive","input":{"bytes_b64":"aGVsbG8K"},"args":{"header":{"schema":1,"type":"blob"}}}` + "\n"
	if err := serve(strings.NewReader(req), &out, io.Discard, objects.BLAKE3); err != nil {
		t.Fatal(err)
	}
	want := `"oid":"blob:blake3:1dc1e8a41c8a32bca4cc5cb23a033422b63f33d72dd14957e6d37fba133a51a8"`
	if !strings.Contains(out.String(), want) {
		t.Errorf("response %s, want %s", out.String(), want)
	}
}
