package remotes

import (
	"context"

	"github.com/tinehq/tine/plumbing"
)

// ShowRef is one remote ref and what this repository last fetched of it.
type ShowRef struct {
	Ref string `json:"ref"`
	ID  string `json:"id"`
	// Tracking is its tracking ref and TrackingID that ref's value ("" when
	// never fetched); State is up-to-date, changed (the remote moved
	// since) or not-fetched.
	Tracking   string `json:"tracking,omitempty"`
	TrackingID string `json:"tracking_id,omitempty"`
	State      string `json:"state"`
}

// ShowResult is what `tine remote show` reports.
type ShowResult struct {
	Remote
	// TokenSet says whether TokenEnv holds a value now (never the value).
	TokenSet     bool      `json:"token_set"`
	ObjectFormat string    `json:"object_format,omitempty"`
	Protocol     string    `json:"protocol"`
	Exists       bool      `json:"exists"`
	Refs         []ShowRef `json:"refs"`
}

// Show connects to a configured remote and lists its refs beside their
// tracking refs.
func Show(ctx context.Context, r *plumbing.Repo, name string, env Env) (*ShowResult, error) {
	rm, err := Get(r, name)
	if err != nil {
		return nil, err
	}
	res := &ShowResult{Remote: rm, Refs: []ShowRef{}}
	res.TokenSet = rm.TokenEnv != "" && env.Getenv != nil && env.Getenv(rm.TokenEnv) != ""
	c, err := Connect(ctx, r, name, env)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	res.ObjectFormat, res.Protocol, res.Exists = string(c.Description.ObjectFormat), c.Description.Protocol, c.Description.Exists
	if !res.Exists {
		return res, nil
	}
	listed, err := c.ListRefs(ctx)
	if err != nil {
		return nil, err
	}
	for _, ref := range listed {
		sr := ShowRef{Ref: ref.Name, ID: ref.ID.String(), State: "not-fetched"}
		if !isTracked(ref.Name) {
			sr.State = "not-tracked"
			res.Refs = append(res.Refs, sr)
			continue
		}
		sr.Tracking = TrackingRef(name, ref.Name)
		cur, err := readRef(ctx, r, sr.Tracking)
		if err != nil {
			return nil, err
		}
		switch {
		case cur == ref.ID:
			sr.TrackingID, sr.State = cur.String(), "up-to-date"
		case !cur.IsZero():
			sr.TrackingID, sr.State = cur.String(), "changed"
		}
		res.Refs = append(res.Refs, sr)
	}
	return res, nil
}

// isTracked reports whether a fetch files a remote ref under a tracking
// ref (annotation refs move themselves; remotes/* are the remote's own).
func isTracked(name string) bool {
	return !hasPrefix(name, "annotations/") && !hasPrefix(name, "remotes/")
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }
