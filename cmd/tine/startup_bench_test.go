package main

import (
	"io"
	"strings"
	"testing"
)

// BenchmarkStartVersion measures what one `tine version` costs inside the
// process after package initialisation: building the grammar, parsing the
// command line and running the verb.
func BenchmarkStartVersion(b *testing.B) {
	for b.Loop() {
		if code := run([]string{"version"}, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
