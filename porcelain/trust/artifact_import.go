package trust

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/refs"
)

// ErrUnverifiedArtifact means a .tine source failed its integrity or a
// requested signature check and --allow-unverified was not given.
var ErrUnverifiedArtifact = errors.New("refusing to import an unverified .tine artifact (pass --allow-unverified to import it anyway)")

// ArtifactImportOptions configures ImportArtifact.
type ArtifactImportOptions struct {
	// Data is the .tine file's bytes, kept verbatim as the legacy blob.
	Data []byte
	// Ref is the new run's ref; empty means DefaultArtifactRef(run_id). It
	// must not exist yet, unless it already holds this very import.
	Ref string
	// AllowUnverified imports a source whose integrity (or requested
	// signature) check failed; the failed verdicts are recorded.
	AllowUnverified bool
	// Signature holds the verification keys. When CheckSignature is set the
	// verdict must be verified or verified-tofu; otherwise the signature
	// block, if any, is verified with these keys and only recorded.
	Signature      objects.VerifyOptions
	CheckSignature bool
	// Actor names the writer in the reflog.
	Actor string
}

// ArtifactImportResult is what `tine import FILE.tine` reports.
type ArtifactImportResult struct {
	Ref     string `json:"ref"`
	Run     string `json:"run"`
	Created bool   `json:"created"`
	// SourceRunID is the artifact's run_id; LegacyFormat its format_version.
	SourceRunID  string `json:"source_run_id"`
	LegacyFormat int    `json:"legacy_format"`
	Events       int    `json:"events"`
	// LegacyBlob holds the original bytes; MigrationMap the step id ->
	// event oid map.
	LegacyBlob   string `json:"legacy_blob"`
	MigrationMap string `json:"migration_map_blob"`
	// Integrity and Signature are the source's verdicts.
	Integrity objects.IntegrityResult `json:"integrity"`
	Signature *objects.Verdict        `json:"signature,omitempty"`
	EventMap  map[string]string       `json:"event_map"`
}

