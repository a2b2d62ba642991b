package runs

import (
	"errors"
	"fmt"
)

// Errors of tine record's checks and its append after the command ran.
var (
	// ErrNotWritable means a directory record must write to refused a
	// probe file; nothing was run.
	ErrNotWritable = errors.New("repository is not writable")
	// ErrRefBusy means a live writer held the run's ref guard for the whole
	// of record's wait; nothing was run.
	ErrRefBusy = errors.New("ref is held by another live writer")
	// ErrSignalled means tine record was signalled before its command
	// started; nothing was run.
	ErrSignalled = errors.New("signalled")
	// ErrRecordingFailed means the command ran but its event could not be
	// appended; *RecordingError carries the details and the recovery file.
	ErrRecordingFailed = errors.New("recording failed after the command ran")
)

// RecordingError reports a command that ran (its status is known) whose
// event was not appended to the run. The event and the command's captured
// output are kept in a recovery file that `tine record --event FILE --ref
// REF` appends later, when Recovery is set.
type RecordingError struct {
	// Ref is the run's ref.
	Ref string
	// ExitCode and Signal are the command's status, as it would have been
	// recorded.
	ExitCode int
	Signal   string
	// Recovery is the path of the recovery file, or "" when none could be
	// written (RecoveryErr says why).
	Recovery    string
	RecoveryErr error
	// Err is why the append failed.
	Err error
}

// Error says that the command ran, why its event was not recorded and
// where it was kept.
func (e *RecordingError) Error() string {
	msg := fmt.Sprintf("%s (exit %d), nothing was appended to %s: %v", ErrRecordingFailed, e.ExitCode, e.Ref, e.Err)
	if e.Recovery != "" {
		return msg + fmt.Sprintf("; the event and the command's output are kept in %s: append them with tine record --event %s --ref %s", e.Recovery, e.Recovery, e.Ref)
	}
	return msg + fmt.Sprintf("; no recovery file could be written either: %v", e.RecoveryErr)
}

// Unwrap returns the append's error.
func (e *RecordingError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrRecordingFailed) true.
func (e *RecordingError) Is(target error) bool { return target == ErrRecordingFailed }
