package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/trust"
)

// importCmd is `tine import FILE.jsonl [--ref REF]` and `tine import
// FILE.tine [--ref REF] [--allow-unverified] [--key-file K | --pubkey P]
// [--trust-embedded-key]`.
type importCmd struct {
	File string `arg:"" name:"file" help:"JSONL stream, one event per line (\"-\" reads standard input; blob paths are then relative to the current directory), or an OpenTine .tine artifact."`
	Ref  string `name:"ref" placeholder:"REF" help:"Run to append to (default the current run, tine switch, else heads/main; created if absent). For a .tine file: the new run's ref (default heads/<run_id>; must not exist)."`
	// The .tine flags (SPEC §5.4, migrate-v3 semantics).
	AllowUnverified bool   `name:"allow-unverified" help:"For a .tine file: import even when its integrity digest (or a requested signature) fails; the failed verdict is recorded."`
	KeyFile         string `name:"key-file" placeholder:"K" help:"For a .tine file: require its signature to verify with this key file (HMAC secret or Ed25519 seed)."`
	PubKey          string `name:"pubkey" placeholder:"P" help:"For a .tine file: require its signature to verify with this Ed25519 public key (a file, or 64 hex digits)."`
	TrustEmbedded   bool   `name:"trust-embedded-key" help:"For a .tine file: require a signature verified by its own embedded Ed25519 key (trust on first use)."`
	jsonFlag
	formatFlag
}

// Help shows an example under `tine import --help`.
func (c *importCmd) Help() string {
	return `Each line is an event payload plus "id" (a local name), "parents" (local
ids of earlier lines; absent means the previous line, [] a root), "causal",
and "input"/"output"/"artifact" as text, {"path": FILE} (relative to the
stream's directory, no .. or symlinks) or {"b64": DATA}. Everything is
redacted before hashing. All or nothing: the ref moves once, at the end.

Example:

    $ cat steps.jsonl
    {"id":"plan","kind":"model","model":"gpt-5","cost":0.002,"input":"plan the fix"}
    {"id":"run","kind":"tool","tool":"pytest","output":{"path":"out/pytest.txt"}}
    $ tine import steps.jsonl --ref experiments/try1

A .tine file (OpenTine v1/v2) becomes a new run, as tine migrate-v3 does:
its integrity digest must verify (else --allow-unverified), its exact bytes
are kept as the run's legacy_blob, each step becomes an event carrying its
legacy_step_id, the step -> event map is stored as migration_map_blob, and
the new objects are redacted before hashing.

    $ tine import run.tine --ref heads/imported
    $ tine import signed.tine --key-file ci.hmac

--format otlp reads an OpenTelemetry OTLP/JSON trace export instead: one
event per span, parents from parentSpanId, GenAI and OpenInference
attributes as model, provider, tool, usage, input and output.

    $ tine import --format otlp trace.json --ref experiments/agent`
}

// Run imports the stream.
func (c *importCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	if c.Format == formatOTLP {
		return c.runOTLP(e, r)
	}
	if strings.HasSuffix(c.File, trust.ArtifactSuffix) {
		return c.runArtifact(e, r)
	}
	if c.AllowUnverified || c.KeyFile != "" || c.PubKey != "" || c.TrustEmbedded {
		return usagef("--allow-unverified, --key-file, --pubkey and --trust-embedded-key apply to a .tine file only")
	}
	if c.Ref, err = runs.RefOrCurrent(r, c.Ref); err != nil {
		return err
	}
	var in io.Reader = e.stdin
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	if c.File != "-" {
		f, err := os.Open(c.File)
		if err != nil {
			return err
		}
		defer f.Close()
		in, dir = f, filepath.Dir(c.File)
	}
	res, err := runs.Import(e.ctx, r, runs.ImportOptions{Ref: c.Ref, Input: in, Dir: dir, Progress: e.plumbingProgress()})
	e.endProgress()
	if err != nil {
		return fmt.Errorf("%s: %w", c.File, err)
	}
	return e.emit(c.JSON, res, func(p *printer) {
		p.printf("imported %d events onto %s (run %s)\n", len(res.Events), res.Ref, shortOID(res.Run))
	})
}

// runArtifact imports a .tine artifact.
func (c *importCmd) runArtifact(e *env, r *plumbing.Repo) error {
	if c.KeyFile != "" && c.PubKey != "" {
		return usagef("--key-file and --pubkey cannot be combined; give one key")
	}
	data, err := trust.ReadArtifactFile(c.File)
	if err != nil {
		return err
	}
	keys, err := plumbing.VerifyKeys(plumbing.VerifyOptions{KeyFile: c.KeyFile, PubKey: c.PubKey, TrustEmbedded: c.TrustEmbedded})
	if err != nil {
		return err
	}
	res, err := trust.ImportArtifact(e.ctx, r, trust.ArtifactImportOptions{
		Data: data, Ref: c.Ref, AllowUnverified: c.AllowUnverified, Signature: keys,
		CheckSignature: c.KeyFile != "" || c.PubKey != "" || c.TrustEmbedded,
	})
	if err != nil {
		return fmt.Errorf("%s: %w", c.File, err)
	}
	return e.emit(c.JSON, res, func(p *printer) {
		verb := "imported"
		if !res.Created {
			verb = "already imported"
		}
		p.printf("%s %s (run_id %s, format %d) as %d events onto %s (run %s)\n", verb, c.File, sanitize(res.SourceRunID),
			res.LegacyFormat, res.Events, res.Ref, shortOID(res.Run))
		p.printf("integrity: %s", res.Integrity.Reason)
		if res.Signature != nil {
			p.printf("; signature: %s", res.Signature.State)
		}
		p.printf("\n")
	})
}
