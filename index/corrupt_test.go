package index

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// reseal recomputes the trailer checksum of a tampered file, so the
// damage reaches the body decoder.
func reseal(b []byte) []byte {
	n := len(b) - checksumSize
	h := objects.SHA256.New()
	h.Write(b[:n])
	return h.Sum(b[:n:n])
}

// atVersion returns a damage that sets the catalog's format version to v
// and reseals the file.
func atVersion(v byte) func(t *testing.T, f *fixture, good []byte) {
	return func(t *testing.T, f *fixture, good []byte) {
		b := bytes.Clone(good)
		b[len(magic)] = v
		os.WriteFile(f.ix.Path(), reseal(b), 0o644)
	}
}

func TestDamagedCatalogIsRebuilt(t *testing.T) {
	cases := []struct {
		name   string
		damage func(t *testing.T, f *fixture, good []byte)
		state  string
		reason string
	}{
		{"deleted", func(t *testing.T, f *fixture, _ []byte) {
			os.Remove(f.ix.Path())
		}, StateMissing, "missing"},
		{"empty", func(t *testing.T, f *fixture, _ []byte) {
			os.WriteFile(f.ix.Path(), nil, 0o644)
		}, StateCorrupt, "truncated or bad magic"},
		{"truncated", func(t *testing.T, f *fixture, good []byte) {
			os.WriteFile(f.ix.Path(), good[:len(good)/2], 0o644)
		}, StateCorrupt, "checksum mismatch"},
		{"bit flip", func(t *testing.T, f *fixture, good []byte) {
			b := bytes.Clone(good)
			b[len(b)/3] ^= 0x40
			os.WriteFile(f.ix.Path(), b, 0o644)
		}, StateCorrupt, "checksum mismatch"},
		{"wrong entry count", func(t *testing.T, f *fixture, good []byte) {
			b := bytes.Clone(good)
			b[len(b)-checksumSize-8]++
			os.WriteFile(f.ix.Path(), reseal(b), 0o644)
		}, StateCorrupt, "trailer counts"},
		{"future version", atVersion(Version + 1), StateMismatch, "version 6"},
		{"version 1 (no run summaries)", atVersion(1), StateMismatch, "version 1, want 5"},
		{"version 2 (no log fields)", atVersion(2), StateMismatch, "version 2, want 5"},
		{"version 3 (no forks)", atVersion(3), StateMismatch, "version 3, want 5"},
		{"version 4 (no layers)", atVersion(4), StateMismatch, "version 4, want 5"},
		{"other hash", func(t *testing.T, f *fixture, good []byte) {
			d, err := decode(good)
			if err != nil {
				t.Fatal(err)
			}
			d.algo = objects.SHA256
			os.WriteFile(f.ix.Path(), encode(d), 0o644)
		}, StateMismatch, "built for sha256 objects"},
		{"other rules", func(t *testing.T, f *fixture, good []byte) {
			d, _ := decode(good)
			d.rules = []EvidenceRule{{Table: "x", Path: "y"}}
			os.WriteFile(f.ix.Path(), encode(d), 0o644)
		}, StateMismatch, "other evidence rules"},
		{"runs disagree with refs", func(t *testing.T, f *fixture, good []byte) {
			d, _ := decode(good)
			d.runs = d.runs[:1]
			os.WriteFile(f.ix.Path(), encode(d), 0o644)
		}, StateCorrupt, "runs for"},
		{"symlink", func(t *testing.T, f *fixture, good []byte) {
			target := filepath.Join(t.TempDir(), "elsewhere")
			os.WriteFile(target, good, 0o644)
			os.Remove(f.ix.Path())
			if err := os.Symlink(target, f.ix.Path()); err != nil {
				t.Skip("no symlinks:", err)
			}
		}, StateCorrupt, "not a plain file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, objects.BLAKE3)
			want, _ := f.catalog()
			good := f.fileBytes()
			tc.damage(t, f, good)
			st, err := f.ix.Status(f.ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.State != tc.state || tc.state != StateMissing && !strings.Contains(st.Reason, tc.reason) {
				t.Fatalf("status %q (%s), want %q containing %q", st.State, st.Reason, tc.state, tc.reason)
			}
			c, rep := f.catalog()
			if rep.Action != ActionRebuilt || !strings.Contains(rep.Reason, tc.reason) {
				t.Fatalf("load: %+v", rep)
			}
			if c.Counts() != want.Counts() {
				t.Fatalf("rebuilt counts %+v, want %+v", c.Counts(), want.Counts())
			}
			if !bytes.Equal(f.fileBytes(), good) {
				t.Fatal("the rebuilt file differs from the original build")
			}
			if fi, err := os.Lstat(f.ix.Path()); err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("catalog is not a regular file after rebuild: %v %v", fi, err)
			}
		})
	}
}

func TestUnsafeCatalogDirectoryRefused(t *testing.T) {
	r := newTestRepo(t, objects.BLAKE3)
	e := r.event("x", "")
	r.setRef("heads/main", r.run([]objects.OID{e}))
	dir := filepath.Dir(r.ix.Path())
	if err := os.Symlink(t.TempDir(), dir); err != nil {
		t.Skip("no symlinks:", err)
	}
	if _, err := r.ix.Update(r.ctx); !errors.Is(err, ErrUnsafePath) {
		t.Fatalf("update through a symlinked directory: %v", err)
	}
	// A query still answers from the in-memory build.
	c, rep, err := r.ix.Catalog(r.ctx)
	if err != nil || rep.Saved || !errors.Is(rep.SaveErr, ErrUnsafePath) || len(c.RunsByRef("")) != 1 {
		t.Fatalf("catalog: %+v %v", rep, err)
	}
}

func TestCorruptObjectIsAnError(t *testing.T) {
	r := newTestRepo(t, objects.BLAKE3)
	e := r.event("x", "")
	run := r.run([]objects.OID{e})
	r.setRef("heads/main", run)
	att := r.evaluate(run, "a", score("s", 1))
	p, err := objects.LoosePath(att)
	if err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(r.root, filepath.FromSlash(p))
	os.Chmod(full, 0o644)
	if err := os.WriteFile(full, []byte("attestation 1\n{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = r.ix.Catalog(r.ctx)
	if err == nil || !strings.Contains(err.Error(), att.String()) {
		t.Fatalf("a corrupt attestation must be reported by name, got %v", err)
	}
}
