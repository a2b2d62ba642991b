package loose_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/loose"
	"github.com/tinehq/tine/objects/objectstest"
)

// corruptibleLoose lets the shared suite damage a loose object on disk.
type corruptibleLoose struct{ *loose.Store }

// Corrupt flips the bits of the file's last byte, in place.
func (c corruptibleLoose) Corrupt(id objects.OID) error {
	p, err := c.Path(id)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	data[len(data)-1] ^= 0xff
	if err := os.Chmod(p, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return err
	}
	return os.Chmod(p, 0o444)
}

// newLoose opens a loose store in a fresh objects directory.
func newLoose(t testing.TB, a objects.Algo) *loose.Store {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "objects")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := loose.Open(dir, a)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLooseStoreSuite(t *testing.T) {
	objectstest.RunAlgos(t, func(t *testing.T, a objects.Algo) objects.Store {
		return corruptibleLoose{newLoose(t, a)}
	})
}

func TestLoosePath(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"blob:sha256:c5251cf4c201ede74c8e3564dc6d02e597cbc20fbd91a84704a91179757bd008",
			"objects/blob/c5/251cf4c201ede74c8e3564dc6d02e597cbc20fbd91a84704a91179757bd008"},
		{"run:sha256:e88fa867238109c11d29405ab0f08617ac460b2c6a5e3b07d8eee65b0b0a45c6",
			"objects/run/e8/8fa867238109c11d29405ab0f08617ac460b2c6a5e3b07d8eee65b0b0a45c6"},
		{"event:blake3:49501062e21825447aa20eef34bcb3ad391102db92d76f5631714813bf6c43a7",
			"objects/event/49/501062e21825447aa20eef34bcb3ad391102db92d76f5631714813bf6c43a7"},
	} {
		got, err := objects.LoosePathString(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("LoosePathString(%s) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{
		"../../etc/passwd",
		"blob:sha256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
		"blob:sha256:../c5251cf4c201ede74c8e3564dc6d02e597cbc20fbd91a84704a91179757b",
		"",
	} {
		if _, err := objects.LoosePathString(bad); !objects.HasReason(err, objects.ReasonPathInvalidOid) {
			t.Errorf("LoosePathString(%q): %v; want path.invalid-oid", bad, err)
		}
	}
	if _, err := objects.LoosePath(objects.OID{}); !objects.HasReason(err, objects.ReasonPathInvalidOid) {
		t.Errorf("LoosePath(zero oid): %v; want path.invalid-oid", err)
	}
}

func TestLooseFileLayout(t *testing.T) {
	s := newLoose(t, objects.SHA256)
	o := objects.NewBlob(objects.SHA256, []byte("hello\n"))
	if err := s.Put(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	rel, err := objects.LoosePath(o.ID)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(filepath.Dir(s.Dir()), filepath.FromSlash(rel))
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\"encoding\":\"raw\",\"schema\":1,\"type\":\"blob\"}\nhello\n"
	if string(data) != want {
		t.Fatalf("file holds %q, want %q", data, want)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o444 {
		t.Fatalf("object file mode %v, want read-only 0444", fi.Mode().Perm())
	}
	// A second put of the same, intact object does not rewrite the file.
	if err := s.Put(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	fi2, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(fi, fi2) {
		t.Fatal("a put of a present object replaced its file")
	}
	entries, err := os.ReadDir(filepath.Dir(p))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("fan-out directory holds %d entries, want just the object", len(entries))
	}
}

func TestOpenLooseStoreRefuses(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	link := filepath.Join(dir, "link")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "missing"), file, link} {
		if _, err := loose.Open(p, objects.BLAKE3); err == nil {
			t.Errorf("Open(%s) succeeded", p)
		}
	}
	if _, err := loose.Open(dir, objects.Algo("md5")); err == nil {
		t.Error("Open with an unknown algo succeeded")
	}
}

func TestLooseTooLarge(t *testing.T) {
	s := newLoose(t, objects.BLAKE3)
	o := objects.NewBlob(objects.BLAKE3, []byte("will grow"))
	if err := s.Put(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	p, _ := s.Path(o.ID)
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	// A sparse file: the size check must come before any allocation.
	if err := os.Truncate(p, objects.MaxLooseObjectSize+1); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(t.Context(), o.ID); !errors.Is(err, objects.ErrObjectTooLarge) {
		t.Fatalf("Get of an oversized file: %v; want ErrObjectTooLarge", err)
	}
	// Put replaces the damaged copy.
	if err := s.Put(t.Context(), o); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(t.Context(), o.ID)
	if err != nil || !bytes.Equal(got.Body, o.Body) {
		t.Fatalf("Get after repair put: %v", err)
	}
}

func TestLooseStreamBlob(t *testing.T) {
	for _, a := range []objects.Algo{objects.BLAKE3, objects.SHA256} {
		s := newLoose(t, a)
		data := bytes.Repeat([]byte("0123456789abcdef\n\x00"), 200_000) // 3.6 MB, several buffers
		id, err := s.PutBlobFrom(t.Context(), bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if want := objects.NewBlob(a, data).ID; id != want {
			t.Fatalf("PutBlobFrom id %s, want %s", id, want)
		}
		if id2, err := s.PutBlobFrom(t.Context(), bytes.NewReader(data)); err != nil || id2 != id {
			t.Fatalf("second PutBlobFrom = %s, %v", id2, err)
		}
		got, err := s.Get(t.Context(), id)
		if err != nil || !bytes.Equal(got.Body, data) {
			t.Fatalf("Get of streamed blob: %v", err)
		}
		rc, size, err := s.OpenBlob(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if _, err := buf.ReadFrom(rc); err != nil {
			t.Fatal(err)
		}
		rc.Close()
		if size != int64(len(data)) || !bytes.Equal(buf.Bytes(), data) {
			t.Fatalf("OpenBlob: size %d, %d bytes read; want %d", size, buf.Len(), len(data))
		}
		if err := (corruptibleLoose{s}).Corrupt(id); err != nil {
			t.Fatal(err)
		}
		rc, _, err = s.OpenBlob(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		_, err = buf.ReadFrom(rc)
		rc.Close()
		if !objects.HasReason(err, objects.ReasonEnvelopeOidMismatch) {
			t.Fatalf("reading a corrupt streamed blob: %v; want envelope.oid-mismatch", err)
		}
		// A stream put of the right content repairs the damaged copy.
		if _, err := s.PutBlobFrom(t.Context(), bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Get(t.Context(), id); err != nil {
			t.Fatalf("Get after repair: %v", err)
		}
		assertNoTemp(t, s)
	}
}

// assertNoTemp fails if any temporary file is left in the store.
func assertNoTemp(t *testing.T, s *loose.Store) {
	t.Helper()
	n, err := s.RemoveStaleTemp(context.Background(), farFuture)
	if err != nil || n != 0 {
		t.Fatalf("%d temporary files left behind (%v)", n, err)
	}
}

// failingReader returns some bytes, then an error.
type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n > 0 {
		k := min(len(p), r.n)
		r.n -= k
		return k, nil
	}
	return 0, errors.New("source failed")
}

func TestLooseSizeLimitAndFailedStream(t *testing.T) {
	s := newLoose(t, objects.BLAKE3)
	ctx := t.Context()
	s.SetMaxSize(100)
	small := objects.NewBlob(objects.BLAKE3, bytes.Repeat([]byte("s"), 10))
	big := objects.NewBlob(objects.BLAKE3, bytes.Repeat([]byte("b"), 100))
	if err := s.Put(ctx, small); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(ctx, big); !errors.Is(err, objects.ErrObjectTooLarge) {
		t.Fatalf("Put over the limit: %v; want ErrObjectTooLarge", err)
	}
	if _, err := s.PutBlobFrom(ctx, bytes.NewReader(big.Body)); !errors.Is(err, objects.ErrObjectTooLarge) {
		t.Fatalf("PutBlobFrom over the limit: %v; want ErrObjectTooLarge", err)
	}
	if _, err := s.PutBlobFrom(ctx, &failingReader{n: 20}); err == nil || !strings.Contains(err.Error(), "source failed") {
		t.Fatalf("PutBlobFrom of a failing reader: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.PutBlobFrom(cancelled, bytes.NewReader(small.Body)); !errors.Is(err, context.Canceled) {
		t.Fatalf("PutBlobFrom with a cancelled context: %v", err)
	}
	assertNoTemp(t, s)
	if ids := listIDs(t, s); len(ids) != 1 || ids[0] != small.ID {
		t.Fatalf("List = %v, want only %s", ids, small.ID)
	}
	// A file grown past the limit on disk is refused on read.
	s.SetMaxSize(40)
	if _, err := s.Get(ctx, small.ID); !errors.Is(err, objects.ErrObjectTooLarge) {
		t.Fatalf("Get over the limit: %v; want ErrObjectTooLarge", err)
	}
}
