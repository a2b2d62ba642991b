package runs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/tinehq/tine/internal/procgroup"
)

// git runs as a subprocess with a fixed argument vector: nothing recorded
// (a commit, a path, a patch) ever reaches its argv. What git must read of
// recorded content (a commit id to check, a patch to apply) goes through
// its standard input or a file in a directory tine created. Every call has
// a timeout that kills git's process group and a bound on what it may
// print; more output than the bound stops git (its pipe closes) and is an
// error, never a silently shortened result.

// DefaultGitTimeout bounds each git call of a workspace capture or checkout.
const DefaultGitTimeout = 30 * time.Second

// maxGitStderr bounds what is kept of git's standard error for a message.
const maxGitStderr = 4096

// Errors of the git subprocess.
var (
	// ErrGitMissing means git is not installed (not found in PATH).
	ErrGitMissing = errors.New("git is not installed")
	// ErrGitOutputTooLarge means git printed more than the caller's bound.
	ErrGitOutputTooLarge = errors.New("git output over the bound")
)

// gitRunner runs git in one directory.
type gitRunner struct {
	path    string // the git executable
	dir     string
	env     []string
	timeout time.Duration
}

// newGitRunner finds git in PATH. env is the base environment (nil means
// the process's); GIT_DIR-style variables are kept only when keepGitEnv is
// set, so a checkout made for replay is never redirected elsewhere.
func newGitRunner(dir string, env []string, timeout time.Duration, keepGitEnv bool) (*gitRunner, error) {
	p, err := exec.LookPath("git")
	if err != nil {
		return nil, ErrGitMissing
	}
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+4)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "LC_ALL" || name == "LANGUAGE" || name == "GIT_TERMINAL_PROMPT" || name == "GIT_OPTIONAL_LOCKS":
			continue
		case !keepGitEnv && strings.HasPrefix(name, "GIT_"):
			continue
		}
		out = append(out, kv)
	}
	// C locale for messages tine may show; no prompt for credentials; no
	// index refresh writes while capturing (git status-like reads take the
	// index lock otherwise and could disturb the user's own git).
	out = append(out, "LC_ALL=C", "LANGUAGE=", "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	if timeout <= 0 {
		timeout = DefaultGitTimeout
	}
	return &gitRunner{path: p, dir: dir, env: out, timeout: timeout}, nil
}

// gitError is a failed git call: its exit code and the first line of what
// it wrote on standard error.
type gitError struct {
	Args []string
	Code int
	Msg  string
}

// Error implements error.
func (e *gitError) Error() string {
	msg := e.Msg
	if msg == "" {
		msg = fmt.Sprintf("exit status %d", e.Code)
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

// run runs git with args (a constant vector chosen by tine), feeding stdin
// (nil for none), and returns at most max bytes of standard output.
func (g *gitRunner) run(ctx context.Context, stdin []byte, max int, args ...string) ([]byte, error) {
	out, over, err := g.runPrefix(ctx, stdin, max, args...)
	if over {
		return nil, fmt.Errorf("git %s: %w (%d bytes)", strings.Join(args, " "), ErrGitOutputTooLarge, max)
	}
	return out, err
}

// runPrefix is run for output whose start is useful on its own: past max
// bytes git is stopped and the first max bytes come back with over set
// (and no error for the stop itself).
func (g *gitRunner) runPrefix(ctx context.Context, stdin []byte, max int, args ...string) ([]byte, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, g.path, args...)
	cmd.Dir, cmd.Env = g.dir, g.env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out := &limitWriter{max: max}
	errOut := &capture{max: maxGitStderr}
	cmd.Stdout, cmd.Stderr = out, errOut
	procgroup.Setup(cmd)
	cmd.Cancel = func() error { return procgroup.Kill(cmd) }
	cmd.WaitDelay = rerunWaitDelay
	err := cmd.Run()
	if out.over {
		return out.buf.Bytes(), true, nil
	}
	if ctx.Err() != nil {
		return nil, false, fmt.Errorf("git %s: killed after %s", strings.Join(args, " "), g.timeout)
	}
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return nil, false, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
		}
		eb, _ := errOut.bytes()
		first, _, _ := strings.Cut(strings.TrimSpace(string(eb)), "\n")
		return out.buf.Bytes(), false, &gitError{Args: args, Code: ee.ExitCode(), Msg: first}
	}
	return out.buf.Bytes(), false, nil
}

// limitWriter keeps up to max bytes and fails the write that goes over,
// which closes git's pipe and stops it instead of reading on.
type limitWriter struct {
	buf  bytes.Buffer
	max  int
	over bool
}

// Write implements io.Writer: it keeps what fits, then fails.
func (w *limitWriter) Write(p []byte) (int, error) {
	if room := w.max - w.buf.Len(); len(p) > room {
		w.buf.Write(p[:max(room, 0)])
		w.over = true
		return 0, io.ErrShortWrite
	}
	return w.buf.Write(p)
}

// exitCode returns the exit code of a *gitError, or -1.
func exitCode(err error) int {
	var ge *gitError
	if errors.As(err, &ge) {
		return ge.Code
	}
	return -1
}
