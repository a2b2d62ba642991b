package httpserve

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/tinehq/tine/internal/fsutil"
)

// ErrAudit reports an audit directory the server cannot extend: a missing
// or exposed key, an unreadable head.
var ErrAudit = errors.New("audit log unusable")

// DefaultAuditMaxBytes is the size at which audit/log is closed as a
// segment and a new one started.
const DefaultAuditMaxBytes = 64 << 20

// The files of the audit directory, <root>/audit (README "Storage under
// --root"). The key lives here, beside the chain, never in a tenant's
// repository, so nothing that travels (fetch, clone) can carry it.
const (
	auditDirName  = "audit"
	auditKeyFile  = "key"
	auditHeadFile = "head"
	auditLogFile  = "log"
	auditLockFile = "lock"
)

// auditLog is the HMAC-SHA256 chain of audited requests (spec §13). One
// row is one line of audit/log; a full log becomes audit/log.<last seq>.
// Appends are serialized within the process by mu and across processes
// serving the same root by a lock on audit/lock.
type auditLog struct {
	dir      string
	key      []byte
	maxBytes int64
	mu       sync.Mutex
}

// openAuditLog opens (creating on first use) the audit directory dir. It
// refuses a key readable by others and a log without its key or head; a
// row a crash tore mid-write is set aside (setAsideTorn), and a row
// written just before a crash left the head behind is adopted once its
// MAC proves the server wrote it.
func openAuditLog(dir string, maxBytes int64) (*auditLog, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultAuditMaxBytes
	}
	if err := fsutil.MkdirAllSync(dir, 0o700); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAudit, err)
	}
	l := &auditLog{dir: dir, maxBytes: maxBytes}
	unlock, err := flockPath(filepath.Join(dir, auditLockFile))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAudit, err)
	}
	defer unlock()
	// Heads and set-aside rows a kill left half-made (never renamed) are
	// litter.
	for _, pat := range []string{".tmp-head-*", ".tmp-" + auditTornPrefix + "*"} {
		if tmps, err := filepath.Glob(filepath.Join(dir, pat)); err == nil {
			for _, p := range tmps {
				_ = os.Remove(p)
			}
		}
	}
	if l.key, err = l.loadKey(); err != nil {
		return nil, err
	}
	if err := l.setAsideTorn(); err != nil {
		return nil, err
	}
	h, err := l.readHead()
	if errors.Is(err, fs.ErrNotExist) {
		last, lerr := l.lastRow()
		if lerr != nil {
			return nil, lerr
		}
		if last != nil {
			return nil, fmt.Errorf("%w: %s is missing while the log holds rows: move the audit directory aside (keep it as evidence) to start a new chain", ErrAudit, l.path(auditHeadFile))
		}
		return l, l.writeHead(auditHead{MAC: zeroMAC})
	}
	if err != nil {
		return nil, err
	}
	return l, l.adoptTail(h)
}

func (l *auditLog) path(name string) string { return filepath.Join(l.dir, name) }

// loadKey reads audit/key, creating a random one when neither it nor a log
// exists yet.
func (l *auditLog) loadKey() ([]byte, error) {
	p := l.path(auditKeyFile)
	b, err := fsutil.ReadFileWith(p, fsutil.ReadOptions{Limit: 1024, NoFollow: true, MaxLinks: 1})
	if errors.Is(err, fs.ErrNotExist) {
		if _, herr := os.Lstat(l.path(auditHeadFile)); herr == nil {
			return nil, fmt.Errorf("%w: %s is missing: the chain can be neither verified nor extended; move the audit directory aside (keep it as evidence) to start a new chain", ErrAudit, p)
		}
		k := make([]byte, 32)
		if _, err := rand.Read(k); err != nil {
			return nil, err
		}
		if err := fsutil.CreateFileAtomic(p, []byte(hex.EncodeToString(k)+"\n"), 0o600); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("%w: create %s: %w", ErrAudit, p, err)
		}
		return l.loadKey()
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAudit, err)
	}
	if fi, err := os.Lstat(p); err != nil || fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s must be readable by its owner only: chmod 600 it", ErrAudit, p)
	}
	k, err := hex.DecodeString(string(trimNewline(b)))
	if err != nil || len(k) != 32 {
		return nil, fmt.Errorf("%w: %s is not 64 hex digits", ErrAudit, p)
	}
	return k, nil
}

func trimNewline(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		return b[:n-1]
	}
	return b
}

// readHead reads and authenticates audit/head.
func (l *auditLog) readHead() (auditHead, error) {
	p := l.path(auditHeadFile)
	b, err := fsutil.ReadFileWith(p, fsutil.ReadOptions{Limit: 1024, NoFollow: true})
	if errors.Is(err, fs.ErrNotExist) {
		return auditHead{}, err
	}
	if err != nil {
		return auditHead{}, fmt.Errorf("%w: %w", ErrAudit, err)
	}
	h, err := decodeHead(trimNewline(b), l.key)
	if err != nil {
		return auditHead{}, fmt.Errorf("%w: %s: %w", ErrAudit, p, err)
	}
	return h, nil
}

// writeHead replaces audit/head: a temporary file written and fsynced,
// then renamed over it, so the head is always a whole one. The directory
// is not fsynced: after a crash the head may be an older one, and
// adoptTail moves it forward over the rows the server wrote since.
func (l *auditLog) writeHead(h auditHead) (err error) {
	f, err := os.CreateTemp(l.dir, ".tmp-head-*")
	if err != nil {
		return fmt.Errorf("%w: write head: %w", ErrAudit, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
			err = fmt.Errorf("%w: write head: %w", ErrAudit, err)
		}
	}()
	_, err = f.Write(h.encode(l.key))
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp, l.path(auditHeadFile))
}

// adoptTail moves the head to the log's last row when the rows after the
// head follow it, each with a MAC that holds: the server wrote them, then
// stopped before the head's rename was durable (the head is fsynced but
// its directory is not, to keep a row at two fsyncs). Anything else is
// left for verification to report.
func (l *auditLog) adoptTail(h auditHead) error {
	last, err := l.lastRow()
	if errors.Is(err, errRowSyntax) || errors.Is(err, errRowMAC) {
		return nil
	}
	if err != nil || last == nil || last.Seq <= h.Seq {
		return err
	}
	found := h.Seq == 0
	prev := auditHead{MAC: h.MAC, Seq: h.Seq}
	why, err := l.scanRows(func(row *auditRow) string {
		if !found {
			found = row.Seq == h.Seq && row.MAC == h.MAC
			return ""
		}
		if row.Seq != prev.Seq+1 || row.Prev != prev.MAC {
			return "not linked"
		}
		prev = auditHead{MAC: row.MAC, Seq: row.Seq}
		return ""
	})
	if err != nil || why != "" || !found || prev.Seq != last.Seq {
		return err
	}
	// The head keeps its First unless the adopted rows began a new log
	// (a segment was closed after the head): then the log's first row is
	// one of them. A first row at or before the head's is left for
	// verification to compare.
	prev.First = h.First
	if fr, err := firstRow(l.path(auditLogFile), l.key); err == nil && fr != nil && fr.Seq > h.Seq {
		prev.First = fr.Seq
	}
	return l.writeHead(prev)
}
