package remotes

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/refs"
	"github.com/tinehq/tine/remote"
)

// Connection is an open remote: its configuration (Name is empty for a
// bare URL) and its transport.
type Connection struct {
	Remote
	remote.Transport
	// Description is what Describe reported.
	Description *remote.Description
}

// Env is what opening a remote needs from the process: environment
// variables (tokens), and the policy guard the file transport applies to
// promotions on the destination.
type Env struct {
	Getenv func(string) string
	Guard  remote.RefGuard
}

// Connect opens the remote called nameOrURL (a configured name, else a
// URL or path) and checks that its object format is r's: a mismatch is
// refused before anything moves.
func Connect(ctx context.Context, r *plumbing.Repo, nameOrURL string, env Env) (*Connection, error) {
	rm, err := Get(r, nameOrURL)
	if errors.Is(err, ErrNoRemote) && (strings.Contains(nameOrURL, "/") || strings.Contains(nameOrURL, ":")) {
		rm, err = Remote{URL: nameOrURL}, nil
	}
	if err != nil {
		return nil, err
	}
	c, err := open(ctx, rm, env, r.Algo())
	if err != nil {
		return nil, err
	}
	if c.Description.Exists && c.Description.ObjectFormat != r.Algo() {
		c.Close()
		return nil, fmt.Errorf("remote %s uses %s objects and this repository %s: %w; nothing was transferred",
			c.label(), c.Description.ObjectFormat, r.Algo(), remote.ErrObjectFormat)
	}
	return c, nil
}

// open opens rm's transport and describes it.
func open(ctx context.Context, rm Remote, env Env, algo objects.Algo) (*Connection, error) {
	opt := remote.Options{Endpoint: rm.Endpoint, Guard: env.Guard, ObjectFormat: algo}
	if rm.TokenEnv != "" {
		if env.Getenv == nil || env.Getenv(rm.TokenEnv) == "" {
			return nil, fmt.Errorf("remote %s needs a token in the environment variable %s, which is empty", rm.label(), rm.TokenEnv)
		}
		opt.Token = env.Getenv(rm.TokenEnv)
	}
	tr, err := remote.Open(ctx, rm.URL, opt)
	if err != nil {
		return nil, err
	}
	d, err := tr.Describe(ctx)
	if err != nil {
		tr.Close()
		return nil, fmt.Errorf("remote %s: %w", rm.label(), err)
	}
	return &Connection{Remote: rm, Transport: tr, Description: d}, nil
}

// label names a remote in messages: its name, else its URL.
func (rm Remote) label() string {
	if rm.Name != "" {
		return rm.Name
	}
	return rm.URL
}

// TrackingRef returns the remote-tracking ref of a remote ref, OpenTine's
// rule: remotes/<remote>/<ref without a leading heads/> (heads/main →
// remotes/origin/main, tags/v1 → remotes/origin/tags/v1).
func TrackingRef(remoteName, ref string) string {
	ref = strings.TrimPrefix(ref, "refs/")
	return "remotes/" + remoteName + "/" + strings.TrimPrefix(ref, "heads/")
}

// LocalRef resolves a ref a user names on the command line: a full name
// ("heads/main", "experiments/a/b", "refs/tags/v1"), or a bare name that
// means heads/<name>.
func LocalRef(name string) (string, error) {
	full := strings.TrimPrefix(name, "refs/")
	if ns, _, ok := strings.Cut(full, "/"); !ok || !refs.Namespace(ns).Valid() {
		full = "heads/" + full
	}
	norm, err := refs.NormalizeName(full)
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(norm, "remotes/") {
		return "", fmt.Errorf("%s is a remote-tracking ref; name the ref it tracks: %w", norm, plumbing.ErrBadInput)
	}
	return norm, nil
}

// readRef returns a local ref's value, zero when absent.
func readRef(ctx context.Context, r *plumbing.Repo, name string) (objects.OID, error) {
	id, err := r.Refs().Read(ctx, name)
	if errors.Is(err, refs.ErrNotFound) {
		return objects.OID{}, nil
	}
	return id, err
}

// deleteTracking deletes every refs/remotes/<name>/... ref.
func deleteTracking(r *plumbing.Repo, name string) ([]string, error) {
	ctx := context.Background()
	var names []string
	var vals []objects.OID
	err := r.Refs().List(ctx, "remotes/"+name+"/", func(n string, id objects.OID) error {
		names = append(names, n)
		vals = append(vals, id)
		return nil
	})
	if err != nil || len(names) == 0 {
		return nil, err
	}
	tx := r.Refs().NewTransaction("tine remote remove " + name)
	for i, n := range names {
		tx.Delete(n, refs.ExpectValue(vals[i]))
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("delete tracking refs of %s: %w", name, err)
	}
	return names, nil
}
