package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/alecthomas/kong"
)

// globals are the flags every verb takes, before or after it.
type globals struct {
	Repo    string           `name:"repo" placeholder:"DIR" help:"Repository to use: a .tine directory, or a directory containing one. Default: $TINE_DIR, else the nearest .tine at or above the current directory."`
	Version kong.VersionFlag `name:"version" short:"V" help:"Print tine's version and exit."`
	Color   string           `name:"color" enum:"auto,always,never" default:"auto" placeholder:"WHEN" help:"Colour human output: auto (only on a terminal, never with NO_COLOR set or TERM=dumb), always or never."`
	NoPager bool             `name:"no-pager" help:"Write output directly instead of through $PAGER on a terminal."`
}

// cli is the whole grammar: the global flags and one field per verb. Each
// verb's struct, help text and Run live in its own cmd_<verb>.go.
type cli struct {
	globals

	Init         initCmd         `cmd:"" help:"Create an empty repository (DIR/.tine)."`
	HashObject   hashObjectCmd   `cmd:"" name:"hash-object" help:"Compute an object id from file contents, and optionally store the object."`
	CatObject    catObjectCmd    `cmd:"" name:"cat-object" help:"Print an object's content, type or size."`
	UpdateRef    updateRefCmd    `cmd:"" name:"update-ref" help:"Move a ref to a new object with compare-and-swap."`
	DeleteRef    deleteRefCmd    `cmd:"" name:"delete-ref" help:"Delete a ref, optionally only if it still has an expected value."`
	Refs         refsCmd         `cmd:"" help:"List refs and the objects they point at."`
	Reflog       reflogCmd       `cmd:"" help:"Show the history of a ref."`
	RevParse     revParseCmd     `cmd:"" name:"rev-parse" help:"Resolve a revision (oid, prefix, ref, short name, REF@{n}, REV~N) to a full object id."`
	Fsck         fsckCmd         `cmd:"" help:"Verify every object, link and ref; exit 1 on any problem."`
	CountObjects countObjectsCmd `cmd:"" name:"count-objects" help:"Count the stored objects by type."`
	Record       recordCmd       `cmd:"" help:"Run a command and record it as an event (or append an event from a file)."`
	Import       importCmd       `cmd:"" help:"Append the events of a JSONL stream to a run, all or nothing."`
	Log          logCmd          `cmd:"" help:"List a run's events newest first with their time and recorded command; --graph --all draws every run as one DAG."`
	Show         showCmd         `cmd:"" help:"Show any object for humans: runs with totals, attestations, annotations, tags and promotions; events with blob previews."`
	Graph        graphCmd        `cmd:"" help:"Write the event DAG of runs with refs, forks, statuses and scores as Mermaid, Graphviz DOT or JSON."`
	View         viewCmd         `cmd:"" help:"Serve a read-only web page of the run graph (lanes, events, blobs, runs, diffs, the runs table) on a loopback address."`
	Fork         forkCmd         `cmd:"" help:"Start a new run from an event of a run, keeping its ancestors."`
	Resume       resumeCmd       `cmd:"" help:"Mark a paused, completed or failed run running again."`
	Tag          tagCmd          `cmd:"" help:"Point tags/NAME at any object (--force to move it)."`
	Switch       switchCmd       `cmd:"" help:"Set the current run (as git's HEAD) that record, import, log, show and loop run default to."`
	Status       statusCmd       `cmd:"" help:"Show the current run: ref, status, tips, and whether its ref moved under it."`
	Attestations attestationsCmd `cmd:"" help:"List a run's attestations: evaluations with scores, gate decisions, signers and signature state."`
	Diff         diffCmd         `cmd:"" help:"Compare two runs: shared and divergent events, changed fields, cost, token and tool-path deltas."`
	Replay       replayCmd       `cmd:"" help:"Check a run: --verify re-derives every object, --rerun re-executes its recorded commands."`
	Demo         demoCmd         `cmd:"" help:"Build a scratch repository that tells a story: recorded, forked and retried runs, a loop, a signed evaluation and a gated promotion."`
	Pack         packCmd         `cmd:"" help:"Write a TINEPACK3 transfer frame of objects and their link closure."`
	Unpack       unpackCmd       `cmd:"" help:"Verify a TINEPACK3 frame and install its objects (and shallow boundary)."`
	Keygen       keygenCmd       `cmd:"" help:"Generate a signing key: Ed25519 (default) or an HMAC secret (--hmac)."`
	Sign         signCmd         `cmd:"" help:"Sign an attestation (tine-attest/1, storing a signed copy) or a .tine file (tine-sig/2, into -o OUT or --in-place)."`
	Verify       verifyCmd       `cmd:"" help:"Check the signature of an attestation or a .tine file, or every attestation on a run; any key flag makes it fail closed."`
	Index        indexCmd        `cmd:"" help:"Rebuild, update or check the derived catalog (runs by ref, attestations, evaluations, evidence)."`
	Evaluate     evaluateCmd     `cmd:"" help:"Attach an evaluation (scores) to a run, signed with --key-file."`
	Attest       attestCmd       `cmd:"" help:"Attach an attestation with a JSON claim to a run, signed with --key-file."`
	Annotate     annotateCmd     `cmd:"" help:"Set run metadata on the annotation chain annotations/<run digest>."`
	Candidates   candidatesCmd   `cmd:"" help:"List evaluated runs meeting score thresholds, from the derived catalog."`
	Runs         runsCmd         `cmd:"" help:"Show ref'd runs side by side: status, meters, newest trusted scores, gate, promotions, parameters."`
	Search       searchCmd       `cmd:"" help:"Find events by the words of their payload and blobs, through the search index."`
	Promote      promoteCmd      `cmd:"" help:"Move promotions/NAME to a run by compare-and-swap once the release policy holds."`
	Promotions   promotionsCmd   `cmd:"" help:"List promotions with their history (who, when, why)."`
	Gate         gateCmd         `cmd:"" help:"Evidence-based completion gates: init, run, ci, status, debug, doctor, waive, acknowledge, log."`
	GC           gcCmd           `cmd:"" name:"gc" help:"Pack loose objects, consolidate packs, and with --prune=AGE delete old unreachable objects."`
	Repack       repackCmd       `cmd:"" help:"Write every object into one storage pack; -d removes the old packs and loose copies."`
	VerifyPack   verifyPackCmd   `cmd:"" name:"verify-pack" help:"Check storage packs entry by entry; exit 1 naming damaged objects."`
	IndexPack    indexPackCmd    `cmd:"" name:"index-pack" help:"Rebuild a storage pack's damaged or missing index from the pack file."`
	VersionCmd   versionCmd      `cmd:"" name:"version" help:"Print tine's version."`
	Loop         loopCmd         `cmd:"" help:"Run, show and diff improvement loops recorded as runs (one per branch)."`
	MCP          mcpCmd          `cmd:"" name:"mcp" help:"Serve the repository to AI agents as MCP tools over stdio (writes only under experiments/)."`
	Serve        serveCmd        `cmd:"" help:"Serve repositories over OpenTine's remote HTTP protocol (tenants, token, roles)."`
	Remote       remoteCmd       `cmd:"" help:"Add, list, show and remove remotes (paths, tine serve / OpenTine HTTP, S3)."`
	Fetch        fetchCmd        `cmd:"" help:"Fetch runs with their evaluations and attestations from a remote; move remotes/REMOTE/... tracking refs."`
	Push         pushCmd         `cmd:"" help:"Upload runs with their associations, then move each remote ref by compare-and-swap."`
	Pull         pullCmd         `cmd:"" help:"Fetch a ref and fast-forward the local run when the remote run holds all its events."`
	Clone        cloneCmd        `cmd:"" help:"Create a repository from a remote: fetch its runs and create its heads/* refs."`
	Help         helpCmd         `cmd:"" help:"Show the help of a verb (as VERB --help), or the verb list."`
	Completion   completionCmd   `cmd:"" help:"Print a shell completion script for bash, zsh or fish."`
}

