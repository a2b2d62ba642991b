package plumbing

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/refs"
)

// CurrentRunFile is the top-level file naming the current run (git's
// HEAD for runs: `tine switch`). OpenTine reads only config.json,
// objects/<type>/, refs/, logs/, packs/ and shallow, so it never sees this
// file, and config.json stays byte for byte OpenTine's.
const CurrentRunFile = "current-run"

// maxCurrentRunBytes bounds the file: a ref name, an oid and the JSON
// around them.
const maxCurrentRunBytes = 4096

// ErrBadCurrentRun means current-run exists but does not hold a ref name
// and an oid of this repository; `tine switch` rewrites it.
var ErrBadCurrentRun = errors.New("current-run is damaged; run tine switch REF to set it again")

// CurrentRun is the content of CurrentRunFile: one JSON object and a
// newline, {"ref":"heads/main","seen":"run:..."}.
type CurrentRun struct {
	// Ref is the current run's ref, normalized; it need not exist yet
	// (tine switch --create without a start names a run record creates).
	Ref string `json:"ref"`
	// Seen is the value tine last saw Ref hold: at switch, or after a
	// write of tine's run verbs that moved Ref from Seen (NoteRefMove);
	// "" when the ref did not exist then. Ref holding anything else
	// means something else moved it.
	Seen string `json:"seen"`
}

// ReadCurrentRun returns the current run, or nil when none is set. The
// file is read without following symlinks, bounded, and checked.
func (r *Repo) ReadCurrentRun() (*CurrentRun, error) {
	b, err := fsutil.ReadFileNoSymlinks(r.root, CurrentRunFile, maxCurrentRunBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", CurrentRunFile, err)
	}
	c, err := parseCurrentRun(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %v: %w", CurrentRunFile, err, ErrBadCurrentRun)
	}
	if name, err := refs.NormalizeName(c.Ref); err != nil || name != c.Ref {
		return nil, fmt.Errorf("%s: ref %q: %w", CurrentRunFile, c.Ref, ErrBadCurrentRun)
	}
	if c.Seen != "" {
		if _, err := objects.ParseOIDFor(r.algo, c.Seen); err != nil {
			return nil, fmt.Errorf("%s: seen %q: %w", CurrentRunFile, c.Seen, ErrBadCurrentRun)
		}
	}
	return c, nil
}

// parseCurrentRun reads the file's one JSON object strictly (SPEC §0.1
// JSON: no duplicate key, nothing after it; encoding/json would take a key
// in any case and stop at the first value): a string "ref" and, optionally,
// a string "seen", nothing else. The values are checked by the caller.
func parseCurrentRun(b []byte) (*CurrentRun, error) {
	doc, err := objects.ParseJSON(b, objects.ParseOptions{})
	if err != nil {
		return nil, err
	}
	if doc.Kind != objects.KindObject {
		return nil, errors.New("not a JSON object")
	}
	var c CurrentRun
	for _, m := range doc.Object {
		var dst *string
		switch m.Key {
		case "ref":
			dst = &c.Ref
		case "seen":
			dst = &c.Seen
		default:
			return nil, fmt.Errorf("unknown key %q", m.Key)
		}
		if m.Value.Kind != objects.KindString {
			return nil, fmt.Errorf("%s is not a string", m.Key)
		}
		*dst = m.Value.Str
	}
	return &c, nil
}

// WriteCurrentRun replaces the current run, atomically (temp file in the
// repository, fsync, rename, fsync the directory).
func (r *Repo) WriteCurrentRun(c CurrentRun) error {
	if name, err := refs.NormalizeName(c.Ref); err != nil || name != c.Ref {
		return fmt.Errorf("current run %q: want a normalized ref name: %w", c.Ref, ErrBadInput)
	}
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(filepath.Join(r.root, CurrentRunFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", CurrentRunFile, err)
	}
	return nil
}

// ClearCurrentRun removes the current run (commands go back to their
// default, heads/main), durably.
func (r *Repo) ClearCurrentRun() error {
	if err := os.Remove(filepath.Join(r.root, CurrentRunFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove %s: %w", CurrentRunFile, err)
	}
	return fsutil.SyncDir(r.root)
}

// NoteRefMove advances the current run's Seen to next when ref is the
// current run's ref and it moved from Seen (old; zero for a ref that did
// not exist) to next by a write of tine's own: a move from any other value
// leaves Seen alone, so `tine status` keeps reporting that something else
// moved the ref. It is a mark, not data: callers report its error at most
// as a notice, never as the failure of the write that succeeded.
func (r *Repo) NoteRefMove(ref string, old, next objects.OID) error {
	c, err := r.ReadCurrentRun()
	if err != nil || c == nil || c.Ref != ref {
		return err
	}
	want := ""
	if !old.IsZero() {
		want = old.String()
	}
	if c.Seen != want {
		return nil
	}
	c.Seen = next.String()
	return r.WriteCurrentRun(*c)
}
