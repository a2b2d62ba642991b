package blake3suite

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/conformance-blake3 from testdata/conformance")

var (
	srcDir = filepath.Join("..", "..", "..", "testdata", "conformance")
	dstDir = filepath.Join("..", "..", "..", "testdata", "conformance-blake3")
)

// handWritten are the files of the blake3 suite the generator does not
// produce.
var handWritten = map[string]bool{"NOTICE.md": true}

// TestGeneratedSuiteIsCommitted regenerates the blake3 suite and compares
// it byte for byte with the committed directory, so the two never drift.
// Run with -update to rewrite the directory.
func TestGeneratedSuiteIsCommitted(t *testing.T) {
	files, err := Generate(srcDir)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		writeSuite(t, files)
	}
	var committed []string
	err = filepath.WalkDir(dstDir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dstDir, p)
		committed = append(committed, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range committed {
		if handWritten[rel] {
			continue
		}
		if _, ok := files[rel]; !ok {
			t.Errorf("%s is committed but not generated", rel)
		}
	}
	for rel, want := range files {
		got, err := os.ReadFile(filepath.Join(dstDir, filepath.FromSlash(rel)))
		if err != nil {
			t.Errorf("%s is generated but not committed: %v (run go test -update)", rel, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the generator's output (run go test -update)", rel)
		}
	}
}

// TestGenerateIsDeterministic generates twice and compares.
func TestGenerateIsDeterministic(t *testing.T) {
	a, err := Generate(srcDir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Generate(srcDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			t.Errorf("%s differs between two runs", k)
		}
	}
}

func writeSuite(t *testing.T, files map[string][]byte) {
	t.Helper()
	entries, err := os.ReadDir(dstDir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !handWritten[e.Name()] {
			if err := os.RemoveAll(filepath.Join(dstDir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	names := make([]string, 0, len(files))
	for k := range files {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, rel := range names {
		p := filepath.Join(dstDir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, files[rel], 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