// run executes one tine command line and returns the process exit status.
// It never calls os.Exit nor ends tine by a signal, so tests drive it
// in-process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	code, _ := runCommand(args, stdin, stdout, stderr)
	return code
}

// runCommand is run, plus the signal main ends tine by (endSignal) after
// an interrupt, or nil.
func runCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) (int, os.Signal) {
	if len(args) == 0 {
		// As git does: the verb list on stdout, and still a usage
		// error, since no command ran.
		if _, exited, err := parse(&cli{}, []string{"--help"}, stdout, stderr); exited < 0 && err != nil {
			fmt.Fprintf(stderr, "tine: %v\n", err)
			return exitFailure, nil
		}
		fmt.Fprintln(stderr, "tine: no command given; pick a verb above (tine help VERB explains one); see tine --help")
		return exitUsage, nil
	}
	// The hottest verbs in their plain forms skip kong (fastparse.go).
	if g, verb, cmd, ok := fastParse(args); ok {
		return execute(&g, verb, cmd.Run, catchesInterrupts(cmd), stdin, stdout, stderr)
	}
	// The cheap grammar first (grammar.go); its parser writes nowhere, so
	// help or an error it would show is shown by the full grammar instead.
	grammar, verb := verbGrammar(args)
	var kctx *kong.Context
	if grammar != nil {
		k, exited, err := parse(grammar, args, io.Discard, io.Discard, verb)
		if exited < 0 && err == nil {
			k.Kong.Stdout, k.Kong.Stderr = stdout, stderr
			kctx = k
		}
	}
	if kctx == nil {
		grammar = &cli{}
		k, exited, err := parse(grammar, args, stdout, stderr)
		var ge *grammarError
		if errors.As(err, &ge) {
			fmt.Fprintf(stderr, "tine: building the command grammar: %v\n", ge.err)
			return exitFailure, nil
		}
		if exited >= 0 {
			return exited, nil
		}
		if err != nil {
			verb := ""
			var pe *kong.ParseError
			if errors.As(err, &pe) && pe.Context != nil && pe.Context.Selected() != nil {
				verb = verbPath(pe.Context.Selected())
			}
			return reportError(stderr, verb, &usageError{msg: err.Error()}), nil
		}
		kctx = k
	}
	g, isVerb := grammar.(*globals)
	if !isVerb {
		g = &grammar.(*cli).globals
	}
	return execute(g, verbPath(kctx.Selected()), func(e *env) error { return runVerb(kctx, e) }, selectedCatches(kctx), stdin, stdout, stderr)
}

