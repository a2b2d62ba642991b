package runs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// RecordOptions configures Record.
type RecordOptions struct {
	// Ref is the run's ref; empty means DefaultRef. Created if absent.
	Ref string
	// Argv is the command and its arguments; Argv[0] is looked up in PATH.
	Argv []string
	// Dir is the working directory; empty means the current one.
	Dir string
	// Env is the command's environment; nil means os.Environ(). Only the
	// names are recorded, never the values.
	Env []string
	// Stdin, Stdout and Stderr are the live streams; output is teed into
	// bounded captures. Nil discards (or gives no input).
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Signals delivers the signals the caller caught while the command
	// runs (SIGINT, SIGTERM, SIGHUP, SIGPIPE); each is forwarded to the
	// command's process group (runCommand). Nil forwards nothing.
	Signals <-chan os.Signal
	// MaxCapture bounds each captured stream; 0 means DefaultMaxCapture.
	MaxCapture int
	// Status is the status of the new run snapshot; empty means running.
	Status string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Actor names the writer in the reflog; empty means "local".
	Actor string
	// Params are the run parameters the event declares (record_params.go).
	Params []Param
	// NoCapture skips the workspace capture (CaptureWorkspace): no code
	// state is recorded with the command.
	NoCapture bool

	// probe replaces probeWritable in tests.
	probe probeFunc
}

// RecordResult is what `tine record` reports.
type RecordResult struct {
	Ref      string  `json:"ref"`
	Run      string  `json:"run"`
	Previous string  `json:"previous,omitempty"`
	Event    string  `json:"event"`
	ExitCode int     `json:"exit_code"`
	Signal   string  `json:"signal,omitempty"`
	Duration float64 `json:"duration"`
	Stdout   string  `json:"output_blob"`
	Stderr   string  `json:"artifact_blob"`
	// StdoutTruncated and StderrTruncated say a stream exceeded MaxCapture.
	StdoutTruncated bool `json:"stdout_truncated"`
	StderrTruncated bool `json:"stderr_truncated"`
	// ForwardedSignals are the signals tine sent the command's process
	// group, in order.
	ForwardedSignals []string `json:"forwarded_signals,omitempty"`
	// Workspace is the code state the command ran in; WorkspaceSkipped
	// says why none was captured.
	Workspace        *Workspace `json:"workspace,omitempty"`
	WorkspaceSkipped string     `json:"workspace_skipped,omitempty"`
}

// Record runs a command with its output streamed live and teed into
// bounded captures, then appends one tool event describing it to the run at
// opt.Ref (see the package documentation for its fields).
//
// Before running anything it checks that the event can be written: the
// ref's namespace, the run still running, the run object and its tips
// sound (checkBase), the repository's directories writable
// (checkWritable) and the ref not held by a stuck live writer
// (waitRefFree). Any failure there is an error
// and nothing runs. A command that cannot start is an error wrapping
// ErrCommandNotStarted and records nothing. Once the command ran, its
// event is appended to whatever the run has become (appendRecorded); the
// command is never run again. If that append fails, the error is a
// *RecordingError naming a recovery file that holds the event and the
// command's output (writeRecovery).
func Record(ctx context.Context, r *plumbing.Repo, opt RecordOptions) (*RecordResult, error) {
	if len(opt.Argv) == 0 || opt.Argv[0] == "" {
		return nil, ErrNoCommand
	}
	for i, w := range opt.Argv {
		if !utf8.ValidString(w) {
			return nil, fmt.Errorf("word %d of the command, %q: %w; nothing was run", i+1, w, ErrCommandNotText)
		}
	}
	now := Clock(opt.Now)
	ref, err := WritableRef(ctx, r, OrDefault(opt.Ref, DefaultRef))
	if err != nil {
		return nil, err
	}
	if err := checkStatus(opt.Status); err != nil {
		return nil, err
	}
	if err := checkParams(opt.Params); err != nil {
		return nil, err
	}
	// Refuse a non-running or damaged run (readHead checks the run object
	// and its tips, all the append builds on) before spending the
	// command's time.
	h, err := readHead(ctx, r, ref)
	if err != nil {
		return nil, err
	}
	if err := h.checkAppendable(); err != nil {
		return nil, err
	}
	if err := checkWritable(r, ref, opt.probe); err != nil {
		return nil, err
	}
	if err := waitRefFree(ctx, r, ref); err != nil {
		return nil, err
	}
	dir := opt.Dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	env := opt.Env
	if env == nil {
		env = os.Environ()
	}
	max := opt.MaxCapture
	if max <= 0 {
		max = DefaultMaxCapture
	}
	red := objects.NewEnvRedactor(env) // secret-named variables' values too
	// The code state is read before the command can change it.
	ws := &WorkspaceCapture{Skipped: "turned off"}
	if !opt.NoCapture {
		ws = CaptureWorkspace(ctx, r.Algo(), dir, WorkspaceOptions{Env: env, Redactor: red})
	}
	cr, err := runCommand(ctx, opt, dir, env, max, now)
	if err != nil {
		return nil, err
	}
	// From here on the command has run: the event must be recorded or
	// kept, even when ctx was cancelled meanwhile.
	ctx = context.WithoutCancel(ctx)
	outBlob := objects.NewBlob(r.Algo(), red.Blob(cr.stdout))
	errBlob := objects.NewBlob(r.Algo(), red.Blob(cr.stderr))
	payload := withWorkspace(recordPayload(red, opt.Argv, dir, env, cr, h.tips, outBlob.ID, errBlob.ID), ws.Summary)
	payload = withParams(red, payload, opt.Params)
	blobs := []*objects.Object{outBlob, errBlob}
	var code objects.OID
	if ws.Blob != nil {
		blobs, code = append(blobs, ws.Blob), ws.Blob.ID
	}
	fail := func(err error) (*RecordResult, error) {
		re := &RecordingError{Ref: ref, ExitCode: cr.code, Signal: cr.signal, Err: err}
		re.Recovery, re.RecoveryErr = writeRecovery(r, payload, outBlob.Body, errBlob.Body, cr.end)
		return nil, re
	}
	ev, err := objects.NewJSONObject(r.Algo(), objects.TypeEvent, 1, payload)
	if err != nil {
		return fail(fmt.Errorf("%w: %w", ErrBadEvent, err))
	}
	res, err := appendRecorded(ctx, r, h, ev, blobs, code, opt.Status, cr.end, opt.Actor)
	if err != nil {
		return fail(err)
	}
	return &RecordResult{
		Ref: ref, Run: res.Run, Previous: res.Previous, Event: res.Event,
		ExitCode: cr.code, Signal: cr.signal, Duration: duration(cr),
		Stdout: outBlob.ID.String(), Stderr: errBlob.ID.String(),
		StdoutTruncated: cr.outCut, StderrTruncated: cr.errCut,
		ForwardedSignals: cr.forwarded,
		Workspace:        ws.Summary, WorkspaceSkipped: ws.Skipped,
	}, nil
}

