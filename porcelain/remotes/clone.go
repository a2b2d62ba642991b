package remotes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
	"github.com/tinehq/tine/remote"
)

// CloneOptions configures Clone.
type CloneOptions struct {
	// URL is the remote; Dir the work directory to create (DIR/.tine;
	// default: the URL's last path element).
	URL, Dir string
	// TokenEnv is stored with the origin remote (HTTP tokens).
	TokenEnv string
	// Endpoint is the S3 endpoint URL, stored with the origin remote.
	Endpoint string
	// Depth limits the fetch (remote.NoDepth: everything).
	Depth int
	// Ref, when set, fetches only that ref and creates it locally.
	Ref string
	Env
}

// CloneResult is the receipt of a clone.
type CloneResult struct {
	// Dir is the repository created (DIR/.tine).
	Dir          string       `json:"dir"`
	ObjectFormat string       `json:"object_format"`
	Fetch        *FetchResult `json:"fetch"`
	// Refs are the local refs created.
	Refs []RefMove `json:"refs"`
	// Current is the run the clone's verbs act on when given no ref.
	Current CloneCurrent `json:"current"`
}

// Clone creates a repository of the remote's object format in a new (or
// empty) directory, configures the remote as origin, fetches its refs (or
// opt.Ref) and creates the local heads/* refs (and opt.Ref, or else the
// remote's own current run when it names one) at the fetched values; the
// other refs stay as tracking refs remotes/origin/... The current run is
// then chosen as CloneCurrent.Ref says.
// If anything fails, the directory is removed again.
func Clone(ctx context.Context, opt CloneOptions) (res *CloneResult, err error) {
	rm := Remote{Name: DefaultRemote, URL: opt.URL, TokenEnv: opt.TokenEnv, Endpoint: opt.Endpoint}
	probe, err := open(ctx, rm, opt.Env, "")
	if err != nil {
		return nil, err
	}
	algo, exists := probe.Description.ObjectFormat, probe.Description.Exists
	var want remoteCurrent
	if opt.Ref == "" {
		want = readRemoteCurrent(ctx, probe.Transport)
	}
	probe.Close()
	if !exists {
		return nil, fmt.Errorf("clone: remote %s is empty: nothing to clone: %w", opt.URL, remote.ErrNotFound)
	}
	dir := opt.Dir
	if dir == "" {
		dir = defaultDir(opt.URL)
	}
	cleanup, err := claimDir(dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			cleanup()
		}
	}()
	r, ini, err := plumbing.Init(dir, algo)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if rm, err = Add(r, rm); err != nil {
		return nil, err
	}
	res = &CloneResult{Dir: ini.Path, ObjectFormat: string(algo), Refs: []RefMove{}}
	fopt := FetchOptions{Remote: DefaultRemote, Depth: opt.Depth, Env: opt.Env}
	if opt.Ref != "" {
		fopt.Refs = []string{opt.Ref}
	}
	if res.Fetch, err = Fetch(ctx, r, fopt); err != nil {
		return nil, err
	}
	tx := r.Refs().NewTransaction("tine clone " + opt.URL)
	for _, mv := range res.Fetch.Refs {
		if mv.Local == "" || mv.Status == "skipped" || (opt.Ref == "" && !strings.HasPrefix(mv.Ref, "heads/") && mv.Ref != want.Ref) {
			continue
		}
		id, err := readRef(ctx, r, mv.Local)
		if err != nil {
			return nil, err
		}
		if !createsLocal(opt, want, mv, id) {
			continue
		}
		tx.Update(mv.Ref, id, refs.ExpectAbsent)
		res.Refs = append(res.Refs, RefMove{Ref: mv.Ref, Local: mv.Ref, New: id.String(), Status: "created"})
	}
	if len(res.Refs) > 0 {
		if err := tx.Commit(ctx); err != nil {
			return nil, fmt.Errorf("clone: create local refs: %w", err)
		}
	}
	if res.Current, err = setCloneCurrent(ctx, r, opt, want, res.Fetch.Refs, res.Refs); err != nil {
		return nil, fmt.Errorf("clone: current run: %w", err)
	}
	_, _ = plumbing.OpenIndex(r).Update(ctx)
	return res, nil
}

// defaultDir is the last element of a URL's path (without .tine), as git
// names a clone.
func defaultDir(rawURL string) string {
	p := rawURL
	if u, err := remote.ParseURL(rawURL); err == nil {
		p = u.Path
		if p == "" || p == "/" {
			p = u.Host
		}
	}
	p = strings.TrimSuffix(strings.TrimRight(p, "/"), "/"+plumbing.DirName)
	base := path.Base(p)
	if base == "." || base == "/" || base == "" {
		return "clone"
	}
	return base
}

// claimDir checks dir is absent or an empty directory and returns how to
// undo what the clone creates there.
func claimDir(dir string) (func(), error) {
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return func() { os.RemoveAll(dir) }, nil
	case err != nil:
		return nil, fmt.Errorf("clone: %w", err)
	case len(ents) > 0:
		return nil, fmt.Errorf("clone: %s exists and is not empty: %w", dir, plumbing.ErrBadInput)
	}
	return func() { os.RemoveAll(filepath.Join(dir, plumbing.DirName)) }, nil
}
