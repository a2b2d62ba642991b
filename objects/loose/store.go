package loose

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/tinehq/tine/objects"
)

// Store is the SPEC's loose object store: one file per object at
// objects/<type>/<hex[0:2]>/<hex[2:64]> holding the object's envelope bytes
// (SPEC §2.1). It is safe for concurrent use, also by several processes.
//
// Reads refuse symlinks, hard-linked files and anything not a regular file
// (SPEC §2.1 path confinement) and re-derive the oid of every object read.
// Writes are crash-safe: a temporary file in the final directory is written,
// fsynced, made read-only and renamed, and the directory fsynced, so no
// half-written file is ever visible under an object's name. A crash can
// leave temporary files (names starting with ".tmp-"), which enumeration
// skips and RemoveStaleTemp deletes.
//
// Put of an object that is already present compares the stored bytes with
// the object's: equal is success without a write; different (a corrupt copy,
// since the name fixes the content) is atomically replaced with the correct
// bytes. Has checks existence only; finding corrupt copies is fsck's job.
type Store struct {
	dir  string
	algo objects.Algo
	// maxSize is MaxLooseObjectSize; tests lower it.
	maxSize int64
	// dirs caches directories already checked to be real directories (or
	// created), so a put or get costs no extra stat per path level.
	dirs sync.Map
	// faults fails chosen file operations in tests; nil otherwise.
	faults faultHook
}

var _ interface {
	objects.Store
	objects.BatchPutter
} = (*Store)(nil)

// Open opens the loose store in objectsDir (the repository's
// objects directory, which must exist and be a real directory) for hash
// profile a. Type and fan-out directories are created on demand.
func Open(objectsDir string, a objects.Algo) (*Store, error) {
	if !a.Valid() {
		return nil, fmt.Errorf("open object store %s: %w: %q", objectsDir, objects.ErrUnknownAlgo, a)
	}
	fi, err := os.Lstat(objectsDir)
	if err != nil {
		return nil, fmt.Errorf("open object store: %w", err)
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("open object store %s: not a directory (symlinks are refused): %w", objectsDir, objects.ErrUnsafeFile)
	}
	return &Store{dir: filepath.Clean(objectsDir), algo: a, maxSize: objects.MaxLooseObjectSize}, nil
}

// Algo returns the store's hash profile.
func (s *Store) Algo() objects.Algo { return s.algo }

// Dir returns the objects directory the store was opened on.
func (s *Store) Dir() string { return s.dir }

// Path returns the file path of the object id in this store.
func (s *Store) Path(id objects.OID) (string, error) {
	if id.Algo != s.algo || !id.Type.Valid() {
		return "", fmt.Errorf("object %s: %w (store uses %s)", id, objects.ErrAlgoMismatch, s.algo)
	}
	_, _, p := s.paths(id)
	return p, nil
}

// paths returns the type directory, fan-out directory and file of id.
func (s *Store) paths(id objects.OID) (typeDir, fanDir, file string) {
	h := id.Hex()
	typeDir = s.dir + string(filepath.Separator) + string(id.Type)
	fanDir = typeDir + string(filepath.Separator) + h[:2]
	return typeDir, fanDir, fanDir + string(filepath.Separator) + h[2:]
}

// Get reads, verifies and decodes the object id.
func (s *Store) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	return s.get(ctx, id, true)
}

// GetUnparsed is Get without the json body's parse
// (objects.DecodeEnvelopeUnparsedAs).
func (s *Store) GetUnparsed(ctx context.Context, id objects.OID) (*objects.Object, error) {
	return s.get(ctx, id, false)
}

// get is Get, parsing a json body only when parse.
func (s *Store) get(ctx context.Context, id objects.OID, parse bool) (*objects.Object, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, err := s.read(id)
	if err != nil {
		return nil, err
	}
	decode := objects.DecodeEnvelopeAs
	if !parse {
		decode = objects.DecodeEnvelopeUnparsedAs
	}
	o, err := decode(id, data)
	if err != nil {
		return nil, err // DecodeEnvelopeAs names the object
	}
	return o, nil
}

