package pack

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/tinehq/tine/objects"
)

// spPack is one open storage pack: its index and the pack file, read with
// ReadAt so concurrent readers need no lock.
type spPack struct {
	dir  string
	name string // "pack-<hex>"
	algo objects.Algo
	idx  *spIndex
	f    *os.File
	size int64
	// data is the index file's bytes (mapped, for a pack a Store opened
	// lazily), unmap releases a mapping.
	data  []byte
	unmap func() error
	// trust is the index's full verification, run once (index_trust.go).
	trust spTrust
	// cache is the owning store's decoded-block cache, nil for a pack
	// opened alone (Verify, Walk of a pack the store does not hold).
	cache *spBlockCache
	// dcache holds envelopes rebuilt from delta blocks (delta_read.go).
	dcache *spDeltaCache
	// store finds the bases of deltas an append based on other packs
	// (delta_read.go); nil for a pack read without its store.
	store *Store
	// holds counts the walks using the pack (Store.Walk), which keep a
	// retired pack open (reload.go).
	holds atomic.Int32
}

// openSPPack opens the pack name ("pack-<hex>") in dir and validates its
// index in full: checksum, order, every entry's bounds.
func openSPPack(dir, name string, a objects.Algo) (*spPack, error) {
	base := filepath.Join(dir, name)
	data, err := readSPIndexFile(base + ".idx")
	if err != nil {
		return nil, err
	}
	p, err := openSPPackWith(dir, name, a, data, nil)
	if err != nil {
		return nil, err
	}
	if err := p.verifyIndex(); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// openSPPackLazy opens the pack name in dir with its index mapped, not
// read, and checks only what every lookup relies on (header, length,
// fan-out, the pack it binds); the rest of the index is verified when
// something trusts more than a found entry (index_trust.go).
func openSPPackLazy(dir, name string, a objects.Algo) (*spPack, error) {
	data, unmap, err := mapSPIndexFile(filepath.Join(dir, name) + ".idx")
	if err != nil {
		return nil, err
	}
	p, err := openSPPackWith(dir, name, a, data, unmap)
	if err != nil {
		unmap()
		return nil, err
	}
	return p, nil
}

// openSPPackWith opens the pack file of name and checks it against the
// index bytes data with the shallow index checks.
func openSPPackWith(dir, name string, a objects.Algo, data []byte, unmap func() error) (*spPack, error) {
	base := filepath.Join(dir, name)
	idx, err := parseSPIndexShallow(data, a)
	if err != nil {
		return nil, corruptFile(base+".idx", err)
	}
	if name != "pack-"+hex.EncodeToString(idx.packSum[:]) {
		return nil, corruptFile(base+".idx", errors.New("names another pack"))
	}
	f, size, err := openPlain(base + ".pack")
	if err != nil {
		return nil, fmt.Errorf("storage pack %s: %w", base+".pack", err)
	}
	p := &spPack{dir: dir, name: name, algo: a, idx: idx, f: f, size: size, data: data, unmap: unmap, dcache: newSPDeltaCache()}
	if err := p.checkEnds(); err != nil {
		f.Close()
		return nil, corruptFile(base+".pack", err)
	}
	return p, nil
}

// close closes the pack file and unmaps its index.
func (p *spPack) close() error {
	err := p.f.Close()
	if p.unmap != nil {
		err = errors.Join(err, p.unmap())
		p.unmap = nil
	}
	return err
}

// checkEnds validates the pack's header and trailer against its index
// (each entry's block bounds are checkPack's, index_trust.go).
func (p *spPack) checkEnds() error {
	if p.size < spPackHeader+spSumSize {
		return errors.New("truncated")
	}
	var hdr [spPackHeader]byte
	var sum [spSumSize]byte
	if _, err := p.f.ReadAt(hdr[:], 0); err != nil {
		return err
	}
	if _, err := p.f.ReadAt(sum[:], p.size-spSumSize); err != nil {
		return err
	}
	if err := checkSPHeader(hdr[:], spPackMagic, p.algo); err != nil {
		return err
	}
	if sum != p.idx.packSum {
		return errors.New("trailer does not match its index")
	}
	return nil
}

// readSPIndexFile reads an index file after the path confinement checks,
// refusing one too large to be an index before reading it.
func readSPIndexFile(path string) ([]byte, error) {
	f, size, err := openPlain(path)
	if err != nil {
		return nil, fmt.Errorf("storage pack index %s: %w", path, err)
	}
	defer f.Close()
	if size > spIndexOverhead+int64(MaxObjects)*spEntrySize {
		return nil, corruptFile(path, fmt.Errorf("%d bytes is too large", size))
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("storage pack index %s: %w", path, err)
	}
	return data, nil
}

// openPlain opens a regular file that is not a symlink or hard link
// (SPEC §2.1 path confinement) and returns it with its size. Pack files are
// named by their content, so a concurrent writer of the same pack may
// rename an identical file over this one between the check and the open;
// that is retried a few times.
func openPlain(path string) (*os.File, int64, error) {
	for try := 1; ; try++ {
		f, size, swapped, err := openPlainOnce(path)
		if !swapped || try == 4 {
			return f, size, err
		}
	}
}

// openPlainOnce is one attempt of openPlain.
func openPlainOnce(path string) (f *os.File, size int64, swapped bool, err error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, 0, false, err
	}
	if err := objects.CheckPlainFile(fi); err != nil {
		return nil, 0, false, err
	}
	if f, err = os.Open(path); err != nil {
		return nil, 0, false, err
	}
	fi2, err := f.Stat()
	if err == nil && !os.SameFile(fi, fi2) {
		swapped = true
		err = fmt.Errorf("changed while being opened: %w", objects.ErrUnsafeFile)
	}
	if err != nil {
		f.Close()
		return nil, 0, swapped, err
	}
	return f, fi2.Size(), false, nil
}

// corruptFile wraps a structural error of a pack or index file.
func corruptFile(path string, err error) error {
	return fmt.Errorf("%s: %w: %w", path, ErrCorrupt, err)
}
