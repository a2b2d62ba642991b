package s3remote

import (
	"context"
	"fmt"
	"slices"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/remote"
)

// installBatch is how many objects one Sink.Install receives, the size
// of a TINEPACK3 frame, so a fetch over S3 holds no more objects in memory
// at once than one over HTTP.
const installBatch = objects.MaxPackObjects

// installBatches hands set's objects to sink in order, installBatch at a
// time; each batch carries the boundary oids its own objects link to.
func installBatches(ctx context.Context, set *plumbing.TransferSet, g objects.Getter, sink remote.Sink) (int, error) {
	bound := make(map[objects.OID]bool, len(set.Boundary))
	for _, id := range set.Boundary {
		bound[id] = true
	}
	n := 0
	for start := 0; start < len(set.IDs); start += installBatch {
		ids := set.IDs[start:min(start+installBatch, len(set.IDs))]
		objs := make([]*objects.Object, 0, len(ids))
		var edge []objects.OID
		seen := map[objects.OID]bool{}
		for _, id := range ids {
			o, err := set.Object(ctx, g, id)
			if err != nil {
				return n, fmt.Errorf("fetch: %w", err)
			}
			links, err := objects.Links(o)
			if err != nil {
				return n, fmt.Errorf("fetch: %w", err)
			}
			for _, l := range links {
				if bound[l] && !seen[l] {
					seen[l] = true
					edge = append(edge, l)
				}
			}
			objs = append(objs, o)
		}
		slices.SortFunc(edge, objects.OID.Compare)
		if err := sink.Install(ctx, objs, edge); err != nil {
			return n, fmt.Errorf("fetch: %w", err)
		}
		n += len(objs)
	}
	return n, nil
}
