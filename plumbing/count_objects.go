package plumbing

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/objects"
)

// CountObjectsOptions configures CountObjects (no options yet; the struct
// keeps the verb's signature stable as options are added).
type CountObjectsOptions struct{}

// TypeCount is the number and on-disk size of the loose objects of a type.
type TypeCount struct {
	Count int   `json:"count"`
	Size  int64 `json:"size"`
}

// CountObjectsResult is what `tine count-objects` reports. Sizes are file
// sizes in bytes (envelope header, LF and body). Temp counts stray
// temporary files left by interrupted writers.
type CountObjectsResult struct {
	Count  int                        `json:"count"`
	Size   int64                      `json:"size"`
	ByType map[objects.Type]TypeCount `json:"by_type"`
	Temp   int                        `json:"temp_files"`
}

// CountObjects counts the loose objects by type without reading them (like
// git count-objects, it does not verify content; fsck does).
func CountObjects(ctx context.Context, r *Repo, _ CountObjectsOptions) (*CountObjectsResult, error) {
	res := &CountObjectsResult{ByType: map[objects.Type]TypeCount{}}
	for _, t := range objects.Types {
		res.ByType[t] = TypeCount{}
	}
	err := walkLoose(ctx, r, true, func(f looseFile) error {
		c := res.ByType[f.ID.Type]
		c.Count++
		c.Size += f.Size
		res.ByType[f.ID.Type] = c
		res.Count++
		res.Size += f.Size
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
	return res, nil
}
