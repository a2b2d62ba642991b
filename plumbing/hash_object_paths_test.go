package plumbing

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/combined"
	"github.com/tinehq/tine/objects/loose"
	"github.com/tinehq/tine/objects/pack"
)

// writeFiles creates n distinct small JSON files and returns their paths.
func writeFiles(t testing.TB, dir string, n int) []string {
	t.Helper()
	paths := make([]string, n)
	for i := range paths {
		paths[i] = filepath.Join(dir, fmt.Sprintf("f%06d.json", i))
		body := fmt.Sprintf(`{"i":%d,"pad":%q}`, i, strings.Repeat("x", 900))
		if err := os.WriteFile(paths[i], []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return paths
}

// hashPaths runs HashObjectPaths over paths and returns the emitted oids.
func hashPaths(t testing.TB, r *Repo, opt HashPathsOptions, paths []string) ([]HashedObject, *HashPathsResult, error) {
	t.Helper()
	opt.Paths = strings.NewReader(strings.Join(paths, "\n") + "\n")
	var got []HashedObject
	res, err := HashObjectPaths(context.Background(), r, opt, func(h HashedObject) error {
		got = append(got, h)
		return nil
	})
	return got, res, err
}

func TestHashObjectPathsWritesEveryFileInOrder(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		paths := writeFiles(t, t.TempDir(), 1000)
		got, res, err := hashPaths(t, r, HashPathsOptions{Write: true, Bulk: BulkOptions{MaxObjects: 300}}, paths)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1000 || res.Objects != 1000 {
			t.Fatalf("emitted %d (result %d), want 1000", len(got), res.Objects)
		}
		if res.Written.Batches != 4 || res.Written.Objects != 1000 {
			t.Errorf("written %+v, want 1000 objects in 4 batches", res.Written)
		}
		for i, h := range got {
			data, err := os.ReadFile(paths[i])
			if err != nil {
				t.Fatal(err)
			}
			want := objects.NewBlob(r.Algo(), data).ID
			if h.Source != paths[i] || h.OID != want.String() || !h.Written {
				t.Fatalf("input %d: got %+v, want %s for %s", i, h, want, paths[i])
			}
			o, err := r.Objects().Get(context.Background(), want)
			if err != nil || !bytes.Equal(o.Body, data) {
				t.Fatalf("stored %s: %v", want, err)
			}
		}
	})
}

func TestHashObjectPathsWithoutWriteStoresNothing(t *testing.T) {
	paths := writeFiles(t, t.TempDir(), 50)
	got, _, err := hashPaths(t, nil, HashPathsOptions{ObjectFormat: objects.SHA256}, paths)
	if err != nil || len(got) != 50 {
		t.Fatalf("got %d, %v", len(got), err)
	}
	data, _ := os.ReadFile(paths[7])
	if got[7].OID != objects.NewBlob(objects.SHA256, data).ID.String() || got[7].Written {
		t.Errorf("input 7: %+v", got[7])
	}
	if _, _, err := hashPaths(t, nil, HashPathsOptions{Write: true}, paths); !errors.Is(err, ErrNoRepository) {
		t.Errorf("write without repository: %v", err)
	}
}

// A missing file stops the run: every input before it is stored and
// emitted, none after it is written.
func TestHashObjectPathsStopsAtFirstFailure(t *testing.T) {
	r := newRepo(t, objects.BLAKE3)
	paths := writeFiles(t, t.TempDir(), 400)
	bad := filepath.Join(t.TempDir(), "missing.json")
	paths = append(paths[:250:250], append([]string{bad}, paths[250:]...)...)
	got, _, err := hashPaths(t, r, HashPathsOptions{Write: true, Bulk: BulkOptions{MaxObjects: 100}}, paths)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing.json (line 251)") {
		t.Fatalf("error %v, want the missing file named with its line", err)
	}
	if len(got) != 250 {
		t.Fatalf("emitted %d, want the 250 inputs before the failure", len(got))
	}
	for i, p := range paths {
		if i == 250 {
			continue
		}
		data, _ := os.ReadFile(p)
		has, err := r.Objects().Has(context.Background(), objects.NewBlob(r.Algo(), data).ID)
		if err != nil || has != (i < 250) {
			t.Fatalf("input %d stored=%v (%v), want %v", i, has, err, i < 250)
		}
	}
}

