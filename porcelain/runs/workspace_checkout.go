package runs

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/tinehq/tine/objects"
)

// A checkout of a recorded code state, for tine replay --rerun
// --in-recorded-checkout: a clone of the source repository sharing its
// objects (git clone --shared --no-checkout, so the user's repository is
// never written to), its HEAD set to the recorded commit by writing the
// clone's HEAD file (the commit never reaches git's argv), the files
// checked out (git reset --hard HEAD) and the recorded dirty patch applied
// from standard input (git apply). Untracked files were listed, not stored,
// so the checkout lacks them.

// Errors of a recorded checkout.
var (
	// ErrNoWorkspace means a recorded command carries no code state.
	ErrNoWorkspace = errors.New("no code state was recorded with the command")
	// ErrBadWorkspace means a workspace manifest blob was refused.
	ErrBadWorkspace = errors.New("bad workspace manifest")
	// ErrCommitMissing means the recorded commit is not in the source
	// repository.
	ErrCommitMissing = errors.New("commit not in the git repository")
)

// maxWorkspaceBlob bounds a workspace manifest blob read for a checkout:
// the patch bound plus room for the listing and JSON escapes.
const maxWorkspaceBlob = 4*MaxWorkspacePatch + 4*maxUntrackedOutput

// gitOID is a full SHA-1 or SHA-256 commit id in lower-case hex, compiled
// on first use: the compiled pattern is ~30 KiB, which every process paid
// at start (issue 13, process start) though only a checkout needs it.
var gitOID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`) })

// workspaceManifest is a parsed manifest blob, the fields a checkout needs.
type workspaceManifest struct {
	commit, prefix, patch, omitted string
	redacted                       bool
	untracked                      int
}

// parseWorkspace decodes and checks a manifest blob.
func parseWorkspace(o *objects.Object) (*workspaceManifest, error) {
	if len(o.Body) > maxWorkspaceBlob {
		return nil, fmt.Errorf("%w: %s is %d bytes, over %d", ErrBadWorkspace, o.ID, len(o.Body), maxWorkspaceBlob)
	}
	v, err := objects.ParseJSON(o.Body, objects.ParseOptions{})
	if err != nil || v.Kind != objects.KindObject {
		return nil, fmt.Errorf("%w: %s is not a JSON object", ErrBadWorkspace, o.ID)
	}
	str := func(k string) string {
		if s, ok := v.Get(k); ok && s.Kind == objects.KindString {
			return s.Str
		}
		return ""
	}
	if f := str("format"); f != WorkspaceFormat || str("vcs") != "git" {
		return nil, fmt.Errorf("%w: %s has format %q, not %s", ErrBadWorkspace, o.ID, f, WorkspaceFormat)
	}
	m := &workspaceManifest{commit: str("commit"), prefix: str("prefix"), patch: str("patch"), omitted: str("patch_omitted")}
	if b, ok := v.Get("patch_redacted"); ok && b.Kind == objects.KindBool {
		m.redacted = b.Bool
	}
	if n, ok := v.Get("untracked_count"); ok && n.Kind == objects.KindInt {
		m.untracked = int(n.Int)
	}
	if !gitOID().MatchString(m.commit) {
		return nil, fmt.Errorf("%w: %s: commit %q is not a full git commit id", ErrBadWorkspace, o.ID, clipText(m.commit, 80))
	}
	if m.prefix != "" && !filepath.IsLocal(filepath.FromSlash(m.prefix)) {
		return nil, fmt.Errorf("%w: %s: working directory %q leaves the work tree", ErrBadWorkspace, o.ID, clipText(m.prefix, 80))
	}
	return m, nil
}

// checkout is a temporary checkout of one recorded code state.
type checkout struct {
	manifest objects.OID
	root     string // the temporary directory, removed by remove
	dir      string // where the command runs: the work tree plus prefix
	note     string // what the checkout lacks (untracked files)
}

// remove deletes the checkout.
func (c *checkout) remove() error {
	if c == nil || c.root == "" {
		return nil
	}
	return os.RemoveAll(c.root)
}

// makeCheckout makes a checkout of manifest m (blob id) from the git
// repository holding source, under parent ("" is the system's temporary
// directory). On error nothing is left behind.
func makeCheckout(ctx context.Context, id objects.OID, m *workspaceManifest, source, parent string, timeout time.Duration) (_ *checkout, err error) {
	if m.omitted != "" {
		return nil, fmt.Errorf("the dirty patch of %s was not stored (%s), so its state cannot be checked out", id, m.omitted)
	}
	src, err := newGitRunner(source, nil, timeout, true)
	if err != nil {
		return nil, err
	}
	out, err := src.run(ctx, nil, maxGitLine, "rev-parse", "--show-toplevel")
	if err != nil {
		where := source
		if where == "" {
			where = "the current directory"
		}
		return nil, fmt.Errorf("the recorded state needs the git repository holding commit %s: %s is not in a git work tree (%w)", m.commit, where, err)
	}
	top := strings.TrimSpace(string(out))
	src.dir = top
	out, err = src.run(ctx, []byte(m.commit+"^{commit}\n"), maxGitLine, "cat-file", "--batch-check")
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(strings.TrimSpace(string(out)), "missing") {
		return nil, fmt.Errorf("%w: %s is not in %s; fetch it there, or replay inside the repository the run was recorded in", ErrCommitMissing, m.commit, top)
	}
	root, err := os.MkdirTemp(parent, "tine-checkout-")
	if err != nil {
		return nil, fmt.Errorf("creating a checkout directory: %w", err)
	}
	c := &checkout{manifest: id, root: root}
	defer func() {
		if err != nil {
			_ = c.remove()
		}
	}()
	work := filepath.Join(root, "work")
	g, err := newGitRunner(root, nil, timeout, false)
	if err != nil {
		return nil, err
	}
	if _, err := g.run(ctx, nil, maxGitLine, "clone", "--quiet", "--shared", "--no-checkout", "--", top, work); err != nil {
		return nil, err
	}
	// A detached HEAD is the commit's hex on one line; written here, the
	// recorded commit never becomes an argument.
	if err := os.WriteFile(filepath.Join(work, ".git", "HEAD"), []byte(m.commit+"\n"), 0o644); err != nil {
		return nil, err
	}
	g.dir = work
	if _, err := g.run(ctx, nil, maxGitLine, "reset", "--quiet", "--hard", "HEAD"); err != nil {
		return nil, err
	}
	if m.patch != "" {
		if _, err := g.run(ctx, []byte(m.patch), maxGitLine, "apply", "--binary", "--whitespace=nowarn"); err != nil {
			if m.redacted {
				return nil, fmt.Errorf("the recorded dirty patch of %s does not apply: redaction replaced secrets in it (%w)", id, err)
			}
			return nil, fmt.Errorf("the recorded dirty patch of %s does not apply (%w)", id, err)
		}
	}
	if c.dir, err = checkoutDir(work, m.prefix); err != nil {
		return nil, err
	}
	var notes []string
	if m.redacted {
		notes = append(notes, "the dirty patch was redacted before it was stored")
	}
	if m.untracked > 0 {
		notes = append(notes, fmt.Sprintf("%d untracked file(s) were listed, not stored: the checkout lacks them", m.untracked))
	}
	c.note = strings.Join(notes, "; ")
	return c, nil
}

// checkoutDir is the recorded working directory inside the checkout work,
// which must exist there and, symbolic links resolved, stay inside it.
func checkoutDir(work, prefix string) (string, error) {
	base, err := filepath.EvalSymlinks(work)
	if err != nil {
		return "", err
	}
	dir, err := filepath.EvalSymlinks(filepath.Join(base, filepath.FromSlash(prefix)))
	if err != nil {
		return "", fmt.Errorf("the recorded working directory %s is not in the checkout (it held no tracked file)", prefix)
	}
	if rel, err := filepath.Rel(base, dir); err != nil || !filepath.IsLocal(rel) && rel != "." {
		return "", fmt.Errorf("the recorded working directory %s leaves the checkout", prefix)
	}
	return dir, nil
}

// clipText shortens s for an error message.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}
