package index

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gofrs/flock"
	"github.com/tinehq/tine/internal/fsutil"
)

// The catalog's layers live in LayerDir: a chain file naming the base
// file (by its checksum) and the layers on top of it, oldest first; the
// layers, immutable and named by the SHA-256 of their bytes; and the
// writers' lock (doc.go has the formats).

const (
	// LayerDir places the catalog's layers relative to the repository
	// directory, beside the catalog file.
	LayerDir       = Dir + "/layers"
	layerChainFile = "chain"
	layerLockFile  = "lock"
	layerSuffix    = ".layer"
	catChainMagic  = "TINECLCH"
	// MaxLayers bounds the layers on a base: an update that would add one
	// more, or whose layers would outgrow an eighth of the base, writes a
	// new base instead (compaction). A chain naming more is corrupt.
	MaxLayers = 16
	// maxCatChainBytes bounds the chain file before it is read.
	maxCatChainBytes = 8 + 4 + 32 + 4 + MaxLayers*32 + 32
)

// compactShare is the share of the base the layers may reach: past
// 1/compactShare, the next update writes a new base.
var compactShare int64 = 8

// stack is a loaded catalog: the base file, the layers on it, and what
// they make together.
type stack struct {
	d          *data
	baseSum    [32]byte
	baseBytes  int64
	layers     [][32]byte
	layerBytes int64
}

// compact reports whether adding a layer of n bytes should write a new
// base instead.
func (s *stack) compact(n int) bool {
	return len(s.layers)+1 > MaxLayers || (s.layerBytes+int64(n))*compactShare > s.baseBytes
}

// layerDir returns the layer directory, refusing one (or a catalog
// directory) that is a symlink or not a directory.
func (ix *Index) layerDir() (string, error) {
	dir := filepath.Join(ix.root, filepath.FromSlash(LayerDir))
	for _, d := range []string{filepath.Dir(dir), dir} {
		fi, err := os.Lstat(d)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("catalog layers: %w", err)
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("catalog layers: %s is a %s: %w", d, fi.Mode().Type(), ErrUnsafePath)
		}
	}
	return dir, nil
}

// readStack reads the base file and its layers. A missing base is (nil,
// nil). A layer deleted by a compaction after the chain was read makes it
// read the chain again; one still missing is corrupt.
func (ix *Index) readStack() (*stack, error) {
	for range 3 {
		s, err, retry := ix.tryStack()
		if !retry {
			return s, err
		}
	}
	return nil, fmt.Errorf("%w: a layer the chain names is missing", ErrCorrupt)
}

func (ix *Index) tryStack() (*stack, error, bool) {
	dir, err := ix.layerDir()
	if err != nil {
		return nil, err, false
	}
	sum, names, err := readCatChain(dir)
	if err != nil {
		return nil, err, false
	}
	b, err := readFile(ix.Path())
	if err != nil || b == nil {
		return nil, err, false
	}
	base, err := decode(b)
	if err != nil {
		return nil, err, false
	}
	if err := ix.matches(base); err != nil {
		return nil, err, false
	}
	s := &stack{baseBytes: int64(len(b))}
	copy(s.baseSum[:], b[len(b)-checksumSize:])
	if sum != s.baseSum {
		// A new base is written before its chain: read the chain again;
		// a chain of another base names nothing on this one.
		if sum, names, err = readCatChain(dir); err != nil {
			return nil, err, false
		}
		if sum != s.baseSum {
			names = nil
		}
	}
	s.layers = names
	ls := make([]*delta, 0, len(names))
	for _, name := range names {
		lb, err := fsutil.ReadFileWith(filepath.Join(dir, layerFile(name)), fsutil.ReadOptions{Limit: MaxFileBytes, NoFollow: true})
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, nil, true
		case errors.Is(err, fsutil.ErrNotRegular), errors.Is(err, fsutil.ErrSymlink):
			return nil, fmt.Errorf("catalog layer %s: %w: %w", layerFile(name), err, ErrUnsafePath), false
		case errors.Is(err, fsutil.ErrTooLarge):
			return nil, fmt.Errorf("catalog layer %s: %w: %w", layerFile(name), err, ErrCorrupt), false
		case err != nil:
			return nil, fmt.Errorf("catalog layer %s: %w", layerFile(name), err), false
		}
		if sha256.Sum256(lb) != name {
			return nil, fmt.Errorf("%w: layer %s does not match its name", ErrCorrupt, layerFile(name)), false
		}
		l, err := decodeLayer(lb, ix.algo)
		if err != nil {
			return nil, fmt.Errorf("layer %s: %w", layerFile(name), err), false
		}
		ls = append(ls, l)
		s.layerBytes += int64(len(lb))
	}
	s.d, err = apply(base, ls)
	return s, err, false
}