// Has reports whether a file exists under id's name. An unsafe entry (a
// symlink, say) is an error, not absence.
func (s *Store) Has(ctx context.Context, id objects.OID) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if _, err := s.lstat(id); err != nil {
		if errors.Is(err, objects.ErrNotFound) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// lstat returns the file info of id's file after the path confinement
// checks. An absent object, or one of another hash profile, wraps
// ErrNotFound.
func (s *Store) lstat(id objects.OID) (fs.FileInfo, error) {
	if id.Algo != s.algo || !id.Type.Valid() {
		return nil, objects.NotFound(id)
	}
	typeDir, fanDir, p := s.paths(id)
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, objects.NotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", id, err)
	}
	// SPEC §2.1: a symlinked directory on the way would make this path
	// resolve outside the repository.
	for _, d := range [...]string{typeDir, fanDir} {
		if err := s.checkDir(d, false); err != nil {
			return nil, fmt.Errorf("object %s: %w", id, err)
		}
	}
	if err := objects.CheckPlainFile(fi); err != nil {
		return nil, fmt.Errorf("object %s: %s %w", id, p, err)
	}
	return fi, nil
}

// checkDir verifies that dir is a real directory, creating it (durably)
// when create is set and it is missing. Successful checks are cached.
func (s *Store) checkDir(dir string, create bool) error {
	if _, ok := s.dirs.Load(dir); ok {
		return nil
	}
	fi, err := os.Lstat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return fmt.Errorf("%s is not a directory (symlinks are refused): %w", dir, objects.ErrUnsafeFile)
	case err == nil:
	case create && errors.Is(err, fs.ErrNotExist):
		if err := mkdirAllSync(dir); err != nil {
			return err
		}
	default:
		return err
	}
	s.dirs.Store(dir, struct{}{})
	return nil
}

// openChecked opens id's file, making sure the file opened is the one the
// confinement checks passed, and returns it with its size, refused above
// MaxLooseObjectSize. A concurrent put may legitimately rename a fresh copy
// over the file between the check and the open, so a mismatch is retried a
// few times before it is reported.
func (s *Store) openChecked(id objects.OID) (*os.File, int64, error) {
	const attempts = 4
	for try := 1; ; try++ {
		f, size, swapped, err := s.openOnce(id)
		if !swapped || try == attempts {
			return f, size, err
		}
	}
}

// openOnce is one attempt of openChecked; swapped reports that the file
// changed between the check and the open.
func (s *Store) openOnce(id objects.OID) (f *os.File, size int64, swapped bool, err error) {
	fi, err := s.lstat(id)
	if err != nil {
		return nil, 0, false, err
	}
	_, _, p := s.paths(id)
	f, err = os.Open(p)
	if err == nil {
		if ferr := s.faults.fault(stepOpen, p); ferr != nil {
			f.Close()
			f, err = nil, ferr
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, objects.NotFound(id)
	}
	if err != nil {
		return nil, 0, false, fmt.Errorf("object %s: %s: %w", id, stepOpen, err)
	}
	fi2, err := f.Stat()
	if err == nil && !os.SameFile(fi, fi2) {
		swapped = true
		err = fmt.Errorf("%s changed while being opened: %w", p, objects.ErrUnsafeFile)
	}
	if err == nil && fi2.Size() > s.maxSize {
		err = fmt.Errorf("%d bytes, the limit is %d: %w", fi2.Size(), s.maxSize, objects.ErrObjectTooLarge)
	}
	if err != nil {
		f.Close()
		return nil, 0, swapped, fmt.Errorf("object %s: %w", id, err)
	}
	return f, fi2.Size(), false, nil
}

// read returns the stored bytes of id, unverified.
func (s *Store) read(id objects.OID) ([]byte, error) {
	f, size, err := s.openChecked(id)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The size is bounded above, so this allocation is too. One extra byte
	// detects a file that grew after the stat.
	buf := make([]byte, size+1)
	n, err := io.ReadFull(f, buf)
	if err == nil || err == io.EOF || err == io.ErrUnexpectedEOF {
		err = s.faults.fault(stepRead, f.Name())
	}
	if err != nil {
		return nil, fmt.Errorf("object %s: %s: %w", id, stepRead, err)
	}
	if int64(n) != size {
		return nil, fmt.Errorf("object %s: file changed size while being read", id)
	}
	if n > 0 && s.faults.fault(stepVerify, f.Name()) != nil {
		buf[n-1] ^= 0xff
	}
	return buf[:n], nil
}

// holds reports whether id's file holds exactly stored. A missing, unsafe,
// unreadable or different file gives false: the caller then writes the
// object, replacing whatever is there.
func (s *Store) holds(id objects.OID, stored []byte) bool {
	data, err := s.read(id)
	return err == nil && bytes.Equal(data, stored)
}
