package plumbing

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tinehq/tine/objects"
)

// CountObjectsOptions configures CountObjects (no options yet; the struct
// keeps the verb's signature stable as options are added).
type CountObjectsOptions struct{}

// TypeCount is the number of objects of a type and their size in bytes:
// for loose objects their files' sizes, for packed ones their envelopes'
// lengths (what a loose copy holds; the packs' size on disk is PackSize).
type TypeCount struct {
	Count int   `json:"count"`
	Size  int64 `json:"size"`
}

// CountObjectsResult is what `tine count-objects` reports (git
// count-objects -v's figures). Count, Size and ByType are the loose
// objects, sizes being file sizes in bytes (envelope header, LF and body).
// Temp counts stray temporary files left by interrupted writers.
type CountObjectsResult struct {
	Count  int                        `json:"count"`
	Size   int64                      `json:"size"`
	ByType map[objects.Type]TypeCount `json:"by_type"`
	Temp   int                        `json:"temp_files"`
	// Packs counts the storage packs (objects/pack/) and PackSize their
	// pack and index bytes; InPack counts the distinct objects they hold
	// and InPackByType counts them by type, with their envelope bytes.
	Packs        int                        `json:"packs"`
	PackSize     int64                      `json:"size_pack"`
	InPack       int                        `json:"in_pack"`
	InPackByType map[objects.Type]TypeCount `json:"in_pack_by_type"`
	// Garbage counts what in objects/pack/ is not a readable pack (packs
	// without an index, which gc keeps and tine index-pack makes readable,
	// temp files, gc scratch directories) and GarbageSize their bytes.
	Garbage     int   `json:"garbage"`
	GarbageSize int64 `json:"size_garbage"`
	// Total counts the distinct objects stored, loose or packed (an
	// object with both copies counts once).
	Total int `json:"total"`
	// StoragePacks reports whether tine may keep objects only in storage
	// packs here (Repo.StoragePacks). When it is false, Total - Count
	// objects have no loose copy, which OpenTine cannot read and the next
	// tine gc writes back out.
	StoragePacks bool `json:"storage_packs"`
}

// CountObjects counts the loose objects by type, the storage packs and
// their objects by type, and pack leftovers, without reading any object
// (like git count-objects, it does not verify content; fsck does): packed
// objects are counted from the pack indexes, which hold each object's type
// and envelope length.
func CountObjects(ctx context.Context, r *Repo, _ CountObjectsOptions) (*CountObjectsResult, error) {
	res := &CountObjectsResult{
		ByType:       map[objects.Type]TypeCount{},
		InPackByType: map[objects.Type]TypeCount{},
		StoragePacks: r.StoragePacks(),
	}
	for _, t := range objects.Types {
		res.ByType[t] = TypeCount{}
		res.InPackByType[t] = TypeCount{}
	}
	looseOnly := 0 // loose objects no pack holds
	err := walkLoose(ctx, r, true, func(f looseFile) error {
		c := res.ByType[f.ID.Type]
		c.Count++
		c.Size += f.Size
		res.ByType[f.ID.Type] = c
		res.Count++
		res.Size += f.Size
		if r.packs != nil {
			packed, err := r.packs.Has(ctx, f.ID)
			if err != nil || packed {
				return err
			}
		}
		looseOnly++
		return nil
	}, func(s strayFile) error {
		if s.Temp {
			res.Temp++
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("count-objects: %w", err)
	}
	if err := countPacks(ctx, r, res); err != nil {
		return nil, fmt.Errorf("count-objects: %w", err)
	}
	res.Total = looseOnly + res.InPack
	return res, nil
}

// countPacks fills the pack figures of res.
func countPacks(ctx context.Context, r *Repo, res *CountObjectsResult) error {
	ents, indexed, err := readStoragePackDir(r.root)
	if err != nil {
		return err
	}
	if ents == nil {
		return nil
	}
	for _, e := range ents {
		name := e.Name()
		fi, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		base, isPack := strings.CutSuffix(name, ".pack")
		idxBase, isIdx := strings.CutSuffix(name, ".idx")
		switch {
		case strings.HasPrefix(name, ".tmp-") || isPack && !indexed[base]:
			res.Garbage++
			res.GarbageSize += fi.Size()
		case isPack:
			res.Packs++
			res.PackSize += fi.Size()
		case isIdx && indexed[idxBase]:
			res.PackSize += fi.Size()
		}
	}
	if r.packs == nil {
		return nil
	}
	// Tallied by position in objects.Types: a map update per object was
	// most of the cost at 100k objects.
	counts := make([]TypeCount, len(objects.Types))
	err = r.packs.ListSizes(ctx, func(id objects.OID, size int64) error {
		i := slices.Index(objects.Types, id.Type)
		if i < 0 {
			return fmt.Errorf("storage pack lists %s of unknown type", id)
		}
		counts[i].Count++
		counts[i].Size += size
		res.InPack++
		return nil
	})
	for i, t := range objects.Types {
		res.InPackByType[t] = counts[i]
	}
	return err
}
