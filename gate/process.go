package gate

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"sync"
	"time"

	"github.com/tinehq/tine/internal/procgroup"
)

// MaxCollectedOutput is the cap on the combined stdout and stderr bytes
// collected from one process (SPEC §2: 8 MiB). Exceeding it kills the
// process group and the result is an error that is never parsed.
const MaxCollectedOutput = 8 << 20

// killGrace is how long a timed-out group gets between SIGTERM and SIGKILL.
const killGrace = 500 * time.Millisecond

// procSpec is one bounded process run.
type procSpec struct {
	argv    []string
	dir     string
	env     []string
	stdin   []byte
	timeout time.Duration
	limit   int // collection cap; MaxCollectedOutput when 0
}

// procResult is what a bounded run observed. Partial output is kept on
// timeout and overflow (SPEC §2, 0.5.2).
type procResult struct {
	stdout, stderr []byte
	exitCode       int
	exited         bool
	timedOut       bool
	overflow       bool
	canceled       bool
	startErr       error
}

// collector is the shared, capped sink of both output streams.
type collector struct {
	mu       sync.Mutex
	limit    int
	total    int
	bufs     [2]bytes.Buffer
	overflow chan struct{}
	once     sync.Once
}

type stream struct {
	c *collector
	i int
}

// Write keeps bytes up to the combined limit and signals overflow once; it
// never fails, so the child is not killed by a broken pipe mid-write.
func (s stream) Write(p []byte) (int, error) {
	c := s.c
	c.mu.Lock()
	defer c.mu.Unlock()
	room := c.limit - c.total
	if room < len(p) {
		if room > 0 {
			c.bufs[s.i].Write(p[:room])
			c.total += room
		}
		c.once.Do(func() { close(c.overflow) })
		return len(p), nil
	}
	c.bufs[s.i].Write(p)
	c.total += len(p)
	return len(p), nil
}

// runBounded runs one process in its own group with a timeout and an
// output cap; on timeout the group gets SIGTERM, then SIGKILL after a
// grace period, and a final SIGKILL always reaps stragglers (SPEC §2
// run_bounded). It never returns an error: failures are in the result.
func runBounded(ctx context.Context, s procSpec) procResult {
	limit := s.limit
	if limit <= 0 {
		limit = MaxCollectedOutput
	}
	col := &collector{limit: limit, overflow: make(chan struct{})}
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Dir, cmd.Env = s.dir, s.env
	cmd.Stdin = bytes.NewReader(s.stdin)
	cmd.Stdout, cmd.Stderr = stream{col, 0}, stream{col, 1}
	// A grandchild that keeps the pipes open must not hold Wait forever.
	cmd.WaitDelay = killGrace
	procgroup.Setup(cmd)
	if err := cmd.Start(); err != nil {
		return procResult{startErr: err}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	var res procResult
	var waitErr error
	select {
	case waitErr = <-done:
	case <-timer.C:
		res.timedOut = true
		waitErr = stopGroup(cmd, done)
	case <-col.overflow:
		res.overflow = true
		_ = procgroup.Kill(cmd)
		waitErr = <-done
	case <-ctx.Done():
		res.canceled = true
		waitErr = stopGroup(cmd, done)
	}
	_ = procgroup.Kill(cmd)
	col.mu.Lock()
	res.stdout = bytes.Clone(col.bufs[0].Bytes())
	res.stderr = bytes.Clone(col.bufs[1].Bytes())
	col.mu.Unlock()
	select {
	case <-col.overflow:
		res.overflow = true
	default:
	}
	var exitErr *exec.ExitError
	switch {
	case waitErr == nil:
		res.exited = true
	case errors.As(waitErr, &exitErr) && exitErr.Exited():
		res.exited, res.exitCode = true, exitErr.ExitCode()
	case errors.Is(waitErr, exec.ErrWaitDelay):
		res.exited, res.exitCode = true, cmd.ProcessState.ExitCode()
	}
	if res.timedOut || res.canceled || res.overflow {
		res.exited = false
	}
	return res
}

// stopGroup sends SIGTERM to the group, waits up to the grace period, then
// SIGKILLs it and waits for the child.
func stopGroup(cmd *exec.Cmd, done chan error) error {
	_ = procgroup.Terminate(cmd)
	grace := time.NewTimer(killGrace)
	defer grace.Stop()
	select {
	case err := <-done:
		return err
	case <-grace.C:
	}
	_ = procgroup.Kill(cmd)
	return <-done
}
