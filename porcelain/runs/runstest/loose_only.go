package runstest

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// LooseOnly makes the loose file of id (TYPE:ALGO:HEX) the only copy of
// it in the repository at root, for tests that damage an object's file:
// each storage pack holding it (appends write packs) is written out as
// loose files and removed, pack file first, as gc removes packs. A copy a
// test damages is then the object's only copy, as on a repository that
// keeps its objects loose.
func LooseOnly(root, id string) error {
	oid, err := objects.ParseOID(id)
	if err != nil {
		return err
	}
	r, err := plumbing.Open(root)
	if err != nil {
		return err
	}
	defer r.Close()
	ctx := context.Background()
	ps := r.Packs()
	names, err := ps.Packs()
	if err != nil {
		return err
	}
	for _, name := range names {
		var objs []*objects.Object
		held := false
		err := ps.Walk(ctx, name, func(got objects.OID, o *objects.Object, err error) error {
			held = held || got == oid
			objs = append(objs, o)
			return err
		})
		if err != nil {
			return err
		}
		if !held {
			continue
		}
		if err := r.Loose().PutBatch(ctx, objs); err != nil {
			return err
		}
		for _, ext := range []string{".pack", ".idx"} {
			if err := os.Remove(filepath.Join(ps.Dir(), name+ext)); err != nil {
				return err
			}
		}
	}
	if ok, err := r.Loose().Has(ctx, oid); err != nil || !ok {
		return errors.Join(err, objects.NotFound(oid))
	}
	return nil
}
