package httpserve

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/tinehq/tine/internal/fsutil"
)

// auditTornPrefix names the files holding torn rows set aside:
// audit/torn.<unix nanoseconds>.
const auditTornPrefix = "torn."

// setAsideTorn moves a torn last row out of audit/log: the bytes after
// its last newline, which a crash mid-write leaves (Linux stops a write
// to a file part-way, between pages, for SIGKILL). Such a row never
// completed: the head moves only after a row's fsync, so no head names
// it, and its request was never answered. The bytes are kept as evidence
// in audit/torn.<ns> (fsynced before the log is cut), audit/verify lists
// each such file as a warning, and the chain goes on from the last whole
// row. Before, a torn row stopped every later start until an operator
// moved the whole audit directory aside, so one kill of `tine serve` (the
// OOM killer, say) kept it down. The caller holds the audit lock.
func (l *auditLog) setAsideTorn() error {
	p := l.path(auditLogFile)
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrAudit, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrAudit, err)
	}
	size := fi.Size()
	if size == 0 {
		return nil
	}
	last := make([]byte, 1) // every append asks: one byte answers
	if _, err := f.ReadAt(last, size-1); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrAudit, p, err)
	}
	if last[0] == '\n' {
		return nil
	}
	// A torn row is shorter than a whole one: its start lies within the
	// last maxAuditRow+1 bytes, or the log is not the server's.
	from := max(size-int64(maxAuditRow)-1, 0)
	tail := make([]byte, size-from)
	if _, err := f.ReadAt(tail, from); err != nil && err != io.EOF {
		return fmt.Errorf("%w: %s: %w", ErrAudit, p, err)
	}
	nl := bytes.LastIndexByte(tail, '\n')
	if nl < 0 && from > 0 {
		return fmt.Errorf("%w: %s ends in %d bytes or more without a newline, longer than any row: move the audit directory aside (keep it as evidence) to start a new chain", ErrAudit, p, len(tail))
	}
	torn := tail[nl+1:]
	name := auditTornPrefix + strconv.FormatInt(time.Now().UnixNano(), 10)
	if err := fsutil.WriteFileAtomic(l.path(name), torn, 0o600); err != nil {
		return fmt.Errorf("%w: set aside a torn row: %w", ErrAudit, err)
	}
	if err := f.Truncate(from + int64(nl+1)); err != nil {
		return fmt.Errorf("%w: cut a torn row from %s: %w", ErrAudit, p, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrAudit, p, err)
	}
	return nil
}

// tornSetAside returns the warnings of audit/verify for the torn rows set
// aside: one per file, oldest first.
func (l *auditLog) tornSetAside() ([]string, error) {
	m, err := filepath.Glob(filepath.Join(l.dir, auditTornPrefix+"*"))
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(m))
	for _, p := range m {
		out = append(out, fmt.Sprintf("audit/%s holds a row a crash tore mid-write, set aside (not part of the chain)", filepath.Base(p)))
	}
	return out, nil
}