// readCatChain reads the chain: the base checksum and the layer names.
// A missing chain names no base.
func readCatChain(dir string) ([32]byte, [][32]byte, error) {
	var sum [32]byte
	b, err := fsutil.ReadFileWith(filepath.Join(dir, layerChainFile), fsutil.ReadOptions{Limit: maxCatChainBytes, NoFollow: true})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return sum, nil, nil
	case errors.Is(err, fsutil.ErrTooLarge), errors.Is(err, fsutil.ErrNotRegular), errors.Is(err, fsutil.ErrSymlink):
		return sum, nil, fmt.Errorf("catalog layer chain: %w: %w", err, ErrCorrupt)
	case err != nil:
		return sum, nil, fmt.Errorf("catalog layer chain: %w", err)
	}
	le := binary.LittleEndian
	n := len(b) - checksumSize
	if n < 8+4+32+4 || string(b[:8]) != catChainMagic || sha256.Sum256(b[:n]) != [32]byte(b[n:]) {
		return sum, nil, fmt.Errorf("%w: layer chain: bad header or checksum", ErrCorrupt)
	}
	if v := le.Uint32(b[8:]); v != Version {
		return sum, nil, fmt.Errorf("%w: layer chain version %d, want %d", ErrCorrupt, v, Version)
	}
	copy(sum[:], b[12:])
	k := int(le.Uint32(b[44:]))
	if k > MaxLayers || n != 48+32*k {
		return sum, nil, fmt.Errorf("%w: layer chain: %d layers in %d bytes", ErrCorrupt, k, len(b))
	}
	names := make([][32]byte, k)
	for i := range names {
		copy(names[i][:], b[48+32*i:])
	}
	return sum, names, nil
}

// writeCatChain replaces the chain atomically.
func writeCatChain(dir string, base [32]byte, names [][32]byte) error {
	le := binary.LittleEndian
	b := []byte(catChainMagic)
	b = le.AppendUint32(b, Version)
	b = append(b, base[:]...)
	b = le.AppendUint32(b, uint32(len(names)))
	for _, n := range names {
		b = append(b, n[:]...)
	}
	sum := sha256.Sum256(b)
	if err := fsutil.WriteFileAtomic(filepath.Join(dir, layerChainFile), append(b, sum[:]...), 0o644); err != nil {
		return fmt.Errorf("catalog layer chain: %w", err)
	}
	return nil
}

// lock takes the writers' lock, creating the layer directory. Readers
// take none: every file they read is replaced by rename, and a layer a
// compaction deleted makes them read the chain again.
func (ix *Index) lock() (*flock.Flock, error) {
	dir, err := ix.layerDir()
	if err != nil {
		return nil, err
	}
	return lockIn(dir, layerLockFile, "catalog layers")
}

// unchanged reports whether the base and chain on disk are still those s
// was read from (the caller holds the lock, so they stay so).
func (ix *Index) unchanged(s *stack) bool {
	dir, err := ix.layerDir()
	if err != nil {
		return false
	}
	if sum, err := baseSum(ix.Path()); err != nil || sum != s.baseSum {
		return false
	}
	sum, names, err := readCatChain(dir)
	if err != nil {
		return false
	}
	if sum != s.baseSum {
		names = nil
	}
	if len(names) != len(s.layers) {
		return false
	}
	for i := range names {
		if names[i] != s.layers[i] {
			return false
		}
	}
	return true
}

// baseSum reads the checksum that ends the base file at path.
func baseSum(path string) ([32]byte, error) {
	var sum [32]byte
	f, err := fsutil.OpenNoSymlinks(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return sum, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return sum, err
	}
	if !fi.Mode().IsRegular() || fi.Size() < checksumSize {
		return sum, fmt.Errorf("catalog %s: %w", path, ErrCorrupt)
	}
	_, err = f.ReadAt(sum[:], fi.Size()-checksumSize)
	return sum, err
}

// saveLayer writes layer bytes b on s and the chain naming it.
func (ix *Index) saveLayer(s *stack, b []byte) error {
	dir, err := ix.layerDir()
	if err != nil {
		return err
	}
	sum, err := writeNamed(dir, layerFile, b, "catalog layer")
	if err != nil {
		return err
	}
	names := append(append([][32]byte(nil), s.layers...), sum)
	if err := writeCatChain(dir, s.baseSum, names); err != nil {
		return err
	}
	return ix.pruneLayers(dir, names)
}

// saveBase writes d as the base file, then a chain naming it alone, then
// deletes the layers: a crash in between leaves a chain of another base,
// which names nothing.
func (ix *Index) saveBase(d *data) error {
	b := encode(d)
	if err := writeFile(ix.Path(), b); err != nil {
		return err
	}
	dir, err := ix.layerDir()
	if err != nil {
		return err
	}
	if err := fsutil.MkdirAllSync(dir, 0o755); err != nil {
		return fmt.Errorf("catalog layers: %w", err)
	}
	if err := writeCatChain(dir, [32]byte(b[len(b)-checksumSize:]), nil); err != nil {
		return err
	}
	return ix.pruneLayers(dir, nil)
}

// pruneLayers deletes the layer files keep does not name and what
// writers that died left: their temporary layers and chains, and the
// catalog file's own temporary copies beside it (the search index keeps
// its files there too, under another name and lock). The caller holds
// the writers' lock, under which every layer, chain and base is written,
// so no temporary file of these is a live writer's.
func (ix *Index) pruneLayers(dir string, keep [][32]byte) error {
	named := map[string]bool{}
	for _, k := range keep {
		named[layerFile(k)] = true
	}
	if err := removeNamed(dir, func(n string, regular bool) bool {
		return strings.HasSuffix(n, layerSuffix) && !named[n] || regular && strings.HasPrefix(n, ".tmp-")
	}); err != nil {
		return fmt.Errorf("catalog layers: %w", err)
	}
	if err := removeNamed(filepath.Dir(ix.Path()), func(n string, regular bool) bool {
		return regular && strings.HasPrefix(n, ".tmp-"+File+"-")
	}); err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	return nil
}

// removeNamed deletes the entries of dir that drop selects by name and
// whether they are regular files (a directory is never removed).
func removeNamed(dir string, drop func(name string, regular bool) bool) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if n := e.Name(); drop(n, e.Type().IsRegular()) {
			if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}
