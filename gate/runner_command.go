package gate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"
)

// commandRun is the last attempt of a command constraint, kept raw so the
// metric parsers can read it.
type commandRun struct {
	res procResult
	cwd string
}

// execCommand evaluates a command constraint (SPEC §2 command runner): it
// runs the command with its retry policy, fills ev's verdict,
// output, exit code and attempts, and returns the last attempt (nil when
// nothing ran). The verdict is pass, pending, fail or error.
func (e *Engine) execCommand(ctx context.Context, c *Constraint, env ExecEnv, red *redactor, limit int, ev *Evidence) *commandRun {
	cs := c.Command
	argv := commandArgv(cs.Argv, cs.Script, cs.Shell)
	ev.Command = make([]string, len(argv))
	for i, a := range argv {
		ev.Command[i] = red.text(a)
	}
	cwd, err := confined(env.Root, cs.Cwd)
	if err != nil {
		setResult(ev, Error, CategoryEnvironment, "Command cwd escapes the project root or does not exist")
		return nil
	}
	if info, err := os.Stat(cwd); err != nil || !info.IsDir() {
		setResult(ev, Error, CategoryEnvironment, "Command cwd does not exist")
		return nil
	}
	timeout := c.Timeout()
	budget, maxAttempts := timeout, 1
	if r := cs.Retry; r != nil {
		maxAttempts = r.MaxAttempts
		if r.TotalTimeoutSeconds != nil {
			budget = seconds(*r.TotalTimeoutSeconds)
		}
	}
	deadline := e.Now().Add(budget)
	var last *commandRun
	for n := 1; n <= maxAttempts; n++ {
		remaining := deadline.Sub(e.Now())
		if remaining <= 0 {
			setResult(ev, Error, CategoryEnvironment, fmt.Sprintf("Command timed out after %s across retry attempts", fmtSeconds(budget)))
			return last
		}
		attemptTimeout := timeout
		if cs.Retry != nil {
			// SPEC §2 retry loop: each attempt gets min(timeout, remaining).
			attemptTimeout = min(timeout, remaining)
		}
		started := e.Now()
		res := runBounded(ctx, procSpec{argv: argv, dir: cwd, env: env.Env, timeout: attemptTimeout})
		last = &commandRun{res: res, cwd: cwd}
		v, cat, msg, retryable := classifyAttempt(cs, res, attemptTimeout, red)
		att := Attempt{Number: n, Started: started.UTC(), Duration: e.Now().Sub(started),
			Output: red.outputTail(res.stdout, res.stderr, limit)}
		if res.exited {
			att.ExitCode = intPtr(res.exitCode)
			ev.ExitCode = intPtr(res.exitCode)
		} else {
			att.Error = msg
			ev.ExitCode = nil
		}
		ev.Attempts = append(ev.Attempts, att)
		ev.Output = att.Output
		if v == Pass && n > 1 {
			msg = fmt.Sprintf("Command passed after %d attempts", n)
		}
		setResult(ev, v, cat, msg)
		if !retryable || n == maxAttempts || ctx.Err() != nil {
			return last
		}
		wait := min(seconds(cs.Retry.DelaySeconds), deadline.Sub(e.Now()))
		if err := e.Sleep(ctx, wait); err != nil {
			return last
		}
	}
	return last
}

// classifyAttempt maps one attempt to a verdict and says whether the
// retry policy allows another attempt.
func classifyAttempt(cs *CommandSpec, res procResult, timeout time.Duration, red *redactor) (Verdict, Category, string, bool) {
	r := cs.Retry
	switch {
	case res.startErr != nil:
		return Error, CategoryEnvironment, "Command could not start: " + red.text(stableStartError(res.startErr)), r != nil && r.RetryStartErrors
	case res.overflow:
		return Error, CategoryEnvironment, fmt.Sprintf("Command output exceeded the %d byte limit", MaxCollectedOutput), false
	case res.timedOut:
		return Error, CategoryEnvironment, fmt.Sprintf("Command timed out after %s", fmtSeconds(timeout)), r != nil && r.RetryTimeouts
	case res.canceled:
		return Error, CategoryEnvironment, "Command was canceled", false
	case !res.exited:
		return Fail, CategoryConstraint, "Command was terminated by a signal", false
	case slices.Contains(cs.PendingCodes, res.exitCode):
		return Pending, "", fmt.Sprintf("Command is pending (exit code %d)", res.exitCode), false
	case slices.Contains(cs.SuccessCodes, res.exitCode):
		return Pass, "", "Command passed", false
	}
	return Fail, CategoryConstraint, fmt.Sprintf("Command exited with code %d", res.exitCode), r != nil && slices.Contains(r.ExitCodes, res.exitCode)
}

// commandArgv turns a command into argv: a shell command runs as
// /bin/sh -c SCRIPT, and a shell argv list as /bin/sh -c ARGV0 ARGV1...,
// as Python's Popen(shell=True) does.
func commandArgv(argv []string, script string, shell bool) []string {
	switch {
	case script != "":
		return []string{"/bin/sh", "-c", script}
	case shell:
		return append([]string{"/bin/sh", "-c"}, argv...)
	}
	return slices.Clone(argv)
}

// stableStartError drops the absolute path a start error may carry.
func stableStartError(err error) string {
	s := err.Error()
	if filepath.IsAbs(s) {
		return stableError(err)
	}
	return s
}

func fmtSeconds(d time.Duration) string {
	return strconv.FormatFloat(d.Round(time.Millisecond).Seconds(), 'f', -1, 64) + "s"
}
