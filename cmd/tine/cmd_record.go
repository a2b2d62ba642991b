package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain"
)

// exitNotStarted is the status of `tine record` when the command cannot
// start, as a shell reports "command not found".
const exitNotStarted = 127

// recordCmd is `tine record [--ref REF] -- CMD ARGS...` and
// `tine record --event FILE.json`.
type recordCmd struct {
	Ref    string   `name:"ref" placeholder:"REF" help:"Run to append to (default heads/main; created if absent)."`
	Event  string   `name:"event" placeholder:"FILE" help:"Append the event in this JSON file instead of running a command."`
	Status string   `name:"status" enum:",running,paused,completed,failed" default:"" help:"Status of the run after this event (running, paused, completed, failed; default running)."`
	Argv   []string `arg:"" optional:"" passthrough:"" name:"command" help:"The command to run, after --."`
	jsonFlag
}

// Help shows examples under `tine record --help`.
func (c *recordCmd) Help() string {
	return `Runs the command with its output streamed live, then appends a "tool"
event to the run: argv, working directory, exit code, environment variable
names (never values), duration, stdout as output_blob and stderr as
artifact_blob, both redacted and capped at 8 MiB. tine record exits with the
command's status (127 when it cannot start). A summary line goes to stderr.

With --event, appends any event from a JSON file (a model step with usage
and cost, a human note); parent_ids defaults to the run's tips, and
"input"/"output"/"artifact" may be text, {"path": FILE} or {"b64": DATA}.

Examples:

    $ tine record -- make test
    $ tine record --ref experiments/retry -- ./agent.sh --seed 2
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
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	if c.Event != "" {
		return c.runEvent(e, r)
	}
	res, err := porcelain.Record(e.ctx, r, porcelain.RecordOptions{
		Ref: c.Ref, Argv: c.Argv, Status: c.Status,
		Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr,
	})
	if errors.Is(err, porcelain.ErrCommandNotStarted) {
		fmt.Fprintf(e.stderr, "tine record: %s; nothing was recorded\n", oneLine(err.Error()))
		return &silentError{code: exitNotStarted}
	}
	if err != nil {
		return err
	}
	if c.JSON {
		if err := writeJSON(e.stdout, e.verb, res); err != nil {
			return err
		}
	} else {
		p := &printer{w: e.stderr, color: wantColor(e.stderr, e.getenv)}
		p.printf("tine: recorded %s on %s (run %s), exit %d, %s\n",
			p.dim(shortOID(res.Event)), res.Ref, shortOID(res.Run), res.ExitCode, fmtDuration(res.Duration))
		if p.err != nil {
			return p.err
		}
	}
	if res.ExitCode != 0 {
		return &silentError{code: res.ExitCode}
	}
	return nil
}

// runEvent appends the event file.
func (c *recordCmd) runEvent(e *env, r *plumbing.Repo) error {
	fi, err := os.Stat(c.Event)
	if err != nil {
		return err
	}
	if fi.Size() > porcelain.MaxEventFileBytes {
		return fmt.Errorf("%s: %d bytes, more than %d", c.Event, fi.Size(), porcelain.MaxEventFileBytes)
	}
	data, err := os.ReadFile(c.Event)
	if err != nil {
		return err
	}
	res, err := porcelain.AppendEvent(e.ctx, r, porcelain.AppendEventOptions{
		Ref: c.Ref, Data: data, Dir: filepath.Dir(c.Event), Status: c.Status,
	})
	if err != nil {
		return fmt.Errorf("%s: %w", c.Event, err)
	}
	return e.emit(c.JSON, res, func(p *printer) {
		p.printf("recorded %s on %s (run %s)\n", shortOID(res.Event), res.Ref, shortOID(res.Run))
	})
}
