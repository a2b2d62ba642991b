package loop

import (
	"time"

	"github.com/tinehq/tine/objects"
)

// BestSnapshot is an immutable capture of the best step so far, taken the
// moment it became best (the README's BestSnapshot): later steps of the same
// branch never change it; a strictly higher score replaces it.
type BestSnapshot struct {
	BranchID   string
	Iteration  int
	BranchStep int
	Score      float64
	// State is a private copy of the state that was scored.
	State objects.Value
	// Digest is the state's digest (Snapshot.Digest); the zero OID when
	// the run has no Recorder.
	Digest      objects.OID
	Observation string
}

// Branch is one branch as it stands: ids, the live state and the figures
// that ranked it. Run hands out copies.
type Branch struct {
	ID     string
	Parent string
	// FromIteration is the global step that proposed the fork's first
	// state, 0 for the root.
	FromIteration int
	// State is the branch's live state: the state it ended at, or the
	// proposal it adopted last.
	State objects.Value
	// Score is the last measured score, or the proposed score of a fork
	// that never ran; pruning ranks by it (loopforge.md §1.3 step 12).
	Score float64
	// Steps and Cost are the branch's own steps and spend.
	Steps int
	Cost  float64
	// LastIteration is the global number of the branch's last step.
	LastIteration int
	// Gate and Reason say how the branch ended.
	Gate   Gate
	Reason string
}

// betterThan reports whether score should replace the current best: it must
// be strictly greater (ties keep the incumbent, loopforge.md §1.5), so NaN
// and -Inf never become best.
func betterThan(score float64, best *BestSnapshot) bool {
	if best == nil {
		return score > negInf
	}
	return score > best.Score
}

// elapsedSince is the injected clock's view of a duration, never negative
// even if the fake clock goes backwards.
func elapsedSince(now, start time.Time) time.Duration {
	if d := now.Sub(start); d > 0 {
		return d
	}
	return 0
}
