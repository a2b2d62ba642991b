package gates

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// GateStateDir is the directory inside a repository that holds the gate's
// mutable state: loop journals, locks and leases (loops/), hook sessions
// (sessions/) and the hook tombstone. Evidence itself is objects and refs;
// this state is only the bookkeeping that must change in place, written
// atomically (temporary file, fsync, rename) under a file lock, following
// no symlink below the repository (gate_state.go).
func GateStateDir(r *plumbing.Repo) string { return filepath.Join(r.Root(), "gate") }

// Loop journal errors.
var (
	// ErrGateLoopName reports a loop name outside [A-Za-z0-9._-] or one the
	// contract does not define.
	ErrGateLoopName = errors.New("invalid loop name")
	// ErrCycleJournalCorrupt reports a journal that does not decode or
	// validate; the cycle fails closed and the budget cannot be reset by
	// corrupting it (SPEC §6).
	ErrCycleJournalCorrupt = errors.New("loop journal is corrupt")
	// ErrCycleLease reports a supervisor lease held by another live
	// supervisor, or a lease this supervisor lost.
	ErrCycleLease = errors.New("loop supervisor lease unavailable")
)

// maxJournalBytes bounds a journal file before it is read, and before it
// is written: a challenge ledger grows with each submission (each at most
// gate.MaxSubmissionBytes), and a journal too large to read back would
// halt the loop, so the write that would produce one is refused instead.
const maxJournalBytes = 16 << 20

// Regexps here compile on first use (sync.OnceValue), not at every
// process start: most commands never match them (issue 13).

var loopNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._-]{1,128}$`) })

// checkLoopName refuses names that could leave the loops directory.
func checkLoopName(name string) error {
	if !loopNameRE().MatchString(name) || name == "." || name == ".." {
		return fmt.Errorf("%w: %q (use letters, digits, '.', '_' and '-')", ErrGateLoopName, name)
	}
	return nil
}

// loopJournal is loops/<name>.json (SPEC §6 LoopJournal, schema_version 1).
// Times are Unix seconds. LastRun names the gate run of the last
// evaluation, whose events are the evidence (SPEC's last_evidence).
type loopJournal struct {
	SchemaVersion    int          `json:"schema_version"`
	Loop             string       `json:"loop"`
	ContractDigest   string       `json:"contract_digest"`
	StartedAt        float64      `json:"started_at"`
	UpdatedAt        float64      `json:"updated_at"`
	Observation      int          `json:"observation"`
	RepairAttempt    int          `json:"repair_attempt"`
	UnchangedRepairs int          `json:"unchanged_repairs"`
	PriorState       string       `json:"prior_state"`
	PriorSnapshot    string       `json:"prior_snapshot"`
	InputSnapshot    string       `json:"input_snapshot"`
	LastResult       *CycleResult `json:"last_result"`
	LastRun          string       `json:"last_run"`
	Goal             string       `json:"goal"`
	Continuations    int          `json:"continuations"`
	// Challenge is the session challenge ledger of a loop with a
	// challenge block (gate_challenge.go).
	Challenge *gate.ChallengeLedger `json:"challenge,omitempty"`
}

// journalFile names the loop's journal in the state directory.
func journalFile(name string) string { return "loops/" + name + ".json" }

// journalPath is the path of the loop's journal.
func journalPath(stateDir, name string) string {
	return statePath(stateDir, journalFile(name))
}

// loadJournal reads a loop's journal; nil when there is none. A journal
// that is a symlink (or lies in one) is refused, not read as corrupt.
func loadJournal(stateDir, name string) (*loopJournal, error) {
	raw, err := readStateFile(stateDir, journalFile(name), maxJournalBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if errors.Is(err, fsutil.ErrSymlink) {
		return nil, fmt.Errorf("loop %s journal: %w", name, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCycleJournalCorrupt, name, err)
	}
	var j loopJournal
	if err := decodeStrictJSON(raw, &j); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCycleJournalCorrupt, name, err)
	}
	if err := j.validate(name); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCycleJournalCorrupt, name, err)
	}
	return &j, nil
}

// decodeStrictJSON decodes raw into v refusing duplicate keys (the strict
// reader), unknown fields and trailing data.
func decodeStrictJSON(raw []byte, v any) error {
	if _, err := objects.ParseJSON(raw, objects.ParseOptions{MaxIntDigits: 32}); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data")
	}
	return nil
}

func (j *loopJournal) validate(name string) error {
	switch {
	case j.SchemaVersion != 1:
		return fmt.Errorf("schema_version %d", j.SchemaVersion)
	case j.Loop != name:
		return fmt.Errorf("journal is for loop %q", j.Loop)
	case j.Observation < 0 || j.RepairAttempt < 0 || j.UnchangedRepairs < 0 || j.Continuations < 0:
		return errors.New("negative counter")
	case j.UnchangedRepairs > j.RepairAttempt:
		return errors.New("more unchanged repairs than repairs")
	case j.StartedAt <= 0 || j.UpdatedAt < j.StartedAt:
		return errors.New("bad timestamps")
	case j.PriorState != "" && !knownCycleState(j.PriorState):
		return fmt.Errorf("unknown prior_state %q", j.PriorState)
	}
	if r := j.LastResult; r != nil {
		if r.SchemaVersion != 1 || r.Loop != name || r.State != j.PriorState {
			return errors.New("last_result does not match the journal")
		}
	}
	return nil
}

// saveJournal writes the journal atomically, following no symlink.
func saveJournal(stateDir string, j *loopJournal) error {
	raw, err := jsonIndent(j)
	if err != nil {
		return err
	}
	if len(raw) > maxJournalBytes {
		return fmt.Errorf("loop %s: the journal would exceed %d bytes; nothing was written", j.Loop, maxJournalBytes)
	}
	if err := writeStateFile(stateDir, journalFile(j.Loop), raw); err != nil {
		return fmt.Errorf("loop %s journal: %w", j.Loop, err)
	}
	return nil
}

// snapshotID names canonical JSON by its content: the loop's evidence and
// input snapshots. objects derives it, as it derives every digest tine
// writes; sha256 keeps it independent of the repository's hash profile.
func snapshotID(v objects.Value) (string, error) {
	b, err := objects.CanonV3(v)
	if err != nil {
		return "", err
	}
	return objects.NewBlob(objects.SHA256, b).ID.String(), nil
}

// jsonIndent encodes a state record as indented JSON with a final newline.
func jsonIndent(v any) ([]byte, error) {
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(raw, '\n'), nil
}

// knownCycleState reports whether state is one of the cycle states.
func knownCycleState(state string) bool {
	_, ok := CycleExitCode(state)
	return ok
}
