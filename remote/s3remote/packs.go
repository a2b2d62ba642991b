package s3remote

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/pack"
	"github.com/tinehq/tine/remote"
)

// packsDir is the key directory of packs: packs/pack-H.pack and its index
// packs/pack-H.idx.
const packsDir = "packs/"

// maxPackBytes bounds a pack upload and download: one S3 PUT holds at most
// 5 GiB.
const maxPackBytes = 5 << 30

// indexReaders is how many pack indexes a listing reads at once.
const indexReaders = 8

// packIndex is what the remote's packs hold, from their indexes: which
// pack holds each object.
type packIndex struct {
	where  map[objects.OID]string
	idx    map[string][]byte // index bytes, for installing a downloaded pack
	assocs []objects.OID     // attestations and annotations, for Associations
}

// has reports whether some pack holds id.
func (p *packIndex) has(id objects.OID) bool { _, ok := p.where[id]; return ok }

// loadPacks lists packs/ and reads every index it has not read yet. Only
// packs with an index count: the index is written after the pack, so a
// pack whose upload was cut (or whose index is still on its way) is
// invisible, and harmless. The result is a snapshot, never modified
// afterwards (a later load builds a new one), so callers read it without
// a lock while other goroutines load.
func (t *Transport) loadPacks(ctx context.Context) (*packIndex, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.packs == nil {
		t.packs = &packIndex{where: map[objects.OID]string{}, idx: map[string][]byte{}}
	}
	var todo []string
	err := t.b.list(ctx, packsDir, func(rel, _ string, _ int64) error {
		name, ok := strings.CutSuffix(strings.TrimPrefix(rel, packsDir), ".idx")
		if ok && validPackName(name) && t.packs.idx[name] == nil {
			todo = append(todo, name)
		}
		return nil // a pack file, or a key that is not ours
	})
	if err != nil {
		return nil, err
	}
	type loaded struct {
		data []byte
		ids  []objects.OID
	}
	got := make([]loaded, len(todo))
	errs := make([]error, len(todo))
	sem := make(chan struct{}, indexReaders)
	var wg sync.WaitGroup
	for i, name := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			var l loaded
			l.data, l.ids, errs[i] = t.readIndex(ctx, name)
			got[i] = l
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(todo) == 0 {
		return t.packs, nil
	}
	next := &packIndex{where: maps.Clone(t.packs.where), idx: maps.Clone(t.packs.idx), assocs: slices.Clone(t.packs.assocs)}
	for i, name := range todo {
		next.idx[name] = got[i].data
		for _, id := range got[i].ids {
			if _, dup := next.where[id]; dup {
				continue
			}
			next.where[id] = name
			if id.Type == objects.TypeAttestation || id.Type == objects.TypeAnnotation {
				next.assocs = append(next.assocs, id)
			}
		}
	}
	t.packs = next
	return next, nil
}

// knownPacks returns the last snapshot, loading one if there is none. The
// packs a remote holds only ever grow (they are immutable and nothing
// deletes them), so an older snapshot can only under-report: what it
// calls missing is at worst uploaded again, never lost.
func (t *Transport) knownPacks(ctx context.Context) (*packIndex, error) {
	t.mu.Lock()
	pi := t.packs
	t.mu.Unlock()
	if pi != nil {
		return pi, nil
	}
	return t.loadPacks(ctx)
}

// readIndex reads and validates pack name's index.
func (t *Transport) readIndex(ctx context.Context, name string) ([]byte, []objects.OID, error) {
	data, _, err := t.b.get(ctx, packsDir+name+".idx", pack.MaxIndexBytes)
	if err != nil {
		return nil, nil, err
	}
	ids, err := pack.ReadIndex(name, data, t.algo)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w: %w", t.url, ErrRemoteCorrupt, err)
	}
	return data, ids, nil
}

