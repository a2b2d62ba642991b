package plumbing

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// sparseFile makes a file of size bytes that costs no disk (a hole).
func sparseFile(t *testing.T, size int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big.bin")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
	return path
}

// readCounter counts the bytes read from a file through it.
type readCounter struct {
	*os.File
	n int64
}

func (c *readCounter) Read(p []byte) (int, error) {
	n, err := c.File.Read(p)
	c.n += int64(n)
	return n, err
}

// TestHashObjectRefusesOversizedFileFromStat pins issue 10 item 9: a file
// over the 2 GiB object bound is refused from its size, before a byte is
// read, with -w and without, as a blob or a json type, by path, by
// --stdin-paths and on standard input. The sparse 3 GiB file costs no
// disk; a refusal that reads first would take seconds and show in the
// counter.
func TestHashObjectRefusesOversizedFileFromStat(t *testing.T) {
	r := newRepo(t, objects.BLAKE3)
	path := sparseFile(t, 3<<30)
	ctx := context.Background()
	for _, opt := range []HashObjectOptions{
		{Write: true, Paths: []string{path}},
		{Paths: []string{path}},
		{Type: objects.TypeEvent, Paths: []string{path}},
		{Type: objects.TypeEvent, Canonicalize: true, Write: true, Paths: []string{path}},
	} {
		repo := r
		if !opt.Write {
			repo = nil
		}
		_, err := HashObject(ctx, repo, opt)
		if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "3221225472 bytes, more than the 2147483648-byte object bound") {
			t.Errorf("HashObject(%+v) = %v, want the object bound refusal", opt, err)
		}
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	in := &readCounter{File: f}
	if _, err := HashObject(ctx, nil, HashObjectOptions{Stdin: in}); !errors.Is(err, ErrBadInput) || in.n != 0 {
		t.Errorf("stdin: %v after reading %d bytes, want a refusal before reading", err, in.n)
	}
	_, err = HashObjectPaths(ctx, r, HashPathsOptions{Write: true, Paths: strings.NewReader(path + "\n")}, func(HashedObject) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "more than the 2147483648-byte object bound") {
		t.Errorf("--stdin-paths: %v, want the object bound refusal", err)
	}
}
