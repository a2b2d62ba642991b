package runs

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// commandRun is what running a recorded command produced.
type commandRun struct {
	code       int
	signal     string   // the signal that ended the command, or ""
	forwarded  []string // the signals tine sent its process group, in order
	start, end time.Time
	stdout     []byte
	stderr     []byte
	outCut     bool
	errCut     bool
}

// runCommand runs opt.Argv as the leader of its own process group (or in
// tine's, on tine's terminal: setupGroup), teeing its output into bounded
// captures, and waits for it whatever signals arrive meanwhile. Each
// signal on opt.Signals is forwarded to the group the first time it
// arrives; the same signal arriving again kills the group (SIGKILL), so a
// second Ctrl-C stops a command that ignores the first. SIGPIPE (tine's
// own output closed) is not forwarded: the command keeps running and its
// output is still captured. ctx only stops the command from starting: once
// started, it is stopped by signals, never by a cancellation that would
// leave its event unrecorded. In every case the command's status is
// returned, so it is recorded; only a command that cannot start is an
// error.
func runCommand(ctx context.Context, opt RecordOptions, dir string, env []string, max int, now func() time.Time) (*commandRun, error) {
	out, errc := &capture{max: max}, &capture{max: max}
	cmd := exec.Command(opt.Argv[0], opt.Argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, opt.Stdin
	cmd.Stdout = &teeWriter{live: opt.Stdout, cap: out}
	cmd.Stderr = &teeWriter{live: opt.Stderr, cap: errc}
	// A signal caught while record was still checking is a request to
	// stop before anything ran, not one for the command.
	for pending := true; pending; {
		select {
		case sig := <-opt.Signals:
			if sig != syscall.SIGPIPE {
				return nil, fmt.Errorf("%w before the command started (%s); nothing was run", ErrSignalled, sig)
			}
		default:
			pending = false
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	group := setupGroup(cmd, opt.Stdin)
	res := &commandRun{start: now()}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", opt.Argv[0], ErrCommandNotStarted, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	sent := map[os.Signal]bool{}
	var waitErr error
wait:
	for {
		select {
		case waitErr = <-done:
			break wait
		case sig := <-opt.Signals:
			if sig == syscall.SIGPIPE {
				continue
			}
			if sent[sig] {
				sig = syscall.SIGKILL
			}
			sent[sig] = true
			if group.forward(sig) {
				res.forwarded = append(res.forwarded, sig.String())
			}
		}
	}
	res.end = now()
	code, sig, err := exitStatus(cmd, waitErr)
	if err != nil && cmd.ProcessState != nil {
		// The command exited but copying its output failed: its status
		// is known, and it is recorded with the output captured so far.
		code, sig, err = exitStatus(cmd, &exec.ExitError{ProcessState: cmd.ProcessState})
	}
	if err != nil {
		return nil, fmt.Errorf("%s: wait: %w", opt.Argv[0], err)
	}
	res.code, res.signal = code, sig
	res.stdout, res.outCut = out.bytes()
	res.stderr, res.errCut = errc.bytes()
	return res, nil
}
