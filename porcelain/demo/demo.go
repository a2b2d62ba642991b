package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/loops"
	"github.com/tinehq/tine/porcelain/runs"
)

// The demo story (tine demo): an agent is asked to fix a failing test.
//
// The workspace holds a tiny POSIX shell "library" whose add function
// subtracts, and a test for it. The first attempt (heads/main) runs the
// test, reads the code, asks a small model, swaps the operands and runs
// the test again: still failing, so the run is marked failed. A second
// approach forks the run after the read step (experiments/second-approach),
// asks a larger model, fixes the operator and runs the test again: it
// passes. Every command is a real `sh` command recorded as tine record
// does; the model steps are events with usage and cost, as a harness would
// append them. Only timestamps and durations (and so the oids) differ
// between two demos.
//
// The story goes on with a release (demo_release.go): a small numeric
// loop tunes a parameter on experiments/tune/..., and DemoRelease signs an
// evaluation of its best branch and promotes it through a release policy.

// Demo refs and file names.
const (
	DemoMainRef = "heads/main"
	DemoForkRef = "experiments/second-approach"
)

// demoFiles is the workspace before either attempt.
var demoFiles = []struct{ name, text string }{
	{"calc.sh", "# add A B prints the sum of A and B.\nadd() {\n\techo $(($1 - $2))\n}\n"},
	{"test.sh", ". ./calc.sh\ngot=$(add 2 3)\nif [ \"$got\" = 5 ]; then\n\techo \"ok   add 2 3 = 5\"\nelse\n\techo \"FAIL add 2 3 = $got, want 5\"\n\texit 1\nfi\n"},
}

// ErrDemoDirNotEmpty means tine demo was pointed at a directory with files
// in it; the demo writes its workspace there and never overwrites.
var ErrDemoDirNotEmpty = errors.New("demo directory is not empty")

// DemoOptions configures Demo.
type DemoOptions struct {
	// Dir is the workspace and repository directory; it must be absent or
	// empty.
	Dir string
	// Step is called before each step with the command a user would type
	// (and a note), so a caller can narrate; nil is quiet.
	Step func(DemoStep)
	// Stdout and Stderr receive the recorded commands' live output.
	Stdout, Stderr io.Writer
	// Env is the commands' environment; nil means PATH only (and LC_ALL=C),
	// so the recorded environment names do not depend on the user's.
	Env []string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Rand is the release key's randomness; nil means crypto/rand.
	Rand io.Reader
	// Done is called after a step whose outcome a user would see, with
	// Output set (and Err for the refusal the story expects); nil is
	// quiet.
	Done func(DemoStep)
}

// DemoStep is one narrated step of the demo.
type DemoStep struct {
	// Command is what a user would type, without the leading "tine ";
	// empty for a note alone.
	Command string
	// Note explains the step.
	Note string
	// Output is what the step produced, given to Done only: a
	// *LoopRunResult, *LoopShowResult, *plumbing.KeygenResult, the policy
	// text (DemoPolicy), *PromoteResult, *AttestResult, *CandidatesResult
	// or *PromotionsResult.
	Output any
	// Err is the error of a step that was meant to be refused.
	Err error
}

// DemoResult is what the demo built.
type DemoResult struct {
	// Root is the repository directory; Dir the workspace.
	Root string `json:"root"`
	Dir  string `json:"dir"`
	// Main and Fork are the refs of the two attempts, and ForkEvent the
	// event the second approach forked from.
	Main      string `json:"main"`
	Fork      string `json:"fork"`
	ForkEvent string `json:"fork_event"`
	// Loop is the tuning loop's result; its best branch is at Loop.BestRef.
	Loop *loops.LoopRunResult `json:"loop"`
}

// Demo builds the demo repository in opt.Dir (see the story above) and
// returns it open; the caller closes it.
func Demo(ctx context.Context, opt DemoOptions) (*plumbing.Repo, *DemoResult, error) {
	if err := emptyDir(opt.Dir); err != nil {
		return nil, nil, err
	}
	if opt.Env == nil {
		opt.Env = []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C"}
	}
	d := &demo{ctx: ctx, opt: opt}
	d.say("init "+opt.Dir, "")
	r, _, err := plumbing.Init(opt.Dir, "")
	if err != nil {
		return nil, nil, err
	}
	d.r = r
	res, err := d.story()
	if err == nil {
		res.Loop, err = d.tune()
	}
	if err != nil {
		r.Close()
		return nil, nil, err
	}
	res.Root, res.Dir = r.Root(), opt.Dir
	return r, res, nil
}

// emptyDir creates dir, or accepts it when it exists and is empty.
func emptyDir(dir string) error {
	if dir == "" {
		return fmt.Errorf("demo: no directory given")
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("%s: %w (give a new or empty directory)", dir, ErrDemoDirNotEmpty)
	}
	return nil
}

