package httpserve

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tinehq/tine/internal/fsutil"
)

// Bounds of the resumable-upload state (spec §11).
const (
	maxPendingUploads       = 1024
	maxPendingTenantUploads = 64
	uploadTTL               = 24 * time.Hour
	maxUploadMetaBytes      = 4096
)

// errUploadGone reports upload state that does not exist (or was found
// inconsistent and removed).
var errUploadGone = errors.New("upload not found")

// uploadMeta is <id>.json: who declared the upload, what it must hash to,
// and how many bytes of <id>.part are durable.
type uploadMeta struct {
	Offset int64  `json:"offset"`
	Owner  string `json:"owner"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

// uploadStore keeps resumable uploads under dir/<tenant>/ as <id>.part
// (the bytes received) and <id>.json (uploadMeta), directories 0700 and
// files 0600. The .json is the record: it is replaced atomically after the
// .part bytes it counts are fsynced, so after a crash the .part may be
// longer than recorded (the tail is cut on the next load) but never
// shorter.
type uploadStore struct {
	dir string
	now func() time.Time

	mu    sync.Mutex
	locks map[string]*sync.Mutex
	held  map[string]int
}

func newUploadStore(dir string, now func() time.Time) *uploadStore {
	return &uploadStore{dir: dir, now: now, locks: map[string]*sync.Mutex{}, held: map[string]int{}}
}

// ownerOf is the digest of tenant and subject that owns an upload.
func ownerOf(tenant, subject string) string {
	d := sha256.Sum256([]byte(tenant + "\x00" + subject))
	return hex.EncodeToString(d[:])
}

// lock takes upload id's lock; the returned function releases it.
func (u *uploadStore) lock(id string) func() {
	u.mu.Lock()
	m := u.locks[id]
	if m == nil {
		m = &sync.Mutex{}
		u.locks[id] = m
	}
	u.held[id]++
	u.mu.Unlock()
	m.Lock()
	return func() {
		m.Unlock()
		u.mu.Lock()
		if u.held[id]--; u.held[id] == 0 {
			delete(u.held, id)
			delete(u.locks, id)
		}
		u.mu.Unlock()
	}
}

func (u *uploadStore) paths(tenant, id string) (part, meta string) {
	base := filepath.Join(u.dir, tenant, id)
	return base + ".part", base + ".json"
}

// declare creates the state of a new upload and returns its id, after
// reaping stale uploads and checking the pending caps (errTooMany).
func (u *uploadStore) declare(tenant, owner, sum string, size int64) (string, error) {
	tdir := filepath.Join(u.dir, tenant)
	if err := fsutil.MkdirAllSync(tdir, 0o700); err != nil {
		return "", err
	}
	if err := os.Chmod(u.dir, 0o700); err != nil {
		return "", err
	}
	if err := os.Chmod(tdir, 0o700); err != nil {
		return "", err
	}
	total, mine, err := u.reap(tenant)
	if err != nil {
		return "", err
	}
	if total >= maxPendingUploads || mine >= maxPendingTenantUploads {
		return "", errTooMany
	}
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	id := hex.EncodeToString(b[:])
	part, _ := u.paths(tenant, id)
	if err := fsutil.WriteFileAtomic(part, nil, 0o600); err != nil {
		return "", err
	}
	m := &uploadMeta{Owner: owner, SHA256: sum, Size: size}
	if err := u.save(tenant, id, m); err != nil {
		_ = os.Remove(part)
		return "", err
	}
	return id, nil
}

// errTooMany reports the pending-upload caps.
var errTooMany = errors.New("too many pending uploads")

// reap deletes uploads whose newest write is older than uploadTTL (unless a
// request holds their lock) and counts the pending ones: in all tenants,
// and in tenant.
func (u *uploadStore) reap(tenant string) (total, mine int, err error) {
	tenants, err := os.ReadDir(u.dir)
	if err != nil {
		return 0, 0, err
	}
	cutoff := u.now().Add(-uploadTTL)
	for _, t := range tenants {
		if !t.IsDir() {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(u.dir, t.Name()))
		if err != nil {
			return 0, 0, err
		}
		for _, e := range entries {
			if id, ok := strings.CutSuffix(e.Name(), ".part"); ok {
				u.orphan(t.Name(), id, cutoff)
				continue
			}
			id, ok := strings.CutSuffix(e.Name(), ".json")
			if !ok {
				continue
			}
			if u.stale(t.Name(), id, cutoff) {
				continue
			}
			total++
			if t.Name() == tenant {
				mine++
			}
		}
	}
	return total, mine, nil
}

// stale removes upload id of tenant and reports true when both its files
// are older than cutoff and no request holds it.
func (u *uploadStore) stale(tenant, id string, cutoff time.Time) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.held[id] > 0 {
		return false
	}
	part, meta := u.paths(tenant, id)
	for _, p := range []string{part, meta} {
		if st, err := os.Stat(p); err == nil && st.ModTime().After(cutoff) {
			return false
		}
	}
	return u.remove(tenant, id) == nil
}

// orphan removes a stale .part whose record is gone (a crash between the
// two removals of remove, or during declare).
func (u *uploadStore) orphan(tenant, id string, cutoff time.Time) {
	part, meta := u.paths(tenant, id)
	if _, err := os.Lstat(meta); !errors.Is(err, fs.ErrNotExist) {
		return
	}
	if st, err := os.Lstat(part); err == nil && st.ModTime().Before(cutoff) {
		_ = os.Remove(part)
	}
}

// save records m as id's .json, atomically.
func (u *uploadStore) save(tenant, id string, m *uploadMeta) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, meta := u.paths(tenant, id)
	return fsutil.WriteFileAtomic(meta, b, 0o600)
}

// load reads id's record (errUploadGone if there is none) and cuts its
// .part back to the recorded offset if a crash left more; a .part shorter
// than recorded is inconsistent state, removed and reported gone.
func (u *uploadStore) load(tenant, id string) (*uploadMeta, error) {
	part, meta := u.paths(tenant, id)
	b, err := fsutil.ReadFile(meta, maxUploadMetaBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errUploadGone
	}
	if err != nil {
		return nil, err
	}
	var m uploadMeta
	if err := json.Unmarshal(b, &m); err != nil || m.Offset < 0 || m.Offset > m.Size {
		return nil, fmt.Errorf("upload %s: damaged record", id)
	}
	st, err := os.Stat(part)
	if err != nil || st.Size() < m.Offset {
		_ = u.remove(tenant, id)
		return nil, errUploadGone
	}
	if st.Size() > m.Offset {
		if err := os.Truncate(part, m.Offset); err != nil {
			return nil, err
		}
	}
	return &m, nil
}

// appendChunk appends data to id's .part, fsyncs it, then records the new
// offset.
func (u *uploadStore) appendChunk(tenant, id string, m *uploadMeta, data []byte) error {
	part, _ := u.paths(tenant, id)
	f, err := os.OpenFile(part, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	m.Offset += int64(len(data))
	return u.save(tenant, id, m)
}

// readAll returns id's received bytes (at most its declared size).
func (u *uploadStore) readAll(tenant, id string, m *uploadMeta) ([]byte, error) {
	part, _ := u.paths(tenant, id)
	f, err := os.Open(part)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, m.Size)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fmt.Errorf("upload %s: %w", id, err)
	}
	return b, nil
}

// remove deletes id's state: the record first (so a crash in between
// leaves an orphan .part the next reap removes, never a record without
// bytes), then the bytes.
func (u *uploadStore) remove(tenant, id string) error {
	part, meta := u.paths(tenant, id)
	if err := os.Remove(meta); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Remove(part); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return fsutil.SyncDir(filepath.Dir(meta))
}
