package main

import (
	"fmt"
	"io"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// formatOTLP is `tine import --format otlp`.
const formatOTLP = "otlp"

// formatFlag is tine import's --format: what the file holds. The default
// goes by the name: a .tine artifact, else a JSONL stream.
type formatFlag struct {
	Format string `name:"format" enum:",jsonl,otlp" default:"" placeholder:"F" help:"What FILE holds: jsonl (default; a .tine name means an OpenTine artifact) or otlp (an OpenTelemetry OTLP/JSON trace export)."`
}

// runOTLP imports an OTLP/JSON trace export.
func (c *importCmd) runOTLP(e *env, r *plumbing.Repo) error {
	if c.AllowUnverified || c.KeyFile != "" || c.PubKey != "" || c.TrustEmbedded {
		return usagef("--allow-unverified, --key-file, --pubkey and --trust-embedded-key apply to a .tine file only")
	}
	// Like a JSONL import: no --ref means the current run (tine switch).
	ref, err := runs.RefOrCurrent(r, c.Ref)
	if err != nil {
		return err
	}
	c.Ref = ref
	var data []byte
	if c.File == "-" {
		data, err = io.ReadAll(io.LimitReader(e.stdin, runs.MaxOTLPBytes+1))
		if err == nil && len(data) > runs.MaxOTLPBytes {
			err = fmt.Errorf("more than %d bytes: %w", runs.MaxOTLPBytes, fsutil.ErrTooLarge)
		}
		if err != nil {
			return fmt.Errorf("-: %w", err)
		}
	} else if data, err = fsutil.ReadFileWith(c.File, fsutil.ReadOptions{Limit: runs.MaxOTLPBytes}); err != nil {
		return err // ReadFileWith's errors name the file already
	}
	res, err := runs.ImportOTLP(e.ctx, r, runs.OTLPImportOptions{Ref: c.Ref, Data: data, Progress: e.plumbingProgress()})
	e.endProgress()
	if err != nil {
		return fmt.Errorf("%s: %w", c.File, err)
	}
	return e.emit(c.JSON, res, func(p *printer) {
		p.printf("imported %d spans of %d trace(s) onto %s (run %s)\n", res.Spans, len(res.Traces), res.Ref, shortOID(res.Run))
		for _, u := range res.Unresolved {
			p.printf("unresolved %s: span %s of trace %s names %s, which neither the export nor the run holds\n", u.Kind, u.Span, u.Trace, u.Ref)
		}
	})
}
