package loop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/tinehq/tine/internal/procgroup"
	"github.com/tinehq/tine/objects"
)

// StepProtocol names the version of the step-command protocol. A step
// command receives one request object on stdin and must answer with one
// response object on stdout for every step (see README "--step-cmd").
const StepProtocol = "tine-step/1"

// Defaults and hard bounds of a step command.
const (
	DefaultStepTimeout     = 60 * time.Second
	DefaultMaxStepResponse = 4 << 20
	// MaxStepProposals bounds next_states in one response.
	MaxStepProposals = 1024
	// maxStderrKept is how much of the command's stderr is kept for errors.
	maxStderrKept = 64 << 10
	// stderrInError is how much of that tail an error message quotes.
	stderrInError = 512
)

// ErrStepCmd reports a step command that failed, timed out or answered
// outside the protocol; the step fails closed (its branch ends with
// GateError) rather than guessing.
var ErrStepCmd = errors.New("step command failed")

// StepCmd configures a step command.
type StepCmd struct {
	// Argv is the program and its arguments; run directly, not through a
	// shell (pass "sh", "-c", CMD for one).
	Argv []string
	// Dir is the working directory; "" is the current one.
	Dir string
	// Env is added to the inherited environment, as "KEY=value".
	Env []string
	// Timeout bounds one invocation; the whole process group is killed
	// when it passes. 0 means DefaultStepTimeout.
	Timeout time.Duration
	// MaxResponse bounds stdout in bytes; 0 means DefaultMaxStepResponse.
	MaxResponse int
}

// CommandStep returns a Step that runs c once per step, speaking
// StepProtocol: it writes the request (StepRequest) to stdin, closes it, and
// reads exactly one response object from stdout (ParseStepResponse). A
// non-zero exit, a timeout, oversized or malformed output is an ErrStepCmd.
func CommandStep(c StepCmd) (Step, error) {
	if len(c.Argv) == 0 || c.Argv[0] == "" {
		return nil, fmt.Errorf("%w: step command: no program given", ErrConfig)
	}
	if c.Timeout < 0 || c.MaxResponse < 0 {
		return nil, fmt.Errorf("%w: step command %q: negative timeout or size bound", ErrConfig, c.Argv[0])
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultStepTimeout
	}
	if c.MaxResponse == 0 {
		c.MaxResponse = DefaultMaxStepResponse
	}
	c.Argv = append([]string(nil), c.Argv...)
	c.Env = append([]string(nil), c.Env...)
	return func(ctx context.Context, in StepInput) (StepResult, error) {
		return c.invoke(ctx, in)
	}, nil
}

func (c StepCmd) invoke(ctx context.Context, in StepInput) (StepResult, error) {
	name := c.Argv[0]
	req, err := StepRequest(in)
	if err != nil {
		return StepResult{}, fmt.Errorf("%w: %s: request: %w", ErrStepCmd, name, err)
	}
	tctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, name, c.Argv[1:]...)
	cmd.Dir = c.Dir
	cmd.Env = append(append(os.Environ(), "TINE_STEP_PROTOCOL="+StepProtocol), c.Env...)
	cmd.Stdin = bytes.NewReader(req)
	stdout := &cappedBuffer{max: c.MaxResponse}
	stderr := &cappedBuffer{max: maxStderrKept, keepTail: true}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	procgroup.Setup(cmd)
	cmd.Cancel = func() error { return procgroup.Kill(cmd) }
	// Grandchildren holding the pipes open must not hang the step.
	cmd.WaitDelay = time.Second
	runErr := cmd.Run()
	switch {
	case tctx.Err() == context.DeadlineExceeded && ctx.Err() == nil:
		return StepResult{}, fmt.Errorf("%w: %s: timed out after %s (process group killed)%s", ErrStepCmd, name, c.Timeout, stderr.quote())
	case ctx.Err() != nil:
		return StepResult{}, fmt.Errorf("%w: %s: %w", ErrStepCmd, name, ctx.Err())
	case runErr != nil:
		return StepResult{}, fmt.Errorf("%w: %s: %w%s", ErrStepCmd, name, runErr, stderr.quote())
	case stdout.over:
		return StepResult{}, fmt.Errorf("%w: %s: response larger than %d bytes", ErrStepCmd, name, c.MaxResponse)
	}
	res, err := ParseStepResponse(stdout.buf.Bytes())
	if err != nil {
		return StepResult{}, fmt.Errorf("%w: %s: %w%s", ErrStepCmd, name, err, stderr.quote())
	}
	return res, nil
}

// StepRequest encodes the request a step command receives: one v3
// canonical JSON object and a newline. The state is sanitized so that any
// state can be sent.
func StepRequest(in StepInput) ([]byte, error) {
	state, _ := Sanitize(in.State)
	best := objects.Null()
	if in.HasBest {
		best, _ = Sanitize(in.BestScore)
	}
	num := func(f float64) objects.Value { v, _ := Sanitize(f); return v }
	text := func(s string) objects.Value { v, _ := Sanitize(s); return v }
	req := objects.ObjectValue(
		objects.Member{Key: "protocol", Value: objects.String(StepProtocol)},
		objects.Member{Key: "goal", Value: text(in.Goal)},
		objects.Member{Key: "context", Value: text(in.Context)},
		objects.Member{Key: "state", Value: state},
		objects.Member{Key: "iteration", Value: objects.Int(int64(in.Iteration))},
		objects.Member{Key: "branch_step", Value: objects.Int(int64(in.BranchStep))},
		objects.Member{Key: "branch", Value: text(in.BranchID)},
		objects.Member{Key: "parent_branch", Value: text(in.ParentBranch)},
		objects.Member{Key: "best_score", Value: best},
		objects.Member{Key: "elapsed_seconds", Value: num(in.Elapsed.Seconds())},
		objects.Member{Key: "total_cost", Value: num(in.TotalCost)},
		objects.Member{Key: "branch_cost", Value: num(in.BranchCost)},
	)
	b, err := objects.CanonV3(req)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// cappedBuffer keeps at most max bytes: the first ones, or with keepTail
// the last ones; over records that more arrived.
type cappedBuffer struct {
	buf      bytes.Buffer
	max      int
	keepTail bool
	over     bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := b.max - b.buf.Len(); len(p) > room {
		b.over = true
		if !b.keepTail {
			b.buf.Write(p[:max(room, 0)])
			return n, nil
		}
		b.buf.Write(p)
		tail := append([]byte(nil), b.buf.Bytes()[b.buf.Len()-b.max:]...)
		b.buf.Reset()
		b.buf.Write(tail)
		return n, nil
	}
	b.buf.Write(p)
	return n, nil
}

// quote renders the end of captured stderr for an error message.
func (b *cappedBuffer) quote() string {
	s := strings.TrimSpace(b.buf.String())
	if s == "" {
		return ""
	}
	if len(s) > stderrInError {
		s = "..." + s[len(s)-stderrInError:]
	}
	s, _ = sanitizeText(s)
	return fmt.Sprintf(" (stderr: %q)", s)
}
