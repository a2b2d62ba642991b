package gates

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
)

// maxGoalChars keeps the last characters of a long prompt as the goal
// (SPEC §7 user-prompt).
const maxGoalChars = 8000

// hookSession is sessions/<id>.json: what the hooks remember about one
// agent session between calls. Attempts counts stop-hook blocks since the
// last allowed completion (SPEC §7 _bounded_retry).
type hookSession struct {
	SchemaVersion int    `json:"schema_version"`
	Session       string `json:"session"`
	Goal          string `json:"goal"`
	Attempts      int    `json:"attempts"`
	LastFeedback  string `json:"last_hook_feedback"`
}

// Regexps here compile on first use (sync.OnceValue), not at every
// process start: most commands never match them (issue 13).

var sessionNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`) })

// sessionFile names the session's file in the state directory; an id
// that is not a safe file name is named by its digest instead, so no
// payload reaches a path.
func sessionFile(id string) string {
	name := id
	if !sessionNameRE().MatchString(id) || id == "." || id == ".." {
		d, _ := snapshotID(objects.String(id))
		name = strings.ReplaceAll(d, ":", "-")
	}
	return "sessions/" + name + ".json"
}

// updateSession loads the session under its lock, lets fn change it and
// saves it atomically. A corrupt session file reads as a fresh session
// (SPEC §10: corrupt session is {}); a symlink at the session, its lock or
// a directory holding them is refused, so the hook fails closed rather
// than take a goal from, or write one to, what the link reaches.
func updateSession(stateDir, id string, fn func(*hookSession)) (*hookSession, error) {
	name := sessionFile(id)
	l, err := stateLock(stateDir, name+".lock")
	if err != nil {
		return nil, fmt.Errorf("hook session %s: %w", id, err)
	}
	if err := l.Lock(); err != nil {
		return nil, fmt.Errorf("hook session %s: %w", id, lockStateError(stateDir, name+".lock", err))
	}
	defer l.Unlock()
	s := &hookSession{}
	raw, err := readStateFile(stateDir, name, 1<<20)
	switch {
	case errors.Is(err, fsutil.ErrSymlink):
		return nil, fmt.Errorf("hook session %s: %w", id, err)
	case err == nil:
		if decodeStrictJSON(raw, s) != nil || s.SchemaVersion != 1 || s.Session != id || s.Attempts < 0 {
			s = &hookSession{}
		}
	}
	s.SchemaVersion, s.Session = 1, id
	fn(s)
	raw, err = jsonIndent(s)
	if err != nil {
		return nil, err
	}
	if err := writeStateFile(stateDir, name, raw); err != nil {
		return nil, fmt.Errorf("hook session %s: %w", id, err)
	}
	return s, nil
}

// lastChars keeps the last n characters of s.
func lastChars(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[len(r)-n:])
}
