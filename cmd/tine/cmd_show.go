package main

import (
	"fmt"
	"time"

	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/trust"
)

// showCmd is `tine show OBJ|REF [--json]`.
type showCmd struct {
	Rev   string `arg:"" optional:"" name:"object" help:"Any object: oid, prefix, ref, REF@{n}, a run as REF~N, or a .tine file (shown as the run it would import as, nothing written); default the current run (tine switch), else heads/main."`
	Lines int    `name:"lines" default:"10" help:"Lines of each blob to preview in an event."`
	jsonFlag
}

// Help shows examples under `tine show --help`.
func (c *showCmd) Help() string {
	return `A run: status, created_at, totals (events, cost, duration, tokens),
roots, tips, forked_from, its attestations (scores, gate decisions,
signature state), annotation values, tags, promotions and refs, and its
events. Without OBJECT: the current run (tine switch), else heads/main. An event: its fields and previews of
its input, output and artifact blobs. An attestation or annotation: its
payload. A blob: its bytes, raw. --json prints the payload with oid and type.

Examples:

    $ tine show heads/main
    $ tine show 3f9a2c71d0e4
    $ tine show heads/main~2 --json`
}

// Run shows the object.
func (c *showCmd) Run(e *env) error {
	if c.Lines < 1 {
		return usagef("--lines must be at least 1")
	}
	if trust.IsArtifactPath(c.Rev) {
		return c.runArtifact(e)
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	if c.Rev, err = runs.RefOrCurrent(r, c.Rev); err != nil {
		return err
	} else if c.Rev == "" {
		c.Rev = runs.DefaultRef
	}
	res, err := runs.Show(e.ctx, r, runs.ShowOptions{Rev: c.Rev, PreviewLines: c.Lines, Brief: c.JSON})
	if err != nil {
		return err
	}
	var assoc *trust.RunAssociations
	if res.Run != nil && res.Run.Stored {
		// What points at a stored run; a derived REV~N run has nothing.
		if assoc, err = trust.Associations(e.ctx, r, res.Run.ID); err != nil {
			return err
		}
	}
	if c.JSON {
		return writeJSON(e.stdout, e.verb, showJSON{ShowResult: res, Associations: assoc})
	}
	if res.Body != nil {
		_, err := e.stdout.Write(res.Body)
		return err
	}
	return e.page(func(p *printer) {
		printShow(p, res, assoc)
	})
}

// showJSON is show's --json object: the object, and for a stored run what
// points at it.
type showJSON struct {
	*runs.ShowResult
	Associations *trust.RunAssociations `json:"associations,omitempty"`
}

// runArtifact shows a .tine file as a run, in the repository's hash
// profile when run inside one (so the oid is the one tine import would
// write), else in sha256.
func (c *showCmd) runArtifact(e *env) error {
	algo := trust.ArtifactViewAlgo
	if r, err := e.openRepo(); err == nil {
		algo = r.Algo()
		r.Close()
	}
	res, err := trust.ShowArtifact(e.ctx, algo, c.Rev)
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(e.stdout, e.verb, res)
	}
	return e.page(func(p *printer) { printShow(p, res, nil) })
}

// printShow renders a run (with assoc, what points at it), an event or
// another JSON object.
func printShow(p *printer, res *runs.ShowResult, assoc *trust.RunAssociations) {
	p.printf("%s %s", res.Type, p.style(styleYellow, res.OID))
	if res.Ref != "" {
		p.printf(" (%s)", p.style(styleGreen, res.Ref))
	}
	if !res.Stored {
		p.printf(" %s", p.dim("[derived, not stored]"))
	}
	p.printf("\n")
	switch {
	case res.Run != nil:
		printRun(p, res, assoc)
	case res.Event != nil:
		printEvent(p, res)
	default:
		p.printf("%s\n", string(res.Payload))
	}
}

// printRun renders a run's header, totals, what points at it and its
// events (newest first).
func printRun(p *printer, res *runs.ShowResult, assoc *trust.RunAssociations) {
	run, t := res.Run, *res.Totals
	p.printf("status:   %s\n", run.Status)
	if run.HasCreatedAt {
		p.printf("created:  %s\n", time.Unix(0, int64(run.CreatedAt*1e9)).UTC().Format(time.RFC3339))
	}
	p.printf("events:   %d", t.Events)
	if t.Missing > 0 {
		p.printf(" (%d beyond the shallow boundary, not stored here: tine fetch --deepen N)", t.Missing)
	}
	p.printf("\ncost:     %s\nduration: %s\ntokens:   %.0f\n", fmtCost(t.Cost), fmtDuration(t.Duration), t.Tokens)
	p.printf("roots:    %s\ntips:     %s\n", runs.ShortList(run.Roots), runs.ShortList(run.Tips))
	if ff := run.ForkedFrom; ff != nil {
		p.printf("forked from run %s at event %s", runs.Short(ff.Run), runs.Short(ff.Event))
		if ff.Reason != "" {
			p.printf(": %s", sanitize(ff.Reason))
		}
		p.printf("\n")
	}
	if assoc != nil {
		printAssociations(p, assoc)
	}
	if len(res.Entries) > 0 {
		p.printf("\n")
	}
	for i := len(res.Entries) - 1; i >= 0; i-- {
		printEntry(p, "  ", &res.Entries[i], false)
	}
}

// printEvent renders an event's fields and blob previews.
func printEvent(p *printer, res *runs.ShowResult) {
	ev := res.Event
	field := func(name, v string) {
		if v != "" {
			p.printf("%-9s %s\n", name+":", sanitize(v))
		}
	}
	field("kind", ev.Kind)
	field("model", ev.Model)
	field("tool", ev.Tool)
	field("parents", runs.ShortList(ev.Parents))
	field("causal", runs.ShortList(ev.Causal))
	if ev.Cost != 0 {
		field("cost", fmtCost(ev.Cost))
	}
	if ev.Duration != 0 {
		field("duration", fmtDuration(ev.Duration))
	}
	if ev.HasTime {
		field("time", time.Unix(0, int64(ev.TimeUnix*1e9)).UTC().Format(time.RFC3339Nano))
	}
	if len(ev.Usage) > 0 {
		field("tokens", fmt.Sprintf("%.0f", ev.Tokens()))
	}
	if ev.Score != nil {
		field("score", fmt.Sprintf("%g", *ev.Score))
	}
	if ev.Error != "" {
		p.printf("%-9s %s\n", "error:", p.bad(sanitize(ev.Error)))
	}
	if a := ev.Attributes; len(a.Object) > 0 {
		p.printf("attributes:\n")
		for _, m := range a.Object {
			v := runs.ValueText(m.Value)
			p.printf("  %s: %s\n", sanitize(m.Key), sanitize(clip(v, 200)))
		}
	}
	for _, b := range res.Blobs {
		p.printf("\n%s %s", b.Field, p.dim(shortOID(b.OID)))
		switch {
		case b.Missing:
			p.printf(" (not stored locally)\n")
			continue
		case b.Binary:
			p.printf(" (binary, %d bytes)\n", b.Size)
			continue
		}
		p.printf(" (%d bytes)\n", b.Size)
		for _, l := range b.Lines {
			p.printf("  | %s\n", sanitize(l))
		}
		if b.More > 0 {
			p.printf("  %s\n", p.dim(fmt.Sprintf("... %d more lines (tine show %s)", b.More, shortOID(b.OID))))
		}
	}
}
