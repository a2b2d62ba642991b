package refs

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// MaxRefFileBytes bounds a ref file (SPEC §1.6).
const MaxRefFileBytes = 256

// ParseRefFile parses the content of a ref file (SPEC §2.4). Readers accept
// "<oid>", "<oid>\n" and "<oid>\r\n"; anything else is rejected with
// ref.file-oversized, ref.file-not-ascii, ref.file-not-canonical or
// oid.malformed, checked in that order.
func ParseRefFile(b []byte) (objects.OID, error) {
	if len(b) > MaxRefFileBytes {
		return objects.OID{}, objects.Errorf(objects.ReasonRefFileOversized, "ref file of %d bytes, limit %d", len(b), MaxRefFileBytes)
	}
	for i, c := range b {
		if c >= 0x80 {
			return objects.OID{}, objects.Errorf(objects.ReasonRefFileNotAscii, "ref file has a non-ASCII byte at offset %d", i)
		}
	}
	body := b
	if bytes.HasSuffix(body, []byte("\r\n")) {
		body = body[:len(body)-2]
	} else if bytes.HasSuffix(body, []byte("\n")) {
		body = body[:len(body)-1]
	}
	// SPEC §2.4: one token and nothing else; a bare CR, a space or a second
	// line is not canonical, and nothing is stripped to make it so.
	for i, c := range body {
		if c <= ' ' || c == 0x7f {
			return objects.OID{}, objects.Errorf(objects.ReasonRefFileNotCanonical, "ref file has whitespace or a control byte %#02x at offset %d", c, i)
		}
	}
	return objects.ParseOID(string(body))
}

// EncodeRefFile returns the canonical content of a ref file: "<oid>\n".
func EncodeRefFile(id objects.OID) []byte {
	return append([]byte(id.String()), '\n')
}

// readRegular reads a whole file that must be a regular file with at most
// maxLinks links, never following a symlink, and refusing more than limit
// bytes before reading them. A missing file returns an error satisfying
// errors.Is(err, os.ErrNotExist).
func (s *Store) readRegular(path string, maxLinks uint64, limit int64, tooBig func(n int64) error) ([]byte, error) {
	f, err := s.fs.openRead(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The one bounded reader (fsutil), keeping one byte past the limit so
	// an oversized file is reported with the format's own reason.
	b, err := fsutil.ReadRegularWith(f, fsutil.ReadOptions{Limit: limit, KeepOver: true, MaxLinks: maxLinks})
	switch {
	case errors.Is(err, fsutil.ErrNotRegular), errors.Is(err, fsutil.ErrHardLinked):
		return nil, fmt.Errorf("%s: %w: %v", path, ErrNotRegular, err)
	case err != nil:
		return nil, err // a read error names path already (*fs.PathError)
	case int64(len(b)) > limit:
		n := int64(len(b))
		if fi, serr := f.Stat(); serr == nil && fi.Size() > n {
			n = fi.Size()
		}
		return nil, tooBig(n)
	}
	return b, nil
}

// checkRegular applies the confinement rules of SPEC §2.3 to an opened
// file: regular, and not hard-linked beyond maxLinks.
func checkRegular(path string, fi os.FileInfo, maxLinks uint64) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %w (mode %v)", path, ErrNotRegular, fi.Mode().Type())
	}
	if n, ok := linkCount(fi); ok && n > maxLinks {
		return fmt.Errorf("%s: %w (%d links)", path, ErrNotRegular, n)
	}
	return nil
}
