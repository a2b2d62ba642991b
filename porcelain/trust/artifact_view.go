package trust

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/memory"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// An OpenTine .tine artifact as a run (SPEC §5.4). The conversion builds
// exactly the objects `tine import FILE.tine` writes, so a read-only view
// of a file and its imported run have the same oid and `tine diff` reports
// them the same.

// ArtifactSuffix is the file-name suffix of a portable artifact.
const ArtifactSuffix = ".tine"

// ArtifactViewAlgo is the hash profile a .tine view uses outside a
// repository: OpenTine's, so the oids shown are the ones OpenTine would
// write. Inside a repository the view uses the repository's profile.
const ArtifactViewAlgo = objects.SHA256

// LegacyScope is legacy_verification.scope: the verdicts describe the
// original v2 bytes, not the converted objects.
const LegacyScope = "original-v2-artifact"

// SignatureScopeLegacy is the run's signature_scope: a signature of the
// source covers the legacy blob only.
const SignatureScopeLegacy = "legacy_blob_only"

// IsArtifactPath reports whether arg names an existing regular file whose
// name ends in ".tine" (the repository directory .tine never qualifies).
func IsArtifactPath(arg string) bool {
	if !strings.HasSuffix(arg, ArtifactSuffix) {
		return false
	}
	fi, err := os.Stat(arg)
	return err == nil && fi.Mode().IsRegular()
}

// ReadArtifactFile reads a .tine file, refusing one larger than
// objects.MaxArtifactBytes before reading it whole.
func ReadArtifactFile(path string) ([]byte, error) {
	// Non-blocking and fstat-checked (fsutil.ReadFileWith): a FIFO named
	// x.tine is refused at once instead of hanging the import.
	data, err := fsutil.ReadFileWith(path, fsutil.ReadOptions{Limit: objects.MaxArtifactBytes})
	switch {
	case errors.Is(err, fsutil.ErrNotRegular):
		return nil, fmt.Errorf("%s: a .tine artifact must be a regular file", path)
	case errors.Is(err, fsutil.ErrTooLarge):
		return nil, fmt.Errorf("%s: %w", path, objects.Errorf(objects.ReasonArtifactStructureExcessive, "larger than %d bytes", objects.MaxArtifactBytes))
	}
	return data, err
}

// ArtifactView is a .tine file converted in memory: the run, the store
// holding every converted object, and the source's verdicts.
type ArtifactView struct {
	// Run is the converted run, loaded (Stored false: nothing is written).
	Run *runs.Run
	// Store holds the converted objects; it is the Getter for the run's
	// blobs.
	Store *memory.Store
	// Artifact is the decoded source.
	Artifact *objects.Artifact
	// Integrity is the source's integrity verdict.
	Integrity objects.IntegrityResult
	// EventMap maps each step id to its event oid, in graph order.
	EventMap []objects.Member

	objs []*objects.Object // in write order, the run last
}

// OpenArtifactView converts the .tine bytes data for reading with hash
// profile a. The integrity verdict is recorded, not enforced: a view shows
// whatever the file holds. The signature block is verified without keys
// (an unsigned file reads unsigned, a signed one no-key) and recorded.
func OpenArtifactView(ctx context.Context, a objects.Algo, data []byte) (*ArtifactView, error) {
	art, err := objects.LoadArtifact(data)
	if err != nil {
		return nil, err
	}
	// The verdicts are those of an import without keys, so that the view
	// and `tine import` of the same file name the same run.
	sig := objects.VerifyArtifact(art.Original, objects.VerifyOptions{})
	v, err := convertArtifact(a, data, art, objects.VerifyIntegrity(art.Original), &sig)
	if err != nil {
		return nil, err
	}
	v.Store = memory.New(a)
	if err := v.Store.PutBatch(ctx, v.objs); err != nil {
		return nil, err
	}
	run, err := runs.LoadRun(ctx, v.Store, v.objs[len(v.objs)-1].ID)
	if err != nil {
		return nil, err
	}
	run.Stored = false
	v.Run = run
	return v, nil
}

// ShowArtifact is Show for a .tine file: the converted run, not stored.
func ShowArtifact(ctx context.Context, a objects.Algo, path string) (*runs.ShowResult, error) {
	data, err := ReadArtifactFile(path)
	if err != nil {
		return nil, err
	}
	v, err := OpenArtifactView(ctx, a, data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	res := runs.ShowRun(v.Run, "")
	res.Stored = false
	return res, nil
}

// DiffTargets is DiffRevisions where either side may also be a .tine file
// (IsArtifactPath), read as an in-memory view and never written. r may be
// nil when both sides are files; the views then use sha256, OpenTine's
// profile, and otherwise r's profile so that a file and its import compare
// equal.
func DiffTargets(ctx context.Context, r *plumbing.Repo, revA, revB string, opt runs.DiffOptions) (*runs.DiffResult, error) {
	if !IsArtifactPath(revA) && !IsArtifactPath(revB) {
		return runs.DiffRevisions(ctx, r, revA, revB, opt)
	}
	algo := objects.SHA256
	var getters layeredGetter
	if r != nil {
		algo = r.Algo()
	}
	side := func(arg string) (*runs.Run, string, error) {
		if !IsArtifactPath(arg) {
			if r == nil {
				return nil, "", fmt.Errorf("%s: not a .tine file, and no repository to resolve it in", arg)
			}
			return runs.ResolveRun(ctx, r, arg)
		}
		data, err := ReadArtifactFile(arg)
		if err != nil {
			return nil, "", err
		}
		v, err := OpenArtifactView(ctx, algo, data)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", arg, err)
		}
		getters = append(getters, v.Store)
		return v.Run, "", nil
	}
	a, refA, err := side(revA)
	if err != nil {
		return nil, err
	}
	b, refB, err := side(revB)
	if err != nil {
		return nil, err
	}
	if r != nil {
		getters = append(getters, r.Objects())
	}
	res, err := runs.Diff(ctx, getters, a, b, opt)
	if err != nil {
		return nil, err
	}
	res.A.Revision, res.A.Ref = revA, refA
	res.B.Revision, res.B.Ref = revB, refB
	return res, nil
}

// layeredGetter reads from the first getter that holds an object.
type layeredGetter []objects.Getter

// Get implements objects.Getter.
func (l layeredGetter) Get(ctx context.Context, id objects.OID) (*objects.Object, error) {
	for _, g := range l {
		o, err := g.Get(ctx, id)
		if !errors.Is(err, objects.ErrNotFound) {
			return o, err
		}
	}
	return nil, fmt.Errorf("%s: %w", id, objects.ErrNotFound)
}
