package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// exitNotStarted is the status of `tine record` when the command cannot
// start, as a shell reports "command not found".
const exitNotStarted = 127

// exitNotRecorded is the status of `tine record` when the command ran but
// its event could not be appended (kept in a recovery file instead):
// sysexits' EX_IOERR, far from the 0-2, 126-127 and 128+N of commands and
// shells, and from gate's pending code 75.
const exitNotRecorded = 74

// forwardedSignals are the signals tine record catches while the command
// runs, to forward them to its process group and still record the event.
// SIGPIPE is caught only so that a closed stdout does not kill tine.
var forwardedSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE}

// recordCmd is `tine record [--ref REF] -- CMD ARGS...` and
// `tine record --event FILE.json`.
type recordCmd struct {
	Ref    string   `name:"ref" placeholder:"REF" help:"Run to append to (default the current run, tine switch, else heads/main; created if absent)."`
	Event  string   `name:"event" placeholder:"FILE" help:"Append the event in this JSON file instead of running a command."`
	Status string   `name:"status" enum:",running,paused,completed,failed" default:"" help:"Status of the run after this event (running, paused, completed, failed; default running)."`
	Param  []string `name:"param" placeholder:"NAME=VALUE" help:"A run parameter the event declares (repeatable); tine runs shows it as column param.NAME."`
	Argv   []string `arg:"" optional:"" passthrough:"partial" name:"command" help:"The command to run, after --."`
	jsonFlag
	captureFlag
}

// Help shows examples under `tine record --help`.
func (c *recordCmd) Help() string {
	return `Runs the command with its output streamed live, then appends a "tool"
event to the run: argv, working directory, exit code, environment variable
names (never values), duration, stdout as output_blob and stderr as
artifact_blob, both redacted and capped at 8 MiB. A summary line goes to
stderr. Before the command starts, the git work tree it runs in is
captured (commit, branch, dirty patch, untracked file names) as a blob the
run's manifests name; see "Code state of a run" in the README.

Nothing runs unless the event can be written: the ref is under heads/ or
experiments/, its run is running, the repository is writable and no live
writer is stuck holding the ref. SIGINT, SIGTERM and SIGHUP are forwarded to
the command's process group (the same signal twice kills the group) and the
event is still recorded. Concurrent records onto one run all land: each
event is appended to whatever the run has become, as another tip.

Exit status: the command's once its event is recorded (when SIGINT, SIGTERM
or SIGHUP ended it, tine then ends itself by the same signal, which a shell
reports as 128+N); 127 when it cannot start; 1 when a check refused to run it; 74 when
it ran but its event could not be appended: the event and the command's
output are then kept in a recovery file named in the error, which
tine record --event FILE --ref REF appends later.

With --event, appends any event from a JSON file (a model step with usage
and cost, a human note); parent_ids defaults to the run's tips, and
"input"/"output"/"artifact" may be text, {"path": FILE} or {"b64": DATA}.

Examples:

    $ tine record -- make test
    $ tine record --ref experiments/retry -- ./agent.sh --seed 2
    $ tine record --param lr=0.01 --param seed=2 -- ./train.sh
    $ tine record --event step.json`
}

// Run records the command or the event.
func (c *recordCmd) Run(e *env) error {
	// kong's passthrough keeps the "--" that ends tine's own flags.
	if len(c.Argv) > 0 && c.Argv[0] == "--" {
		c.Argv = c.Argv[1:]
	}
	if c.Event != "" && len(c.Argv) > 0 {
		return usagef("--event and a command cannot be combined")
	}
	if c.Event == "" && len(c.Argv) == 0 {
		return usagef("need a command after -- (or --event FILE)")
	}
	if c.Event != "" && len(c.Param) > 0 {
		return usagef("--param applies to a recorded command; put \"params\" in the event file's attributes instead")
	}
	params, err := parseParams(c.Param)
	if err != nil {
		return err
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	if c.Ref, err = runs.RefOrCurrent(r, c.Ref); err != nil {
		return err
	}
	if c.Event != "" {
		return c.runEvent(e, r)
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, forwardedSignals...)
	defer signal.Stop(sigs)
	res, err := runs.Record(e.ctx, r, runs.RecordOptions{
		Ref: c.Ref, Argv: c.Argv, Status: c.Status,
		Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr,
		Signals: sigs, Params: params, NoCapture: !c.captureWanted(e),
	})
	if errors.Is(err, runs.ErrCommandNotStarted) {
		fmt.Fprintf(e.stderr, "tine record: %s; nothing was recorded\n", oneLine(err.Error()))
		return &silentError{code: exitNotStarted}
	}
	var re *runs.RecordingError
	if errors.As(err, &re) {
		fmt.Fprintf(e.stderr, "tine record: %s\n", oneLine(err.Error()))
		return &silentError{code: exitNotRecorded}
	}
	if err != nil {
		return err
	}
	if c.JSON {
		if err := writeJSON(e.stdout, e.verb, res); err != nil {
			return err
		}
	} else {
		p := &printer{w: e.stderr, color: colorFor(e.colorMode, e.stderr, e.getenv)}
		// Best effort: the event is recorded, so a terminal that hung up
		// (SIGHUP) must not turn the command's status into a failure.
		p.printf("tine: recorded %s on %s (run %s), exit %d, %s\n",
			p.dim(shortOID(res.Event)), res.Ref, shortOID(res.Run), res.ExitCode, fmtDuration(res.Duration))
	}
	if res.ExitCode != 0 {
		return &silentError{code: res.ExitCode, sig: endingSignal(res)}
	}
	return nil
}

// endingSignal is the signal tine ends itself by once the event is
// recorded, so a shell loop running tine record stops on Ctrl-C as it
// would for the command itself: the interrupt signal (SIGINT, SIGTERM,
// SIGHUP) that ended the command, or, when the group was killed after a
// second one, the first tine forwarded. nil for any other status.
func endingSignal(res *runs.RecordResult) os.Signal {
	if res.Signal == "" {
		return nil
	}
	if s := interruptNamed(res.Signal); s != nil {
		return s
	}
	if len(res.ForwardedSignals) > 0 {
		return interruptNamed(res.ForwardedSignals[0])
	}
	return nil
}

// interruptNamed is the interrupt signal named name, or nil.
func interruptNamed(name string) os.Signal {
	for _, s := range interruptSignals {
		if name != "" && s.String() == name {
			return s
		}
	}
	return nil
}

// runEvent appends the event file.
func (c *recordCmd) runEvent(e *env, r *plumbing.Repo) error {
	fi, err := os.Stat(c.Event)
	if err != nil {
		return err
	}
	if fi.Size() > runs.MaxEventFileBytes {
		return fmt.Errorf("%s: %d bytes, more than %d", c.Event, fi.Size(), runs.MaxEventFileBytes)
	}
	data, err := os.ReadFile(c.Event)
	if err != nil {
		return err
	}
	res, err := runs.AppendEvent(e.ctx, r, runs.AppendEventOptions{
		Ref: c.Ref, Data: data, Dir: filepath.Dir(c.Event), Status: c.Status,
	})
	if err != nil {
		return fmt.Errorf("%s: %w", c.Event, err)
	}
	return e.emit(c.JSON, res, func(p *printer) {
		p.printf("recorded %s on %s (run %s)\n", shortOID(res.Event), res.Ref, shortOID(res.Run))
	})
}
