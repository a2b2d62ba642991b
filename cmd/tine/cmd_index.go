package main

import (
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// indexCmd is `tine index rebuild|update|status`: the derived catalog that
// answers candidates, attestation and evidence lookups without scanning
// objects.
type indexCmd struct {
	Rebuild indexRebuildCmd `cmd:"" help:"Build the derived catalog, the search index and the history index from scratch out of refs and objects."`
	Update  indexUpdateCmd  `cmd:"" help:"Bring the derived catalog, the search index and the history index up to date, reading only what changed."`
	Status  indexStatusCmd  `cmd:"" help:"Say whether the derived catalog and the history index are fresh, stale, missing or corrupt (--verify: check the history index against the objects); writes nothing."`
}

// Help explains the catalog under `tine index --help`.
func (c *indexCmd) Help() string {
	return `The catalog (objects/catalog/catalog) is derived data: runs by ref,
attestations by target, evaluations by score and gate evidence by input
digest, and the summaries of the ref'd runs and their events (tine runs).
Beside it, objects/catalog/search is the search index of tine search, and
objects/catalog/history/ the history index of tine log and tine diff (each
run's event list as a base run's prefix plus its own events, with tool
steps and cumulative totals). None is trusted over objects: a stale,
truncated or deleted file is detected and rebuilt on the next use, and
fsck never reads them.

Example:

    $ tine index rebuild
    rebuilt objects/catalog/catalog: 3 refs, 2 runs, 4 attestations (3 evaluations), 1 annotations, 2 evidence rows
    rebuilt objects/catalog/search: 5 events, 61 terms, 1204 bytes
    rebuilt objects/catalog/history: 2 runs added; 2 runs, 14 events in 1 layers`
}

// indexRebuildCmd is `tine index rebuild`.
type indexRebuildCmd struct {
	jsonFlag
}

// Help shows an example under `tine index rebuild --help`.
func (c *indexRebuildCmd) Help() string {
	return `Reads every ref, the runs they name and their events, and every
attestation and annotation, then replaces the catalog atomically; then
reads every event's text and blobs again for the search index, and
indexes every ref's run again for the history index.

Example:

    $ tine index rebuild
    rebuilt objects/catalog/catalog: 1 refs, 1 runs, 1 attestations (1 evaluations), 0 annotations, 0 evidence rows
    rebuilt objects/catalog/search: 1 events, 12 terms, 311 bytes
    rebuilt objects/catalog/history: 1 runs added; 1 runs, 1 events in 1 layers`
}

// Run rebuilds the catalog.
func (c *indexRebuildCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.IndexRebuild(e.ctx, r, plumbing.IndexRebuildOptions{Progress: e.plumbingProgress()})
	e.endProgress()
	if err != nil {
		return err
	}
	hist, err := runs.RebuildHistory(e.ctx, r)
	if err != nil {
		return err
	}
	out := indexReport{res, hist}
	return e.emit(c.JSON, out, func(p *printer) { printIndexReport(p, out) })
}

// indexUpdateCmd is `tine index update`.
type indexUpdateCmd struct {
	jsonFlag
}

// Help shows an example under `tine index update --help`.
func (c *indexUpdateCmd) Help() string {
	return `Compares the catalog's ref snapshot and attestation set with the
repository and reads only new runs, events and attestations, then indexes
for tine search only the events the search index lacks, and for the
history index only the events ref'd runs add to the runs it holds; a
missing or damaged file is rebuilt.

Example:

    $ tine index update
    updated objects/catalog/catalog (1 refs changed): 1 refs, 1 runs, 1 attestations (1 evaluations), 0 annotations, 0 evidence rows
    updated objects/catalog/search: 2 events, 19 terms, 402 bytes
    fresh objects/catalog/history: 0 runs added; 1 runs, 2 events in 1 layers`
}

// Run updates the catalog.
func (c *indexUpdateCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.IndexUpdate(e.ctx, r, plumbing.IndexUpdateOptions{Progress: e.plumbingProgress()})
	e.endProgress()
	if err != nil {
		return err
	}
	hist, err := runs.UpdateHistory(e.ctx, r)
	if err != nil {
		return err
	}
	out := indexReport{res, hist}
	return e.emit(c.JSON, out, func(p *printer) { printIndexReport(p, out) })
}

// indexReport is what index rebuild and update did to the catalog, the
// search index and the history index.
type indexReport struct {
	*plumbing.IndexRebuildResult
	History *runs.HistoryReport `json:"history"`
}

// printIndexReport renders what a rebuild or update did.
func printIndexReport(p *printer, res indexReport) {
	p.printf("%s %s", res.Action, res.Path)
	if res.Reason != "" && res.Action != "rebuilt" {
		p.printf(" (%s)", res.Reason)
	}
	p.printf(": %d refs, %d runs, %d attestations (%d evaluations), %d annotations, %d evidence rows\n",
		res.Refs, res.Runs, res.Attestations, res.Evaluations, res.Annotations, res.EvidenceRows)
	if s := res.Search; s != nil {
		p.printf("%s %s: %d events, %d terms, %d bytes\n", s.Action, plumbing.SearchIndexPath, s.Events, s.Terms, s.Bytes)
	}
	if h := res.History; h != nil {
		p.printf("%s %s: %d runs added", h.Action, h.Path, h.Added)
		if h.Skipped > 0 {
			p.printf(", %d with events not stored here left to the objects", h.Skipped)
		}
		p.printf("; %d runs, %d events in %d layers\n", h.Runs, h.Events, h.Layers)
	}
}

// indexStatusCmd is `tine index status [--verify]`.
type indexStatusCmd struct {
	Verify bool `name:"verify" help:"Also check every ref'd run the history index holds against its run object and events (reads them all)."`
	jsonFlag
}

// Help shows an example under `tine index status --help`.
func (c *indexStatusCmd) Help() string {
	return `Checks the catalog file (checksum, version, hash, evidence rules) and
compares it with the current refs and attestations, then the history
index's files (checksums, version, hash) and whether it holds every ref's
run. --verify also reads every ref'd run it holds and their events and
compares them with it; a difference exits 1. Nothing is written.

Example:

    $ tine index status
    objects/catalog/catalog: stale (1 refs changed)
    1 refs, 1 runs, 1 attestations (1 evaluations), 0 annotations, 0 evidence rows, 449 bytes
    objects/catalog/history: fresh
    1 runs, 2 events in 1 layers, 1490 bytes`
}

// Run reports the catalog's state.
func (c *indexStatusCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := plumbing.IndexStatus(e.ctx, r, plumbing.IndexStatusOptions{})
	if err != nil {
		return err
	}
	hist, err := runs.StatusHistory(e.ctx, r, c.Verify)
	if err != nil {
		return err
	}
	out := struct {
		*plumbing.IndexStatusResult
		History *runs.HistoryStatus `json:"history"`
	}{res, hist}
	err = e.emit(c.JSON, out, func(p *printer) {
		p.printf("%s: %s", res.Path, res.State)
		if res.Reason != "" {
			p.printf(" (%s)", res.Reason)
		}
		p.printf("\n")
		if res.State == "fresh" || res.State == "stale" {
			p.printf("%d refs, %d runs, %d attestations (%d evaluations), %d annotations, %d evidence rows, %d bytes (%d in %d layers)\n",
				res.Refs, res.Runs, res.Attestations, res.Evaluations, res.Annotations, res.EvidenceRows, res.Bytes, res.LayerBytes, res.Layers)
		}
		printHistoryStatus(p, hist)
	})
	if err == nil && len(hist.Mismatches) > 0 {
		return &silentError{code: exitFailure}
	}
	return err
}

// printHistoryStatus renders the history index's state.
func printHistoryStatus(p *printer, h *runs.HistoryStatus) {
	p.printf("%s: %s", h.Path, h.State)
	if h.Reason != "" {
		p.printf(" (%s)", h.Reason)
	}
	p.printf("\n")
	if h.State != "corrupt" || h.Verified {
		p.printf("%d runs, %d events in %d layers, %d bytes", h.Runs, h.Events, h.Layers, h.Bytes)
		if h.Verified {
			p.printf("; verified against the objects: %d differ", len(h.Mismatches))
		}
		p.printf("\n")
	}
	for _, m := range h.Mismatches {
		p.printf("  %s\n", sanitize(m))
	}
}