// selectedCatches is catchesInterrupts for the verb kong selected.
func selectedCatches(kctx *kong.Context) bool {
	n := kctx.Selected()
	if n == nil || !n.Target.IsValid() || !n.Target.CanAddr() {
		return true
	}
	return catchesInterrupts(n.Target.Addr().Interface())
}

// execute runs a parsed command line: do is the selected verb, verb its
// name as typed and g the global flags; catch says whether it runs under
// the interrupt handler (catchesInterrupts).
func execute(g *globals, verb string, do func(*env) error, catch bool, stdin io.Reader, stdout, stderr io.Writer) (int, os.Signal) {
	ctx, stop := context.Background(), func() {}
	if catch {
		ctx, stop = interruptContext()
	}
	defer stop()
	e := &env{
		ctx:       ctx,
		verb:      verb,
		stdin:     stdin,
		stdout:    stdout,
		stderr:    stderr,
		color:     colorFor(g.Color, stdout, os.Getenv),
		colorMode: g.Color,
		noPager:   g.NoPager,
		repoFlag:  g.Repo,
		getenv:    os.Getenv,
	}
	err := interrupted(ctx, e.verb, do(e))
	if err == nil {
		err = lateInterrupt(ctx, e.verb)
	}
	e.endProgress()
	if err != nil {
		return reportError(stderr, e.verb, err), endSignal(err)
	}
	return exitOK, nil
}

// parse builds a kong parser over grammar and parses args. exited is the
// status --help or --version ended the command with, or -1; a grammar
// kong cannot build is a *grammarError (a bug in tine, not in the command
// line). extra adds options (the verb of a one-verb grammar).
func parse(grammar any, args []string, stdout, stderr io.Writer, extra ...kong.Option) (kctx *kong.Context, exited int, err error) {
	exited = -1
	// Only the full grammar shows --version: a verb grammar (grammar.go)
	// writes nowhere and hands --version to the full one, so it skips
	// reading the build info and sets no variable at all, which spares
	// kong copying and interpolating the variables for every flag (no
	// help text of tine's names one).
	opts := []kong.Option{
		kong.Name("tine"),
		kong.Description("tine is git for runs: content-addressed objects, compare-and-swap refs and reflogs for agent and loop executions."),
		kong.Writers(stdout, stderr),
		// --help and --version end the command with this status; run
		// returns it instead of exiting the process.
		kong.Exit(func(code int) {
			if exited < 0 {
				exited = code
			}
		}),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	}
	opts = append(opts, signedMappers...)
	opts = append(opts, rawStringMappers...)
	if _, full := grammar.(*cli); full {
		opts = append(opts, kong.Vars{"version": versionString()})
	}
	opts = append(opts, extra...)
	parser, err := kong.New(grammar, opts...)
	if err != nil {
		return nil, -1, &grammarError{err}
	}
	kctx, err = parser.Parse(args)
	return kctx, exited, err
}

// grammarError is kong refusing tine's own grammar.
type grammarError struct{ err error }

func (e *grammarError) Error() string { return "building the command grammar: " + e.err.Error() }

// verbPath names the selected command as a user typed it, subcommands
// included ("index rebuild", "gate run"), for error lines and the --json
// "command" field.
func verbPath(n *kong.Node) string {
	var parts []string
	for ; n != nil; n = n.Parent {
		if n.Type == kong.CommandNode {
			parts = append([]string{n.Name}, parts...)
		}
	}
	return strings.Join(parts, " ")
}
