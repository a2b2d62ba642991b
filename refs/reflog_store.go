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
	"slices"
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

// appendReflogs appends each op's encoded row to its ref's reflog and
// makes them durable (SPEC §2.5 step 5), one append per log, in chunks of
// syncChunk logs: every log of a chunk is opened, the directories of logs
// that hold no complete row yet are fsynced (each once per chunk: a log
// created after a directory's fsync needs one of its own), then every row
// is written and the logs are fsynced together (syncFiles), with refDirs,
// the directories of the moved refs, when the caller has not fsynced them
// yet (orderOverlapped). The caller holds each ref's guard, which also
// serializes appends to its log. A torn final row left by a crash is cut
// off first, so the new row starts on a line of its own. A log that holds
// no complete row (created now, or by an append that failed before its
// directory was synced) has its directory fsynced before its row is
// written: it must not vanish in a crash with the rows appended later.
func (s *Store) appendReflogs(ops []*txOp, refDirs []string) error {
	made := map[string]bool{}
	for chunk := range slices.Chunk(ops, syncChunk) {
		if err := s.appendReflogChunk(chunk, made, refDirs); err != nil {
			return err
		}
		refDirs = nil
	}
	return nil
}

// appendReflogChunk is appendReflogs for one chunk; made holds the log
// directories this transaction already created, refDirs the ref
// directories to fsync with the logs.
func (s *Store) appendReflogChunk(ops []*txOp, made map[string]bool, refDirs []string) error {
	logs := make([]file, 0, len(ops))
	defer func() { closeFiles(logs) }()
	ends := make([]int64, 0, len(ops))
	var newDirs []string
	for _, op := range ops {
		path := s.logPath(op.norm)
		dir := filepath.Dir(path)
		if !made[dir] {
			if err := s.fs.mkdirAll(dir, 0o755); err != nil {
				return reflogError(op, fmt.Errorf("reflog directory: %w", err))
			}
			made[dir] = true
		}
		f, end, err := s.openReflog(path)
		if err != nil {
			return reflogError(op, err)
		}
		logs = append(logs, f)
		ends = append(ends, end)
		if end == 0 {
			newDirs = append(newDirs, dir)
		}
	}
	for _, d := range sortedUnique(newDirs) {
		if err := s.fs.syncDir(d); err != nil {
			return fmt.Errorf("refs: make the new reflogs durable: %w", err)
		}
	}
	for i, op := range ops {
		if _, err := logs[i].WriteAt(op.row, ends[i]); err != nil {
			return reflogError(op, fmt.Errorf("append to reflog: %w", err))
		}
	}
	// The ref directories first, so that with one fsync at a time (the
	// fault tests) the renames are made durable before the rows.
	jobs := make([]func() error, 0, len(refDirs)+len(logs))
	for _, d := range refDirs {
		jobs = append(jobs, func() error { return s.fs.syncDir(d) })
	}
	for _, f := range logs {
		jobs = append(jobs, f.Sync)
	}
	i, err := s.syncAll(jobs)
	switch {
	case err == nil:
		return nil
	case i < len(refDirs):
		return fmt.Errorf("refs: make the moved refs durable: %w", err)
	}
	return reflogError(ops[i-len(refDirs)], fmt.Errorf("fsync reflog: %w", err))
}

// reflogError says that op's ref moved but its row was not written.
func reflogError(op *txOp, err error) error {
	return fmt.Errorf("ref %s moved to %s but its reflog row was not written: %w", op.norm, op.newID, err)
}

// openReflog opens (creating) the reflog at path for an append, cuts off a
// torn final row, and returns the file and the offset the row goes at.
func (s *Store) openReflog(path string) (file, int64, error) {
	f, err := s.fs.openFile(path, os.O_RDWR|os.O_CREATE|noFollowFlag, 0o644)
	if err != nil {
		return nil, 0, fmt.Errorf("open reflog: %w", err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkRegular(path, fi, 1)
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	end, err := completeRowsEnd(f, fi.Size())
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("read reflog: %w", err)
	}
	if end != fi.Size() {
		if err := f.Truncate(end); err != nil {
			f.Close()
			return nil, 0, fmt.Errorf("cut the torn row off the reflog: %w", err)
		}
	}
	return f, end, nil
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