// recordPayload is the payload of the tool event describing cr, recorded
// after parents, redacted by red (which knows env's secret-named values).
func recordPayload(red *objects.Redactor, argv []string, dir string, env []string, cr *commandRun, parents []objects.OID, out, errOut objects.OID) objects.Value {
	attrs := []objects.Member{
		{Key: "argv", Value: StringsValue(redactArgs(argv))},
		{Key: "cwd", Value: objects.String(dir)},
		{Key: "env_names", Value: StringsValue(envNames(env))},
		{Key: "exit_code", Value: objects.Int(int64(cr.code))},
		{Key: "stderr_truncated", Value: objects.Bool(cr.errCut)},
		{Key: "stdout_truncated", Value: objects.Bool(cr.outCut)},
	}
	if cr.signal != "" {
		attrs = append(attrs, objects.Member{Key: "signal", Value: objects.String(cr.signal)})
	}
	if len(cr.forwarded) > 0 {
		attrs = append(attrs, objects.Member{Key: "forwarded_signals", Value: StringsValue(cr.forwarded)})
	}
	payload, _ := red.Value(objects.ObjectValue(
		objects.Member{Key: "kind", Value: objects.String("tool")},
		objects.Member{Key: "tool", Value: objects.String("shell")},
		objects.Member{Key: "attributes", Value: objects.ObjectValue(attrs...)},
		objects.Member{Key: "duration", Value: objects.Float(duration(cr))},
		objects.Member{Key: "time_unix", Value: TimeValue(cr.start)},
	))
	return derivePayload(payload, []objects.Member{
		{Key: "parent_ids", Value: OIDValues(parents)},
		{Key: "output_blob", Value: objects.String(out.String())},
		{Key: "artifact_blob", Value: objects.String(errOut.String())},
	}, nil)
}

// duration is the command's wall-clock time in seconds, never negative.
func duration(cr *commandRun) float64 {
	return max(cr.end.Sub(cr.start).Seconds(), 0)
}

// exitStatus maps cmd.Run's error to a shell-style status: the exit code,
// or 128+N for a signal. Anything else means the command never ran.
func exitStatus(cmd *exec.Cmd, runErr error) (int, string, error) {
	if runErr == nil {
		return 0, "", nil
	}
	var ee *exec.ExitError
	if !errors.As(runErr, &ee) {
		return 0, "", runErr
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), ws.Signal().String(), nil
	}
	return ee.ExitCode(), "", nil
}

// envNames returns the sorted, unique variable names of env.
func envNames(env []string) []string {
	seen := map[string]bool{}
	var names []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// StringsValue is a JSON array of strings.
func StringsValue(ss []string) objects.Value {
	vs := make([]objects.Value, len(ss))
	for i, s := range ss {
		vs[i] = objects.String(strings.ToValidUTF8(s, "\uFFFD"))
	}
	return objects.Array(vs...)
}

// TimeValue is t in Unix seconds with microsecond precision.
func TimeValue(t time.Time) objects.Value {
	us := t.UnixMicro()
	if us%1e6 == 0 {
		return objects.Int(us / 1e6)
	}
	return objects.Float(float64(us) / 1e6)
}

// Clock returns now, or time.Now when nil.
func Clock(now func() time.Time) func() time.Time {
	if now == nil {
		return time.Now
	}
	return now
}

// OrDefault returns s, or def when s is empty.
func OrDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// checkStatus accepts "" and the four SPEC statuses.
func checkStatus(s string) error {
	switch s {
	case "", StatusRunning, StatusPaused, StatusCompleted, StatusFailed:
		return nil
	}
	return fmt.Errorf("status %q: %w", s, ErrBadStatus)
}