// demo carries the story's state.
type demo struct {
	ctx context.Context
	opt DemoOptions
	r   *plumbing.Repo
}

func (d *demo) say(cmd, note string) {
	if d.opt.Step != nil {
		d.opt.Step(DemoStep{Command: cmd, Note: note})
	}
}

// done reports a step's outcome.
func (d *demo) done(cmd string, out any, err error) {
	if d.opt.Done != nil {
		d.opt.Done(DemoStep{Command: cmd, Output: out, Err: err})
	}
}

// resetWorkspace writes the original files, as a sandbox reset would.
func (d *demo) resetWorkspace() error {
	for _, f := range demoFiles {
		if err := os.WriteFile(filepath.Join(d.opt.Dir, f.name), []byte(f.text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// record runs one shell command in the workspace and records it on ref.
func (d *demo) record(ref, status string, argv ...string) (*runs.RecordResult, error) {
	d.say(fmt.Sprintf("record --ref %s -- %s", ref, runs.ShellQuote(argv)), "")
	return runs.Record(d.ctx, d.r, runs.RecordOptions{
		Ref: ref, Argv: argv, Dir: d.opt.Dir, Env: d.opt.Env, Status: status,
		Stdout: d.opt.Stdout, Stderr: d.opt.Stderr, Now: d.opt.Now,
	})
}

// model appends a model step, as a harness would with tine record --event.
func (d *demo) model(ref, what, event string) error {
	d.say(fmt.Sprintf("record --ref %s --event step.json", ref), what)
	_, err := runs.AppendEvent(d.ctx, d.r, runs.AppendEventOptions{Ref: ref, Data: []byte(event), Dir: d.opt.Dir, Now: d.opt.Now})
	return err
}

// story records both attempts.
func (d *demo) story() (*DemoResult, error) {
	if err := d.resetWorkspace(); err != nil {
		return nil, err
	}
	d.say("", "Task: make test.sh pass. First attempt, recorded on "+DemoMainRef+".")
	if _, err := d.record(DemoMainRef, "", "sh", "test.sh"); err != nil {
		return nil, err
	}
	read, err := d.record(DemoMainRef, "", "cat", "calc.sh")
	if err != nil {
		return nil, err
	}
	if err := d.model(DemoMainRef, "A model step, as a harness appends it: small-model suggests swapping the operands.", `{"kind":"model","model":"small-model","provider":"demo","cost":0.0009,"usage":{"input":412,"output":38},"input":"Fix the failing test. calc.sh and the test output are attached.","output":"add 2 3 gives -1: the operands are swapped. Swap them.\n"}`); err != nil {
		return nil, err
	}
	if _, err := d.record(DemoMainRef, "", "sh", "-c", `sed "s/\$1 - \$2/\$2 - \$1/" calc.sh > calc.new && mv calc.new calc.sh`); err != nil {
		return nil, err
	}
	if _, err := d.record(DemoMainRef, runs.StatusFailed, "sh", "test.sh"); err != nil {
		return nil, err
	}
	d.say(fmt.Sprintf("fork %s --from %s --ref %s --reason 'swapping operands did not help'", DemoMainRef, shortString(read.Event), DemoForkRef),
		"Second approach: fork after reading calc.sh, with the workspace reset to its original files.")
	if _, err := runs.Fork(d.ctx, d.r, runs.ForkOptions{Source: DemoMainRef, From: read.Event, Ref: DemoForkRef, Reason: "swapping operands did not help", Now: d.opt.Now}); err != nil {
		return nil, err
	}
	if err := d.resetWorkspace(); err != nil {
		return nil, err
	}
	if err := d.model(DemoForkRef, "large-model spots the wrong operator.", `{"kind":"model","model":"large-model","provider":"demo","cost":0.0124,"usage":{"input":412,"output":96},"input":"Fix the failing test. calc.sh and the test output are attached.","output":"add subtracts: $(($1 - $2)) should be $(($1 + $2)).\n"}`); err != nil {
		return nil, err
	}
	if _, err := d.record(DemoForkRef, "", "sh", "-c", `sed "s/ - / + /" calc.sh > calc.new && mv calc.new calc.sh`); err != nil {
		return nil, err
	}
	if _, err := d.record(DemoForkRef, runs.StatusCompleted, "sh", "test.sh"); err != nil {
		return nil, err
	}
	return &DemoResult{Main: DemoMainRef, Fork: DemoForkRef, ForkEvent: read.Event}, nil
}

// shortString abbreviates an oid string as Short does; a string that is
// not an oid is returned as is.
func shortString(s string) string {
	id, err := objects.ParseOID(s)
	if err != nil {
		return s
	}
	return runs.Short(id)
}
