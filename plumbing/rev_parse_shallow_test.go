package plumbing

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// TestShallowRevisions: an oid or prefix naming only shallow ids is
// ErrBeyondShallow, never resolved; a prefix also matching a stored object
// names that object (the shallow ids are not objects here); a full oid of
// another type, or an id not listed, stays unknown.
func TestShallowRevisions(t *testing.T) {
	ctx := context.Background()
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		stored := putEvent(t, r, "stored")
		hex := stored.Hex()
		twin := objects.OID{Type: objects.TypeEvent, Algo: r.Algo()}
		copy(twin.Digest[:], stored.Digest[:])
		twin.Digest[31] ^= 0xff // shares the stored event's prefix
		lone := objects.OID{Type: objects.TypeEvent, Algo: r.Algo(), Digest: [32]byte{0xab, 0xcd, 0x01}}
		lone2 := objects.OID{Type: objects.TypeRun, Algo: r.Algo(), Digest: [32]byte{0xab, 0xcd, 0x02}}
		writeFile(t, filepath.Join(r.Root(), "shallow"), refs.EncodeShallow([]objects.OID{twin, lone, lone2}))
		for _, tc := range []struct {
			rev     string
			want    objects.OID
			shallow bool
		}{
			{rev: hex[:8], want: stored},
			{rev: twin.Hex(), shallow: true},
			{rev: twin.String(), shallow: true},
			{rev: "abcd01", shallow: true},
			{rev: "abcd", shallow: true}, // two shallow ids
			{rev: objects.OID{Type: objects.TypeRun, Algo: r.Algo(), Digest: lone.Digest}.String()},
			{rev: "abcd03"},
		} {
			id, err := r.Resolve(ctx, tc.rev)
			switch {
			case !tc.want.IsZero():
				if err != nil || id != tc.want {
					t.Errorf("%s: %v %v, want %s", tc.rev, id, err, tc.want)
				}
			case tc.shallow:
				if !errors.Is(err, ErrBeyondShallow) || errors.Is(err, ErrUnknownRevision) {
					t.Errorf("%s: %v, want beyond the shallow boundary", tc.rev, err)
				}
			default:
				if !errors.Is(err, ErrUnknownRevision) || errors.Is(err, ErrBeyondShallow) {
					t.Errorf("%s: %v, want unknown", tc.rev, err)
				}
			}
		}
		if _, err := r.Resolve(ctx, "abcd"); err == nil || !strings.Contains(err.Error(), lone.String()) || !strings.Contains(err.Error(), lone2.String()) {
			t.Errorf("abcd: %v, want both shallow ids named", err)
		}
	})
}

// TestCatObjectBatchSkipsShallowFile: cat-object --batch reports an id on
// the shallow boundary missing, as any other, without reading the shallow
// file once a query (a blake3 one may be 16 MB; parsing it for each
// unknown prefix or unlisted oid of a stream made the batch crawl).
func TestCatObjectBatchSkipsShallowFile(t *testing.T) {
	r := newRepo(t, objects.BLAKE3)
	lone := objects.OID{Type: objects.TypeEvent, Algo: r.Algo(), Digest: [32]byte{0xab, 0xcd, 0x01}}
	writeFile(t, filepath.Join(r.Root(), "shallow"), refs.EncodeShallow([]objects.OID{lone}))
	var reads atomic.Int64 // the batch's workers run at once
	readShallowHook = func() { reads.Add(1) }
	defer func() { readShallowHook = nil }()
	var in strings.Builder
	for i := 0; i < 50; i++ {
		in.WriteString("abcd01\nabcd02\nabcd01~1\n")
		// Full oids, listed and not: the store's read of an unlisted
		// miss confirms it against the file, which the batch need not.
		other := lone
		other.Digest[5] = byte(i)
		in.WriteString(lone.String() + "\n" + other.String() + "\n")
	}
	got, res, err := batchOutput(t, r, in.String())
	if err != nil {
		t.Fatal(err)
	}
	if res.Missing != 250 || strings.Count(got, " missing\n") != 250 {
		t.Fatalf("batch: %+v\n%s", res, got)
	}
	if n := reads.Load(); n != 0 {
		t.Errorf("the batch read the shallow file %d times, want none", n)
	}
	if _, err := r.Resolve(context.Background(), "abcd01"); !errors.Is(err, ErrBeyondShallow) || reads.Load() != 1 {
		t.Errorf("a single revision: %v after %d reads, want it named beyond the boundary after one", err, reads.Load())
	}
}

// TestReflogRowBeyondShallow: REF@{n} whose row names an object the
// shallow file lists is ErrBeyondShallow, saying what brings the object,
// as an oid or prefix naming it is; a row naming an object that is gone
// and not listed stays an unknown revision. cat-object --batch reports
// both missing without reading the shallow file.
func TestReflogRowBeyondShallow(t *testing.T) {
	ctx := context.Background()
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		// tags/cut moved from old to its child new, then a fetch of depth
		// 1 would have stored new alone and listed old on the boundary:
		// remove old and list it.
		old := putEvent(t, r, "old")
		setRef(t, r, "tags/cut", old)
		setRef(t, r, "tags/cut", putEvent(t, r, "new", old))
		gone := putEvent(t, r, "gone")
		setRef(t, r, "tags/gone", gone)
		setRef(t, r, "tags/gone", putEvent(t, r, "kept"))
		for _, id := range []objects.OID{old, gone} {
			if err := os.Remove(objectFile(t, r, id)); err != nil {
				t.Fatal(err)
			}
		}
		writeFile(t, filepath.Join(r.Root(), "shallow"), refs.EncodeShallow([]objects.OID{old}))

		_, err := r.Resolve(ctx, "tags/cut@{1}")
		if !errors.Is(err, ErrBeyondShallow) || errors.Is(err, ErrUnknownRevision) {
			t.Fatalf("tags/cut@{1}: %v, want beyond the shallow boundary", err)
		}
		want := `revision "tags/cut@{1}": object ` + old.String() + " is not stored: " + ErrBeyondShallow.Error()
		if err.Error() != want {
			t.Errorf("tags/cut@{1}: %q, want %q", err, want)
		}
		_, err = r.Resolve(ctx, "tags/gone@{1}")
		if !errors.Is(err, ErrUnknownRevision) || errors.Is(err, ErrBeyondShallow) || !strings.Contains(err.Error(), gone.String()+" is no longer stored") {
			t.Errorf("tags/gone@{1}: %v, want unknown, naming the object", err)
		}

		var reads atomic.Int64
		readShallowHook = func() { reads.Add(1) }
		defer func() { readShallowHook = nil }()
		got, res, err := batchOutput(t, r, "tags/cut@{1}\ntags/gone@{1}\n")
		if err != nil || res.Missing != 2 {
			t.Fatalf("batch: %+v %v\n%s", res, err, got)
		}
		if n := reads.Load(); n != 0 {
			t.Errorf("the batch read the shallow file %d times, want none", n)
		}
	})
}
