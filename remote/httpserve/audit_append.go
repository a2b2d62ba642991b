package httpserve

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tinehq/tine/internal/fsutil"
)

// append adds row to the chain: under the locks it reads the head, links
// the row to it, writes the row with one write and an fsync (a crash
// leaves at worst a torn last line, which the next writer sets aside), then
// moves the head (writeHead): two fsyncs a row. A log that would pass maxBytes is first closed as a
// segment.
func (l *auditLog) append(row *auditRow) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	unlock, err := flockPath(l.path(auditLockFile))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrAudit, err)
	}
	defer unlock()
	h, err := l.readHead()
	if err != nil {
		return err
	}
	if err := l.setAsideTorn(); err != nil { // another server on the root died mid-row
		return err
	}
	row.Seq, row.Prev = h.Seq+1, h.MAC
	line, err := row.seal(l.key)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrAudit, err)
	}
	p := l.path(auditLogFile)
	if fi, err := os.Lstat(p); err == nil && fi.Size() > 0 && fi.Size()+int64(len(line)) > l.maxBytes {
		seg := l.path(auditLogFile + "." + strconv.FormatInt(h.Seq, 10))
		if err := os.Rename(p, seg); err != nil {
			return fmt.Errorf("%w: close segment: %w", ErrAudit, err)
		}
		if err := fsutil.SyncDir(l.dir); err != nil {
			return fmt.Errorf("%w: %w", ErrAudit, err)
		}
	}
	_, statErr := os.Lstat(p)
	created := errors.Is(statErr, fs.ErrNotExist)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrAudit, err)
	}
	_, err = f.Write(line)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	// A new log's name must be durable before the head names its row.
	if err == nil && created {
		err = fsutil.SyncDir(l.dir)
	}
	if err != nil {
		return fmt.Errorf("%w: append: %w", ErrAudit, err)
	}
	first := h.First
	switch {
	case created:
		first = row.Seq
	case first == 0:
		// A head from before First: the log's first row as it is now
		// (earlier cuts cannot be told, later ones will be).
		if fr, err := firstRow(p, l.key); err == nil && fr != nil {
			first = fr.Seq
		}
	}
	return l.writeHead(auditHead{First: first, MAC: row.MAC, Seq: row.Seq})
}

// firstRow returns the first row of the chain file path, its MAC checked,
// or nil when the file is missing or empty.
func firstRow(path string, key []byte) (*auditRow, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, maxAuditRow+1).ReadSlice('\n')
	switch {
	case errors.Is(err, io.EOF) && len(line) == 0:
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("%s: first row: %w", path, err)
	}
	return parseRow(line[:len(line)-1], key)
}

// segments returns the chain's files oldest first: the closed segments
// log.<last seq> by number, then log.
func (l *auditLog) segments() ([]string, error) {
	ents, err := os.ReadDir(l.dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAudit, err)
	}
	type seg struct {
		n    int64
		name string
	}
	var segs []seg
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), auditLogFile+".")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(rest, 10, 64)
		if err != nil || n < 0 || strconv.FormatInt(n, 10) != rest {
			continue
		}
		segs = append(segs, seg{n, e.Name()})
	}
	slices.SortFunc(segs, func(a, b seg) int { return int(min(max(a.n-b.n, -1), 1)) })
	out := make([]string, 0, len(segs)+1)
	for _, s := range segs {
		out = append(out, l.path(s.name))
	}
	if _, err := os.Lstat(l.path(auditLogFile)); err == nil {
		out = append(out, l.path(auditLogFile))
	}
	return out, nil
}

// lastRow returns the newest row of the chain, or nil when no file holds
// one; a last line that does not parse or verify is an error.
func (l *auditLog) lastRow() (*auditRow, error) {
	files, err := l.segments()
	if err != nil {
		return nil, err
	}
	for i := len(files) - 1; i >= 0; i-- {
		line, err := lastLine(files[i])
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrAudit, err)
		}
		if line == nil {
			continue
		}
		row, err := parseRow(line, l.key)
		if err != nil {
			return nil, fmt.Errorf("%w: last row of %s: %w", ErrAudit, files[i], err)
		}
		return row, nil
	}
	return nil, nil
}

// lastLine returns the last newline-terminated line of path without its
// newline, or nil for an empty file.
func lastLine(path string) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return nil, err
	}
	n := min(fi.Size(), maxAuditRow+1)
	b := make([]byte, n)
	if _, err := f.ReadAt(b, fi.Size()-n); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	b = trimNewline(b)
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return b[i+1:], nil
	}
	if n < fi.Size() {
		return nil, fmt.Errorf("%s: last row exceeds %d bytes", path, maxAuditRow)
	}
	return b, nil
}

// newEventID returns a random (version 4) UUID.
func newEventID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// auditDir is the audit directory under root.
func auditDir(root string) string { return filepath.Join(root, auditDirName) }
