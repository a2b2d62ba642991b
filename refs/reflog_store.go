package refs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// MaxReflogBytes bounds a reflog on read. OpenTine does not rotate reflogs
// (SPEC §2.6); this bound only keeps a read from exhausting memory.
const MaxReflogBytes = 256 << 20

// ReflogRead is the content of one reflog file.
type ReflogRead struct {
	// Entries are the complete rows, oldest first.
	Entries []ReflogEntry
	// TornBytes is the length of an unterminated final row that was
	// skipped: a crash during an append (SPEC §2.6: a crash can lose a
	// row). Zero when the file ends in LF.
	TornBytes int
}

// ReadReflog reads the reflog of ref name, oldest row first. A missing log
// is an empty one. Every complete row must parse strictly (ParseReflogRow)
// and name this ref; a bad row is an error naming the ref and the row
// number. An unterminated final row is skipped and reported in TornBytes,
// never parsed.
func (s *Store) ReadReflog(name string) (ReflogRead, error) {
	norm, err := NormalizeName(name)
	if err != nil {
		return ReflogRead{}, err
	}
	path := s.logPath(norm)
	f, err := s.fs.openRead(path)
	if errors.Is(err, fs.ErrNotExist) {
		return ReflogRead{}, nil
	}
	if err != nil {
		return ReflogRead{}, fmt.Errorf("reflog %s: %w", norm, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ReflogRead{}, err
	}
	if err := checkRegular(path, fi, 1); err != nil {
		return ReflogRead{}, fmt.Errorf("reflog %s: %w", norm, err)
	}
	if fi.Size() > MaxReflogBytes {
		return ReflogRead{}, fmt.Errorf("reflog %s: %d bytes, limit %d", norm, fi.Size(), MaxReflogBytes)
	}
	var out ReflogRead
	r := bufio.NewReaderSize(io.LimitReader(f, MaxReflogBytes), 64<<10)
	for n := 1; ; n++ {
		row, err := readRow(r)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return ReflogRead{}, fmt.Errorf("reflog %s row %d: %w", norm, n, err)
		}
		if row[len(row)-1] != '\n' {
			out.TornBytes = len(row)
			return out, nil
		}
		e, err := ParseReflogRow(row)
		if err != nil {
			return ReflogRead{}, fmt.Errorf("reflog %s row %d: %w", norm, n, err)
		}
		if e.Ref != norm {
			return ReflogRead{}, fmt.Errorf("reflog %s row %d names %s: %w", norm, n, e.Ref, ErrMalformedReflog)
		}
		out.Entries = append(out.Entries, e)
	}
}

// readRow returns the next row with its LF, or the unterminated rest of
// the file, refusing rows longer than MaxReflogRowBytes before buffering
// them whole.
func readRow(r *bufio.Reader) ([]byte, error) {
	var row []byte
	for {
		chunk, err := r.ReadSlice('\n')
		row = append(row, chunk...)
		if len(row) > MaxReflogRowBytes {
			return nil, fmt.Errorf("%w: row longer than %d bytes", ErrMalformedReflog, MaxReflogRowBytes)
		}
		switch {
		case err == nil:
			return row, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(row) > 0:
			return row, nil
		default:
			return nil, err
		}
	}
}

// Reflog returns the complete rows of ref name's reflog, oldest first,
// skipping a torn final row (use ReadReflog to learn of one).
func (s *Store) Reflog(name string) ([]ReflogEntry, error) {
	rr, err := s.ReadReflog(name)
	return rr.Entries, err
}

// appendReflog appends one encoded row to ref norm's reflog and fsyncs it
// (SPEC §2.5 step 5). The caller holds the ref's guard, which also
// serializes appends. A torn final row left by a crash is cut off first, so
// the new row starts on a line of its own. While the log holds no complete
// row its directory is fsynced before the row is written: a log created by
// this append, or by an earlier one that failed before the directory was
// synced, must not vanish in a crash with the rows appended to it later.
func (s *Store) appendReflog(norm string, row []byte) error {
	path := s.logPath(norm)
	dir := filepath.Dir(path)
	if err := s.fs.mkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("reflog directory: %w", err)
	}
	f, err := s.fs.openFile(path, os.O_RDWR|os.O_CREATE|noFollowFlag, 0o644)
	if err != nil {
		return fmt.Errorf("open reflog: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if err := checkRegular(path, fi, 1); err != nil {
		return err
	}
	end, err := completeRowsEnd(f, fi.Size())
	if err != nil {
		return fmt.Errorf("read reflog: %w", err)
	}
	if end != fi.Size() {
		if err := f.Truncate(end); err != nil {
			return fmt.Errorf("cut the torn row off the reflog: %w", err)
		}
	}
	if end == 0 {
		if err := s.fs.syncDir(dir); err != nil {
			return fmt.Errorf("make the new reflog durable: %w", err)
		}
	}
	if _, err := f.WriteAt(row, end); err != nil {
		return fmt.Errorf("append to reflog: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync reflog: %w", err)
	}
	return nil
}

// completeRowsEnd returns the offset just past the last LF of a file of the
// given size (0 when it has none), scanning backwards in blocks.
func completeRowsEnd(f io.ReaderAt, size int64) (int64, error) {
	var last [1]byte
	if size == 0 {
		return 0, nil
	}
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return 0, err
	}
	if last[0] == '\n' {
		return size, nil // the common case: no torn row
	}
	buf := make([]byte, 4096)
	for end := size; end > 0; {
		start := max(end-int64(len(buf)), 0)
		b := buf[:end-start]
		if _, err := f.ReadAt(b, start); err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}
