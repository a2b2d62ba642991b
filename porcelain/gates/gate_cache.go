package gates

import (
	"context"
	"fmt"
	"sync"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/index"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// The gate cache (ARCHITECTURE §4) is derived: the catalog's gate-input
// evidence table maps an input digest to the evidence events of every run
// a ref names, and a lookup reads and verifies those events. Nothing else
// is stored, so the cache is rebuilt from the gate runs (tine index
// rebuild) and is exactly as fresh as the refs. Like ConstraintLoop's
// evidence.json it effectively holds the latest results: a gate ref moves
// to each new gate run, so evidence only an older run held drops out.

// gateEvidenceIndex finds the events filed under an input digest.
type gateEvidenceIndex interface {
	EvidenceEvents(ctx context.Context, digest string) ([]objects.OID, error)
}

// catalogEvidence is gateEvidenceIndex over the derived catalog, loaded
// (and brought up to date) once per use.
type catalogEvidence struct {
	r    *plumbing.Repo
	once sync.Once
	cat  *index.Catalog
	err  error
}

// EvidenceEvents implements gateEvidenceIndex.
func (c *catalogEvidence) EvidenceEvents(ctx context.Context, digest string) ([]objects.OID, error) {
	c.once.Do(func() {
		c.cat, _, c.err = plumbing.OpenIndex(c.r).Catalog(ctx)
	})
	if c.err != nil {
		return nil, fmt.Errorf("gate cache: %w", c.err)
	}
	return c.cat.Evidence(index.TableGateInput, digest), nil
}

// gateCache looks evidence up by input digest.
type gateCache struct {
	g   objects.Getter
	idx gateEvidenceIndex
}

// newGateCache returns the cache of r, backed by the catalog.
func newGateCache(r *plumbing.Repo) *gateCache {
	return &gateCache{g: r.Objects(), idx: &catalogEvidence{r: r}}
}

// lookup returns the newest stored evidence for constraint c at digest,
// or nil. Events that do not read or decode (corrupt, foreign, pruned) are
// skipped: they are misses, never results (fail closed: the constraint
// reruns). Evidence recorded by gate ci is
// not read back (SPEC §1: ci neither reads nor writes the local cache).
func (gc *gateCache) lookup(ctx context.Context, c *gate.Constraint, digest string) (*GateEvidenceRecord, error) {
	ids, err := gc.idx.EvidenceEvents(ctx, digest)
	if err != nil {
		return nil, err
	}
	var best *GateEvidenceRecord
	for _, id := range ids {
		rec, err := DecodeGateEvidence(ctx, gc.g, id)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, cerr
			}
			continue
		}
		ev := rec.Evidence
		if ev.ConstraintID != c.ID || ev.Kind != c.Kind || ev.InputDigest != digest || rec.Phase == gate.PhaseCI {
			continue
		}
		if best == nil || rec.Time > best.Time || rec.Time == best.Time && rec.Event.String() > best.Event.String() {
			best = rec
		}
	}
	return best, nil
}
