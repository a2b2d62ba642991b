package runs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/tinehq/tine/internal/procgroup"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// tine replay REF --rerun: run again, in a scratch directory, every command
// tine record captured in the run, and compare exit codes and output.
//
// The commands are the run's events with kind "tool" whose attributes hold
// an argv list of strings (what Record writes; other events are skipped).
// They run in the run's order, one after another, in one fresh temporary
// directory, so a command sees the files earlier commands made, as it did
// when recorded; the recorded cwd is never entered. Standard input is empty.
// Output is captured with the recording's bound and scrubbed with the same
// redaction (SPEC §1.7) before it is compared with the stored blobs: the
// output blob against stdout, the artifact blob against stderr. Each command
// is bounded by a timeout that kills its whole process group.

// DefaultRerunTimeout bounds each re-executed command.
const DefaultRerunTimeout = 60 * time.Second

// Outcomes of one re-executed command.
const (
	// RerunSame: same exit code and same (redacted) output.
	RerunSame = "same"
	// RerunDrift: the exit code or the output differs.
	RerunDrift = "drift"
	// RerunTimeout: the command outlived the timeout and was killed.
	RerunTimeout = "timeout"
	// RerunNotStarted: the command could not be started (program missing).
	RerunNotStarted = "not-started"
	// RerunNoCheckout: with InRecordedCheckout, the command's recorded code
	// state could not be checked out (none recorded, commit missing, patch
	// not stored or not applying); the command did not run.
	RerunNoCheckout = "no-checkout"
)

// rerunWaitDelay is how long a killed command's output pipes may stay open
// (held by a grandchild outside the group) before Wait gives up on them.
const rerunWaitDelay = 2 * time.Second

// RerunOptions configures Rerun.
type RerunOptions struct {
	// Timeout bounds each command; 0 means DefaultRerunTimeout.
	Timeout time.Duration
	// TempDir is where the scratch directory is made; "" means the
	// system's temporary directory. The scratch directory is removed after.
	TempDir string
	// Env is the commands' environment; nil means the current process's.
	Env []string
	// MaxCapture bounds each captured stream; 0 means DefaultMaxCapture,
	// the bound Record uses, so truncated recordings compare alike.
	MaxCapture int
	// Now is the clock durations are measured with; nil means time.Now.
	Now func() time.Time
	// InRecordedCheckout runs each command in a temporary checkout of the
	// code state recorded with it (workspace_checkout.go), made from the
	// git repository holding Source, instead of the scratch directory.
	InRecordedCheckout bool
	// Source is a directory in the git repository that holds the recorded
	// commits; "" means the current directory.
	Source string
}

// RerunResult is what `tine replay --rerun` reports.
type RerunResult struct {
	Revision string `json:"revision,omitempty"`
	Ref      string `json:"ref,omitempty"`
	Run      string `json:"run"`
	// Reran counts re-executed commands; NotRun the commands whose
	// recorded code state could not be checked out (RerunNoCheckout: they
	// did not run, and count as not reproduced); Skipped the events that
	// are not recorded commands.
	Reran   int `json:"reran"`
	NotRun  int `json:"not_run"`
	Skipped int `json:"skipped"`
	// OK reports that every command reproduced.
	OK     bool         `json:"ok"`
	Events []RerunEvent `json:"events"`
}

// RerunEvent is the outcome of re-executing one recorded command.
type RerunEvent struct {
	Event    string   `json:"event"`
	Position int      `json:"position"`
	Argv     []string `json:"argv"`
	// Status is one of RerunSame, RerunDrift, RerunTimeout, RerunNotStarted.
	Status string `json:"status"`
	// RecordedExit and ExitCode are the exit statuses then and now (128+N
	// for a signal); ExitDrift says they differ.
	RecordedExit int  `json:"recorded_exit_code"`
	ExitCode     int  `json:"exit_code"`
	ExitDrift    bool `json:"exit_drift"`
	// StdoutDrift and StderrDrift say the output differs; Stdout and
	// Stderr then hold the diff, recorded (a) against now (b).
	StdoutDrift bool      `json:"stdout_drift"`
	StderrDrift bool      `json:"stderr_drift"`
	Stdout      *TextDiff `json:"stdout,omitempty"`
	Stderr      *TextDiff `json:"stderr,omitempty"`
	// Duration is how long the command took now, in seconds.
	Duration float64 `json:"duration"`
	Message  string  `json:"message,omitempty"`
	// Checkout is the code state the command ran in (its manifest blob)
	// under InRecordedCheckout.
	Checkout string `json:"checkout,omitempty"`
}

// RerunRevision resolves rev with ResolveRun and re-executes its commands.
func RerunRevision(ctx context.Context, r *plumbing.Repo, rev string, opt RerunOptions) (*RerunResult, error) {
	run, ref, err := ResolveRun(ctx, r, rev)
	if err != nil {
		return nil, err
	}
	res, err := Rerun(ctx, r.Objects(), run, opt)
	if err != nil {
		return nil, err
	}
	res.Revision, res.Ref = rev, ref
	return res, nil
}