// validPackName reports whether s is "pack-<64 lowercase hex>".
func validPackName(s string) bool {
	h, ok := strings.CutPrefix(s, "pack-")
	if !ok || len(h) != 64 {
		return false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// stagedPack is a push's pack, written in a temporary directory before
// anything is uploaded.
type stagedPack struct {
	dir  string
	name string // "" when there is nothing to send
	in   map[objects.OID]bool
}

// remove deletes the temporary directory.
func (sp *stagedPack) remove() {
	if sp.dir != "" {
		os.RemoveAll(sp.dir)
	}
}

// stagePack writes the listed objects the remote lacks into one storage
// pack (objects/pack's writer), one object in memory at a time, checking
// that every link of each is earlier in the pack or on the remote: a push
// never leaves a dangling link behind.
func (t *Transport) stagePack(ctx context.Context, req remote.PushRequest, ids []objects.OID, pi *packIndex) (_ *stagedPack, err error) {
	sp := &stagedPack{in: map[objects.OID]bool{}}
	var w *pack.Writer
	defer func() {
		// A refused push leaves nothing behind: not the pack's open
		// file, the goroutine writing its blocks or its directory.
		if err != nil {
			if w != nil {
				w.Abort()
			}
			sp.remove()
		}
	}()
	for _, id := range ids {
		if sp.in[id] || pi.has(id) {
			continue
		}
		o, err := req.Set.Object(ctx, req.Source, id)
		if err != nil {
			return sp, fmt.Errorf("push: %w", err)
		}
		links, err := objects.Links(o)
		if err != nil {
			return sp, fmt.Errorf("push: %w", err)
		}
		for _, l := range links {
			if !sp.in[l] && !pi.has(l) {
				return sp, fmt.Errorf("%s: push: %w: %s links to %s, which is neither pushed before it nor on the remote", t.url, remote.ErrIncomplete, o.ID, l)
			}
		}
		if w == nil {
			if sp.dir, err = os.MkdirTemp("", "tine-s3-push-"); err != nil {
				return sp, err
			}
			if w, err = pack.NewWriter(sp.dir, t.algo, pack.Options{}); err != nil {
				return sp, err
			}
		}
		if err := w.Add(o); err != nil {
			return sp, err
		}
		sp.in[id] = true
	}
	if w == nil {
		return sp, nil
	}
	name, err := w.Commit()
	if err != nil {
		return sp, err
	}
	sp.name = name
	return sp, nil
}

// upload sends a staged pack: the pack, then the index, each with
// If-None-Match: * (a pack is named by its content, so finding it already
// there is success). The index goes last because readers only see packs
// with an index. It returns the bytes sent.
func (t *Transport) upload(ctx context.Context, sp *stagedPack) (int64, error) {
	var sent int64
	for _, ext := range []string{".pack", ".idx"} {
		n, err := t.putFile(ctx, packsDir+sp.name+ext, filepath.Join(sp.dir, sp.name+ext))
		switch {
		case errors.Is(err, errPrecondition):
			// Already there, byte for byte: an earlier push of the same
			// objects (perhaps killed before its ref moved).
		case err != nil:
			return sent, fmt.Errorf("%s: upload %s%s: %w", t.url, sp.name, ext, err)
		default:
			sent += n
		}
	}
	return sent, nil
}

// putFile uploads a local file to key rel with If-None-Match: *.
func (t *Transport) putFile(ctx context.Context, rel, path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if fi.Size() > maxPackBytes {
		return 0, fmt.Errorf("%w: %d bytes, one S3 PUT holds at most %d: push fewer runs at once", ErrTooLarge, fi.Size(), int64(maxPackBytes))
	}
	_, err = t.b.putCond(ctx, rel, f, fi.Size(), "")
	if err != nil && !errors.Is(err, errPrecondition) {
		// A key named by its content that is already there (a push killed
		// before its ref moved) may be answered 412 before its body is
		// read, and a server that then closes the connection makes the
		// client's write fail (a connection reset) where it should have
		// read the 412. Whether the key is there, whole, decides.
		if n, herr := t.b.size(ctx, rel); herr == nil && n == fi.Size() {
			return 0, errPrecondition
		}
	}
	return fi.Size(), err
}

// downloadPack fetches pack name into dir (its index from idx), so a
// pack.Store over dir can read it. The pack is written under a temporary
// name and renamed, the index after it: the store never sees a half pack.
//
// Neither file is fsynced, and the index is written in place: dir is
// scratch, not storage. It is a fresh os.MkdirTemp of one fetch
// (newPackSource), removed when the fetch ends, and nothing ever opens it
// again, so a crash can leave only an orphan under the system's temp
// directory, never a file a later read trusts. Within the fetch every
// read verifies: packSource.ensure checks the index against the pack
// (Damaged, which re-verifies the index's hash and its binding to the
// pack's trailer) before the first read, and the store re-hashes every
// object it returns. What the fetch keeps is written by the receiving
// repository's own crash-safe writers.
func (t *Transport) downloadPack(ctx context.Context, dir, name string, idx []byte) (int64, error) {
	tmp, err := os.CreateTemp(dir, "download-*")
	if err != nil {
		return 0, err
	}
	defer os.Remove(tmp.Name())
	err = t.b.getToFile(ctx, packsDir+name+".pack", tmp, maxPackBytes)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("%s: download %s: %w", t.url, name, err)
	}
	fi, err := os.Stat(tmp.Name())
	if err != nil {
		return 0, err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, name+".pack")); err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".idx"), idx, 0o600); err != nil {
		return 0, err
	}
	return fi.Size() + int64(len(idx)), nil
}
