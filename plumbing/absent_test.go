package plumbing

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// TestAbsentShallowOrDamage: a read that misses is beyond the shallow
// boundary only for an oid the shallow file lists, whatever else the
// file lists; without the file, or with the oid not in it, Absent calls
// the miss damage, naming the oid. A rewritten shallow file is read
// again, not served from the cache.
func TestAbsentShallowOrDamage(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		ctx := context.Background()
		lost := jsonObject(t, r.Algo(), objects.TypeEvent, `{"kind":"tool","seq":1}`).ID
		other := jsonObject(t, r.Algo(), objects.TypeEvent, `{"kind":"tool","seq":2}`).ID
		stored := putEvent(t, r, "stored")
		path := filepath.Join(r.Root(), "shallow")
		writeShallow := func(ids ...objects.OID) {
			t.Helper()
			if err := os.WriteFile(path, refs.EncodeShallow(ids), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		damaged := func(when string) {
			t.Helper()
			_, err := r.Objects().Get(ctx, lost)
			if !errors.Is(err, objects.ErrNotFound) || errors.Is(err, ErrBeyondShallow) {
				t.Fatalf("%s: Get = %v, want not found and not beyond the boundary", when, err)
			}
			aerr := Absent(lost, err)
			var me *MissingError
			if !errors.As(aerr, &me) || me.ID != lost || !errors.Is(aerr, ErrObjectMissing) {
				t.Fatalf("%s: Absent = %v, want a *MissingError for %s", when, aerr, lost)
			}
			if errors.Is(aerr, objects.ErrNotFound) {
				t.Fatalf("%s: Absent = %v wraps ErrNotFound: damage would read as absence", when, aerr)
			}
			for _, w := range []string{lost.String(), "is missing", "damaged", "tine fsck"} {
				if !strings.Contains(aerr.Error(), w) {
					t.Errorf("%s: %q does not say %q", when, aerr, w)
				}
			}
		}
		damaged("no shallow file")
		writeShallow(other)
		damaged("shallow file without the oid")
		writeShallow(other, lost)
		_, err := r.Objects().Get(ctx, lost)
		if !errors.Is(err, objects.ErrNotFound) || !errors.Is(err, ErrBeyondShallow) {
			t.Fatalf("listed oid: Get = %v, want not found, beyond the boundary", err)
		}
		if aerr := Absent(lost, err); aerr != nil {
			t.Fatalf("listed oid: Absent = %v, want nil", aerr)
		}
		if _, err := objects.GetUnparsed(ctx, r.Objects(), lost); !errors.Is(err, ErrBeyondShallow) {
			t.Fatalf("listed oid: GetUnparsed = %v, want beyond the boundary", err)
		}
		if _, err := r.Objects().Get(ctx, stored); err != nil {
			t.Fatalf("stored object: %v", err)
		}
		writeShallow(other)
		damaged("shallow file rewritten without the oid")
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		damaged("shallow file removed")
		if err := os.WriteFile(path, []byte("nonsense\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = r.Objects().Get(ctx, lost)
		if errors.Is(err, ErrBeyondShallow) || !strings.Contains(err.Error(), "shallow file") {
			t.Fatalf("invalid shallow file: Get = %v, want the miss unexplained and the file named", err)
		}
	})
}

// TestAbsentPassesOtherErrors: an error that is not a miss is returned
// as it is.
func TestAbsentPassesOtherErrors(t *testing.T) {
	id := objects.OID{Type: objects.TypeEvent, Algo: objects.BLAKE3}
	if err := Absent(id, nil); err != nil {
		t.Fatalf("Absent(nil) = %v", err)
	}
	if err := Absent(id, context.Canceled); err != context.Canceled {
		t.Fatalf("Absent(canceled) = %v", err)
	}
}

// TestShallowCacheRewriteKeepingItsStat: a shallow file rewritten with
// the same inode, size and modification time (what a reused inode within
// one clock tick looks like) is read again before a miss is called
// damage, so a newly listed oid is on the boundary.
func TestShallowCacheRewriteKeepingItsStat(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		ctx := context.Background()
		a := jsonObject(t, r.Algo(), objects.TypeEvent, `{"kind":"tool","seq":1}`).ID
		b := jsonObject(t, r.Algo(), objects.TypeEvent, `{"kind":"tool","seq":2}`).ID
		path := filepath.Join(r.Root(), "shallow")
		if err := os.WriteFile(path, refs.EncodeShallow([]objects.OID{a}), 0o644); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Objects().Get(ctx, b); errors.Is(err, ErrBeyondShallow) {
			t.Fatal("an unlisted oid read as on the boundary")
		}
		if err := os.WriteFile(path, refs.EncodeShallow([]objects.OID{b}), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Objects().Get(ctx, b); !errors.Is(err, ErrBeyondShallow) {
			t.Fatalf("a miss of a newly listed oid after a same-stat rewrite: %v", err)
		}
	})
}
