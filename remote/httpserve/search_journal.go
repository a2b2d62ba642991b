package httpserve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// SearchPage is the most ids one search answers (spec §11).
const SearchPage = 1000

// Objects carry no time of their own (an oid is a hash, a blob has no
// timestamp), so "newest" is the order in which this server received
// them: each tenant has one journal per object type plus one for every
// type, <root>/search/<tenant>/<type|all>, listing the SearchPage ids
// most recently received in an installed pack, newest first. A pack's
// objects are received in its install order (link targets first), so a
// run is newer than its events.
const (
	searchDirName = "search"
	journalAll    = "all"
	journalMagic  = "tine-search-journal 1\n"
	// journalLimit bounds a journal file: SearchPage oids of at most 80
	// bytes ("attestation:sha256:" and 64 hex digits) and their newlines.
	journalLimit = int64(len(journalMagic) + SearchPage*81)
)

// journalPath is the journal of tenant t for kind (an object type or
// journalAll).
func (s *Server) journalPath(t, kind string) string {
	return filepath.Join(s.cfg.Root, searchDirName, t, kind)
}

// readJournal reads a journal, newest first; a missing one is empty. A
// journal that does not parse is an error naming it, not ignored: the
// server wrote it whole (temp file, fsync, rename).
func readJournal(path string, a objects.Algo, kind string) ([]objects.OID, error) {
	b, err := fsutil.ReadFileWith(path, fsutil.ReadOptions{Limit: journalLimit, NoFollow: true})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rest, ok := bytes.CutPrefix(b, []byte(journalMagic))
	if !ok {
		return nil, fmt.Errorf("search journal %s: no header (move it aside: the next push writes a new one)", path)
	}
	var ids []objects.OID
	for len(rest) > 0 {
		line, after, ok := bytes.Cut(rest, []byte{'\n'})
		if !ok {
			return nil, fmt.Errorf("search journal %s: torn last line (move it aside: the next push writes a new one)", path)
		}
		id, err := objects.ParseOIDFor(a, string(line))
		if err != nil || kind != journalAll && string(id.Type) != kind || len(ids) == SearchPage {
			return nil, fmt.Errorf("search journal %s: line %d is not a %s oid (move it aside: the next push writes a new one)", path, len(ids)+2, kind)
		}
		ids = append(ids, id)
		rest = after
	}
	return ids, nil
}

// noteReceived puts the objects of an installed pack at the front of the
// tenant's journals, newest (last installed) first, each cut to
// SearchPage ids. The install has already succeeded, so a failure here
// is returned for the log only: those objects then count as older than
// every journalled one.
func (s *Server) noteReceived(ctx context.Context, r interface{ Algo() objects.Algo }, t string, objs []*objects.Object) error {
	dir := filepath.Join(s.cfg.Root, searchDirName, t)
	if err := fsutil.MkdirAllSync(dir, 0o755); err != nil {
		return err
	}
	unlock, err := flockPath(filepath.Join(dir, "lock"))
	if err != nil {
		return err
	}
	defer unlock()
	byKind := map[string][]objects.OID{}
	for i := len(objs) - 1; i >= 0; i-- {
		id := objs[i].ID
		byKind[journalAll] = append(byKind[journalAll], id)
		byKind[string(id.Type)] = append(byKind[string(id.Type)], id)
	}
	for kind, fresh := range byKind {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := s.journalPath(t, kind)
		old, err := readJournal(p, r.Algo(), kind)
		if err != nil {
			return err
		}
		var buf bytes.Buffer
		buf.WriteString(journalMagic)
		seen := make(map[objects.OID]bool, SearchPage)
		for _, id := range append(fresh, old...) {
			if len(seen) == SearchPage {
				break
			}
			if !seen[id] {
				seen[id] = true
				buf.WriteString(id.String())
				buf.WriteByte('\n')
			}
		}
		if err := fsutil.WriteFileAtomic(p, buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