// Rerun re-executes the recorded commands of run (see above), reading the
// recorded output blobs through g.
func Rerun(ctx context.Context, g objects.Getter, run *Run, opt RerunOptions) (*RerunResult, error) {
	if opt.Timeout <= 0 {
		opt.Timeout = DefaultRerunTimeout
	}
	if opt.MaxCapture <= 0 {
		opt.MaxCapture = DefaultMaxCapture
	}
	if opt.Env == nil {
		opt.Env = os.Environ()
	}
	opt.Now = Clock(opt.Now)
	scratch, err := os.MkdirTemp(opt.TempDir, "tine-rerun-")
	if err != nil {
		return nil, fmt.Errorf("creating a scratch directory: %w", err)
	}
	defer os.RemoveAll(scratch)
	co := &checkouts{g: g, opt: opt}
	defer co.close()
	res := &RerunResult{Run: run.ID.String(), Events: []RerunEvent{}}
	for i, e := range run.Events {
		av := eventArgv(e)
		if e.Missing || e.Kind != "tool" || len(av) == 0 || av[0] == "" {
			res.Skipped++
			continue
		}
		dir, note := scratch, ""
		if opt.InRecordedCheckout {
			c, err := co.forEvent(ctx, e)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				res.NotRun++
				res.Events = append(res.Events, RerunEvent{Event: e.ID.String(), Position: i, Argv: av,
					Status: RerunNoCheckout, Message: oneLineError(err)})
				continue
			}
			dir, note = c.dir, c.note
		}
		out, err := rerunOne(ctx, g, e, av, dir, opt)
		if err != nil {
			return nil, err
		}
		if opt.InRecordedCheckout {
			out.Checkout = co.cur.manifest.String()
			if note != "" && out.Message == "" {
				out.Message = note
			}
		}
		out.Position = i
		res.Reran++
		res.Events = append(res.Events, *out)
	}
	res.OK = true
	for _, e := range res.Events {
		if e.Status != RerunSame {
			res.OK = false
		}
	}
	return res, nil
}

// rerunOne executes one recorded command in dir and compares it.
func rerunOne(ctx context.Context, g objects.Getter, e *Event, av []string, dir string, opt RerunOptions) (*RerunEvent, error) {
	out := &RerunEvent{Event: e.ID.String(), Argv: av}
	if rc, ok := eventExitCode(e); ok {
		out.RecordedExit = int(rc)
	}
	wantOut, err := blobBytes(ctx, g, e.OutputBlob)
	if err != nil {
		return nil, err
	}
	wantErr, err := blobBytes(ctx, g, e.ArtifactBlob)
	if err != nil {
		return nil, err
	}
	tctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	stdout, stderr := &capture{max: opt.MaxCapture}, &capture{max: opt.MaxCapture}
	cmd := exec.CommandContext(tctx, av[0], av[1:]...)
	cmd.Dir, cmd.Env = dir, opt.Env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	procgroup.Setup(cmd)
	cmd.Cancel = func() error { return procgroup.Kill(cmd) }
	cmd.WaitDelay = rerunWaitDelay
	start := opt.Now()
	runErr := cmd.Run()
	out.Duration = max(opt.Now().Sub(start).Seconds(), 0)
	if err := ctx.Err(); err != nil {
		return nil, err // the user interrupted the replay, not a drift
	}
	if errors.Is(tctx.Err(), context.DeadlineExceeded) {
		out.Status = RerunTimeout
		out.Message = fmt.Sprintf("killed after %s", opt.Timeout)
		return out, nil
	}
	code, _, err := exitStatus(cmd, runErr)
	if err != nil {
		out.Status = RerunNotStarted
		out.Message = err.Error()
		return out, nil
	}
	out.ExitCode = code
	out.ExitDrift = code != out.RecordedExit
	gotOut, _ := stdout.bytes()
	gotErr, _ := stderr.bytes()
	// Redacted exactly as record redacts, secret-named variables included.
	red := objects.NewEnvRedactor(opt.Env)
	gotOut, gotErr = red.Blob(gotOut), red.Blob(gotErr)
	if !bytes.Equal(gotOut, wantOut) {
		out.StdoutDrift = true
		out.Stdout = UnifiedDiff(wantOut, gotOut, TextDiffOptions{OldName: "recorded/stdout", NewName: "rerun/stdout"})
	}
	if !bytes.Equal(gotErr, wantErr) {
		out.StderrDrift = true
		out.Stderr = UnifiedDiff(wantErr, gotErr, TextDiffOptions{OldName: "recorded/stderr", NewName: "rerun/stderr"})
	}
	out.Status = RerunSame
	if out.ExitDrift || out.StdoutDrift || out.StderrDrift {
		out.Status = RerunDrift
	}
	return out, nil
}

// blobBytes reads a blob's bytes; the zero oid is empty.
func blobBytes(ctx context.Context, g objects.Getter, id objects.OID) ([]byte, error) {
	if id.IsZero() {
		return nil, nil
	}
	o, err := g.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("blob %s: %w", id, err)
	}
	return o.Body, nil
}
