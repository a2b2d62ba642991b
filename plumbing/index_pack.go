package plumbing

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tinehq/tine/objects"
)

// IndexPackResult is what `tine index-pack` reports.
type IndexPackResult struct {
	// Pack names the pack whose index was rebuilt.
	Pack string `json:"pack"`
	// Objects counts the objects the new index lists, every one re-hashed.
	Objects int `json:"objects"`
	// Replaced reports that a damaged index was replaced (else there was
	// none).
	Replaced bool `json:"replaced"`
}

// IndexPack rebuilds the index of one storage pack from the pack file
// (pack.Store.RebuildIndex), for a pack whose index is damaged or
// missing: its objects become readable again and gc may prune once more.
// pack is "pack-<hex>", with or without ".pack"/".idx" and a directory.
// Where the pack alone cannot say where a blob ends, the oids the
// repository references settle it: ref and reflog values and the links of
// every readable object. It holds the gc lock, so no gc runs meanwhile.
func IndexPack(ctx context.Context, r *Repo, pack string) (*IndexPackResult, error) {
	name, err := packNameArg(pack)
	if err != nil {
		return nil, fmt.Errorf("index-pack: %w", err)
	}
	if r.packs == nil {
		return nil, fmt.Errorf("index-pack: %w", r.packsErr)
	}
	dir := r.packs.Dir()
	if !isFile(filepath.Join(dir, name+".pack")) {
		return nil, fmt.Errorf("index-pack: %s: no such pack file in this repository", name)
	}
	unlock, err := r.lockGC(ctx)
	if err != nil {
		return nil, fmt.Errorf("index-pack: %w", err)
	}
	defer unlock()
	replaced := isFile(filepath.Join(dir, name+".idx"))
	wanted, err := referencedOIDs(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("index-pack: %w", err)
	}
	n, err := r.packs.RebuildIndex(ctx, name, func(id objects.OID) bool { return wanted[id] })
	if err != nil {
		return nil, fmt.Errorf("index-pack: %w", err)
	}
	return &IndexPackResult{Pack: name, Objects: n, Replaced: replaced}, nil
}

// packNameArg turns a pack argument into its name, "pack-<64 hex>".
func packNameArg(arg string) (string, error) {
	n := filepath.Base(arg)
	n = strings.TrimSuffix(strings.TrimSuffix(n, ".pack"), ".idx")
	if h, ok := strings.CutPrefix(n, "pack-"); !ok || !isLowerHexN(h, 64) {
		return "", fmt.Errorf("%q is not a storage pack name (pack-<64 hex>)", arg)
	}
	return n, nil
}

// referencedOIDs returns every oid a ref, a reflog row or a readable
// object names. Objects that cannot be read are skipped: this is evidence
// for a repair, not a check (fsck reports them).
func referencedOIDs(ctx context.Context, r *Repo) (map[objects.OID]bool, error) {
	w := &reachWalk{ctx: ctx, r: r, seen: map[objects.OID]bool{}, from: map[objects.OID]string{}}
	if err := w.addRoots(); err != nil {
		return nil, err
	}
	out := w.seen
	// Blobs link to nothing: they are not even listed.
	linking := []objects.Type{objects.TypeAnnotation, objects.TypeAttestation, objects.TypeEvent, objects.TypeRun}
	err := objects.ListTypes(ctx, r.objs, linking, func(id objects.OID) error {
		o, err := r.objs.Get(ctx, id)
		if err != nil {
			return nil
		}
		links, _ := objects.Links(o)
		for _, l := range links {
			out[l] = true
		}
		return nil
	})
	return out, err
}