func TestHashObjectPathsRefusesEmptyLine(t *testing.T) {
	r := newRepo(t, objects.BLAKE3)
	paths := writeFiles(t, t.TempDir(), 3)
	opt := HashPathsOptions{Write: true, Paths: strings.NewReader(paths[0] + "\n\n" + paths[1] + "\n")}
	n := 0
	_, err := HashObjectPaths(context.Background(), r, opt, func(HashedObject) error { n++; return nil })
	if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "line 2: empty path") || n != 1 {
		t.Fatalf("emitted %d, err %v", n, err)
	}
}

// Files over the inline limit are streamed, with the same oid as a whole
// read, and events are validated against the inputs before them.
func TestHashObjectPathsStreamsLargeAndValidatesEvents(t *testing.T) {
	r := newRepo(t, objects.SHA256)
	dir := t.TempDir()
	big := bytes.Repeat([]byte("0123456789abcdef"), (inlineMax/16)+100)
	bigPath := filepath.Join(dir, "big.bin")
	if err := os.WriteFile(bigPath, big, 0o644); err != nil {
		t.Fatal(err)
	}
	small := writeFiles(t, dir, 3)
	got, res, err := hashPaths(t, r, HashPathsOptions{Write: true}, []string{small[0], bigPath, small[1]})
	if err != nil {
		t.Fatal(err)
	}
	want := objects.NewBlob(r.Algo(), big).ID.String()
	if len(got) != 3 || got[1].OID != want || got[1].Size != len(big) || res.Written.Streamed != 1 {
		t.Fatalf("got %+v / %+v, want big blob %s streamed", got, res.Written, want)
	}

	ev := filepath.Join(dir, "ev.json")
	parent := objects.NewBlob(r.Algo(), []byte("unknown")).ID
	os.WriteFile(ev, fmt.Appendf(nil, `{"kind":"model","parent_ids":["%s"]}`, parent), 0o644)
	_, _, err = hashPaths(t, r, HashPathsOptions{Write: true, Type: objects.TypeEvent}, []string{ev})
	if err == nil || !strings.Contains(err.Error(), "ev.json (line 1)") {
		t.Fatalf("event linking to a missing object: %v", err)
	}
}

// With a pack-writing store, a batch becomes one storage pack.
func TestHashObjectPathsIntoCombinedStore(t *testing.T) {
	r := newRepo(t, objects.BLAKE3)
	cs := combinedStore(t, r)
	paths := writeFiles(t, t.TempDir(), 500)
	got, res, err := hashPaths(t, r, HashPathsOptions{Write: true, Store: cs}, paths)
	if err != nil || len(got) != 500 || res.Written.Batches != 1 {
		t.Fatalf("got %d, %+v, %v", len(got), res.Written, err)
	}
	if n := len(packNames(t, cs)); n != 1 {
		t.Fatalf("%d packs, want 1", n)
	}
	id, _ := objects.ParseOID(got[499].OID)
	if _, err := cs.Get(context.Background(), id); err != nil {
		t.Fatal(err)
	}
}

// combinedStore opens the loose store and storage packs of r together.
func combinedStore(t testing.TB, r *Repo) *combined.Store {
	t.Helper()
	loose, err := loose.Open(filepath.Join(r.Root(), "objects"), r.Algo())
	if err != nil {
		t.Fatal(err)
	}
	packs, err := pack.Open(filepath.Join(r.Root(), "objects", "pack"), r.Algo())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { packs.Close() })
	cs, err := combined.New(loose, packs)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
