package main

import (
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdFixture is the script command `fixture DIR`: it copies the shared
// fixture directory testdata/DIR of the repository into $WORK/DIR, so a
// session reads the same files the Go tests read (testdata/otlp, the OTLP
// trace exports).
func cmdFixture(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("fixture does not support !")
	}
	if len(args) != 1 || !filepath.IsLocal(args[0]) {
		ts.Fatalf("usage: fixture DIR (a directory under testdata/)")
	}
	src := filepath.Join("..", "..", "testdata", args[0])
	entries, err := os.ReadDir(src)
	ts.Check(err)
	dst := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(dst, 0o755))
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		ts.Check(err)
		ts.Check(os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644))
	}
}
