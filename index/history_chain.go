package index

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// The chain file of the history index: which layers make the index, in
// order, oldest first (doc.go has the format). It is small and replaced
// atomically; the layers it names are immutable.

const (
	// HistoryDir places the history index relative to the repository
	// directory, beside the catalog.
	HistoryDir  = Dir + "/history"
	historyFile = "chain"
	historyLock = "lock"
	chainMagic  = "TINEHCHN"
	// maxHistLayers bounds the chain: merging keeps it near log2 of the
	// indexed events, so more is a corrupt file.
	maxHistLayers = 64
	// maxChainBytes bounds the chain file before it is read.
	maxChainBytes = 8 + 4 + 8 + 4 + maxHistLayers*32 + 4
)

// layerFile names a layer (of the history index or the catalog) by the
// SHA-256 of its bytes.
func layerFile(sum [32]byte) string { return hex.EncodeToString(sum[:]) + layerSuffix }

// readChain reads the chain under dir: the layer names, oldest first. A
// missing file is an empty chain.
func readChain(dir string, algo objects.Algo) ([][32]byte, error) {
	b, err := fsutil.ReadFileWith(filepath.Join(dir, historyFile), fsutil.ReadOptions{Limit: maxChainBytes, NoFollow: true})
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, fsutil.ErrTooLarge), errors.Is(err, fsutil.ErrNotRegular), errors.Is(err, fsutil.ErrSymlink):
		return nil, fmt.Errorf("history chain: %w: %w", err, ErrHistoryCorrupt)
	case err != nil:
		return nil, fmt.Errorf("history chain: %w", err)
	}
	le := binary.LittleEndian
	if len(b) < 8+4+8+4+4 || crc32.Checksum(b[:len(b)-4], castagnoli) != le.Uint32(b[len(b)-4:]) ||
		string(b[:8]) != chainMagic || le.Uint32(b[8:]) != histVersion {
		return nil, fmt.Errorf("history chain: bad header or checksum: %w", ErrHistoryCorrupt)
	}
	if a := strings.TrimRight(string(b[12:20]), "\x00"); a != string(algo) {
		return nil, fmt.Errorf("history chain: hash %q, the repository's is %s: %w", a, algo, ErrHistoryCorrupt)
	}
	n := int(le.Uint32(b[20:]))
	if n > maxHistLayers || len(b) != 24+32*n+4 {
		return nil, fmt.Errorf("history chain: %d layers in %d bytes: %w", n, len(b), ErrHistoryCorrupt)
	}
	out := make([][32]byte, n)
	for i := range out {
		copy(out[i][:], b[24+32*i:])
	}
	return out, nil
}

// writeChain replaces the chain under dir atomically.
func writeChain(dir string, algo objects.Algo, names [][32]byte) error {
	le := binary.LittleEndian
	b := []byte(chainMagic)
	b = le.AppendUint32(b, histVersion)
	var a [8]byte
	copy(a[:], algo)
	b = append(b, a[:]...)
	b = le.AppendUint32(b, uint32(len(names)))
	for _, n := range names {
		b = append(b, n[:]...)
	}
	b = le.AppendUint32(b, crc32.Checksum(b, castagnoli))
	if err := fsutil.WriteFileAtomic(filepath.Join(dir, historyFile), b, 0o644); err != nil {
		return fmt.Errorf("history chain: %w", err)
	}
	return nil
}

// writeLayer writes a layer file under its content's name, durably, and
// returns the name. An existing file of that name has those bytes.
func writeLayer(dir string, b []byte) ([32]byte, error) {
	return writeNamed(dir, layerFile, b, "history layer")
}

// openLayerFile maps (or reads) the layer named sum under dir and checks
// it.
func openLayerFile(dir string, sum [32]byte, algo objects.Algo) (*histLayer, error) {
	name := layerFile(sum)
	b, unmap, err := mapHistFile(dir, name)
	if err != nil {
		return nil, layerOpenError(err)
	}
	l, err := openHistLayer(name, b, algo)
	if err != nil {
		unmap()
		return nil, err
	}
	l.unmap = unmap
	return l, nil
}

// historyDirSafe refuses a history directory (or catalog directory) that
// is a symlink or not a directory: the index never leaves objects/.
func historyDirSafe(root string) (string, error) {
	dir := filepath.Join(root, filepath.FromSlash(HistoryDir))
	for _, d := range []string{filepath.Dir(dir), dir} {
		fi, err := os.Lstat(d)
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("history index: %w", err)
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("history index: %s is a %s: %w", d, fi.Mode().Type(), ErrUnsafePath)
		}
	}
	return dir, nil
}

// layerOpenError classifies a failure to open a layer file. A layer
// deleted since the chain was read is a merge (load reads the chain
// again); a layer that is a symlink or not a regular file is damage.
// Anything else (too many open files, a mapping refused, permission) says
// nothing about the index: the reader answers from the objects this time,
// and the index is not reset for it.
func layerOpenError(err error) error {
	if errors.Is(err, fsutil.ErrSymlink) || errors.Is(err, fsutil.ErrNotRegular) {
		return fmt.Errorf("%w: %w", err, ErrHistoryCorrupt)
	}
	return err
}