// DefaultArtifactRef is the ref an artifact import writes when none is
// named: heads/ plus the run_id casefolded, with every character outside
// [a-z0-9._-] replaced by '-' and cut to 200 bytes ("heads/imported" when
// nothing is left).
func DefaultArtifactRef(runID string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(runID) {
		switch {
		case b.Len() >= 200:
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	name := strings.Trim(b.String(), "-.")
	if name == "" {
		name = "imported"
	}
	return "heads/" + name
}

// ImportArtifact migrates a .tine artifact into the repository (SPEC §5.4,
// tine migrate-v3). Strict by default: a source whose integrity verdict is
// not ok, or whose requested signature check is not verified, is refused
// with ErrUnverifiedArtifact unless AllowUnverified. The exact original
// bytes become the run's legacy_blob, unredacted; the verdicts go into
// legacy_verification (scope original-v2-artifact); the content is
// redacted and hashed anew, each step becoming an event that carries its
// legacy_step_id; the step id -> event oid map is stored as
// migration_map_blob; legacy_format and signature_scope legacy_blob_only
// are recorded. Objects are validated and written, then the ref is created
// by compare-and-swap; importing the same bytes onto the ref that already
// holds them changes nothing.
func ImportArtifact(ctx context.Context, r *plumbing.Repo, opt ArtifactImportOptions) (*ArtifactImportResult, error) {
	art, err := objects.LoadArtifact(opt.Data)
	if err != nil {
		return nil, err
	}
	integrity := objects.VerifyIntegrity(art.Original)
	sig := objects.VerifyArtifact(art.Original, opt.Signature)
	if !opt.AllowUnverified {
		if !integrity.OK {
			return nil, fmt.Errorf("integrity: %s: %w", integrity.Reason, ErrUnverifiedArtifact)
		}
		if opt.CheckSignature && !sig.OK {
			why := ""
			if km := plumbing.ExplainKeyMismatch(objects.FamilyArtifact, art.Original, sig, opt.Signature); km != nil {
				why = "; " + km.String()
			}
			return nil, fmt.Errorf("signature: %s (%s)%s: %w", sig.Reason, sig.State, why, ErrUnverifiedArtifact)
		}
	}
	v, err := convertArtifact(r.Algo(), opt.Data, art, integrity, &sig)
	if err != nil {
		return nil, err
	}
	ref, err := runs.WritableRef(ctx, r, runs.OrDefault(opt.Ref, DefaultArtifactRef(art.RunID)))
	if err != nil {
		return nil, err
	}
	run := v.objs[len(v.objs)-1]
	res := v.result(ref, run.ID, &sig)
	cur, err := r.Refs().Read(ctx, ref)
	switch {
	case err == nil && cur == run.ID:
		// The same bytes were imported here before. Confirmed under the
		// guard like any write of the ref, which recovers what a killed
		// writer of it left (refs.Store.Verify).
		if err := r.Refs().Verify(ctx, ref, refs.ExpectValue(cur)); err != nil {
			return nil, fmt.Errorf("ref %s: %w", ref, err)
		}
		return res, nil
	case err == nil:
		return nil, fmt.Errorf("ref %s holds %s: %w (name another with --ref)", ref, cur, runs.ErrRefExists)
	case !errors.Is(err, refs.ErrNotFound):
		return nil, fmt.Errorf("ref %s: %w", ref, err)
	}
	if err := runs.Commit(ctx, r, ref, refs.ExpectAbsent, opt.Actor, v.objs); err != nil {
		return nil, err
	}
	res.Created = true
	return res, nil
}

// result builds the import report.
func (v *ArtifactView) result(ref string, run objects.OID, sig *objects.Verdict) *ArtifactImportResult {
	res := &ArtifactImportResult{Ref: ref, Run: run.String(), SourceRunID: v.Artifact.RunID, LegacyFormat: v.Artifact.Version,
		Events: len(v.EventMap), Integrity: v.Integrity, Signature: sig, EventMap: map[string]string{}}
	for _, m := range v.EventMap {
		res.EventMap[m.Key] = m.Value.Str
	}
	runPayload := v.objs[len(v.objs)-1].Value
	res.LegacyBlob = runs.Str(runPayload, "legacy_blob")
	res.MigrationMap = runs.Str(runPayload, "migration_map_blob")
	return res
}

// integrityValue is legacy_verification.integrity.
func integrityValue(ir objects.IntegrityResult) objects.Value {
	optStr := func(s *string) objects.Value {
		if s == nil {
			return objects.Null()
		}
		return objects.String(*s)
	}
	return objects.ObjectValue(
		objects.Member{Key: "actual", Value: optStr(ir.Actual)},
		objects.Member{Key: "algorithm", Value: optStr(ir.Algorithm)},
		objects.Member{Key: "expected", Value: ir.Expected},
		objects.Member{Key: "ok", Value: objects.Bool(ir.OK)},
		objects.Member{Key: "reason", Value: objects.String(ir.Reason)},
	)
}

// signatureValue is legacy_verification.signature.
func signatureValue(sv *objects.Verdict) objects.Value {
	optStr := func(s *string) objects.Value {
		if s == nil {
			return objects.Null()
		}
		return objects.String(*s)
	}
	return objects.ObjectValue(
		objects.Member{Key: "algorithm", Value: optStr(sv.Algorithm)},
		objects.Member{Key: "key_id", Value: optStr(sv.KeyID)},
		objects.Member{Key: "ok", Value: objects.Bool(sv.OK)},
		objects.Member{Key: "reason", Value: objects.String(sv.Reason)},
		objects.Member{Key: "signed_at", Value: optStr(sv.SignedAt)},
		objects.Member{Key: "signer", Value: optStr(sv.Signer)},
		objects.Member{Key: "state", Value: objects.String(sv.State)},
	)
}
