package remotes

import (
	"context"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// CloneCurrent says which run record, import, log and show act on in a new
// clone when given no ref.
type CloneCurrent struct {
	// Ref is the cloned --ref, made current as `tine switch REF` does;
	// without --ref (OpenTine's remote protocol names no default run,
	// unlike git's HEAD) it is heads/main, the default of a repository
	// with no current run.
	Ref string `json:"ref"`
	// Switched reports that Ref was written as the current run (--ref).
	Switched bool `json:"switched"`
	// Cloned reports that Ref exists in the clone.
	Cloned bool `json:"cloned"`
}

// setCloneCurrent makes the cloned opt.Ref current when it names a run
// (git clone --branch checks the branch out) and reports what is current.
func setCloneCurrent(ctx context.Context, r *plumbing.Repo, opt CloneOptions, created []RefMove) (CloneCurrent, error) {
	cur := CloneCurrent{Ref: runs.DefaultRef}
	if opt.Ref != "" && len(created) == 1 {
		id, err := objects.ParseOIDFor(r.Algo(), created[0].New)
		if err != nil {
			return cur, err
		}
		if id.Type == objects.TypeRun {
			res, err := runs.Switch(ctx, r, runs.SwitchOptions{Ref: created[0].Ref})
			if err != nil {
				return cur, err
			}
			return CloneCurrent{Ref: res.Ref, Switched: true, Cloned: true}, nil
		}
	}
	for _, mv := range created {
		if mv.Ref == cur.Ref {
			cur.Cloned = true
		}
	}
	return cur, nil
}
