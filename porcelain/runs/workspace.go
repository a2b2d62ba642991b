package runs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tinehq/tine/objects"
)

// The code state of a recorded command (OpenTine's code manifest, SPEC
// §1.5.3 manifest slot "code"): the git work tree the command ran in, read
// before the command starts. It is stored as one blob, redacted before
// hashing like every recorded blob:
//
//	{"format":         "tine-workspace/1",
//	 "vcs":            "git",
//	 "commit":         "<HEAD commit hex, empty on an unborn branch>",
//	 "branch":         "<short branch name, empty when detached>",
//	 "prefix":         "<the working directory inside the work tree, sub/dir/ or empty>",
//	 "dirty":          <tracked files differ from the commit>,
//	 "patch":          "<git diff --binary HEAD: staged and unstaged changes>",
//	 "patch_bytes":    <size of the patch before redaction>,
//	 "patch_omitted":  "<why the patch is not stored>",   (only when it is not)
//	 "patch_redacted": <redaction changed the patch>,
//	 "untracked":      ["<path>", ...],                   (the first MaxUntrackedListed)
//	 "untracked_count": <untracked files seen>,
//	 "untracked_truncated": <the listing was over its bound>}
//
// Untracked files are listed, never stored. The patch is bounded by
// MaxWorkspacePatch and kept only when it is UTF-8 text (git's --binary
// hunks are ASCII); otherwise patch_omitted says why and a checkout of that
// state cannot be made.

// WorkspaceFormat is the format tag of a workspace manifest blob.
const WorkspaceFormat = "tine-workspace/1"

// Bounds of a workspace capture.
const (
	// MaxWorkspacePatch bounds the stored dirty patch.
	MaxWorkspacePatch = 1 << 20
	// MaxUntrackedListed bounds the untracked paths listed.
	MaxUntrackedListed = 1000
	// maxUntrackedOutput bounds git's status listing read (untracked files).
	maxUntrackedOutput = 1 << 20
	// maxGitLine bounds a one-line git answer (a commit, a branch, paths).
	maxGitLine = 64 << 10
)

// CaptureEnvVar names the environment variable that turns capture off when
// set to 0, off, false or no (--no-capture does the same).
const CaptureEnvVar = "TINE_CAPTURE"

// CaptureOff reports whether env ("NAME=value" entries; the last one of a
// name counts) turns the code state capture off through CaptureEnvVar.
func CaptureOff(env []string) bool {
	val := ""
	for _, kv := range env {
		if name, v, ok := strings.Cut(kv, "="); ok && name == CaptureEnvVar {
			val = v
		}
	}
	switch strings.ToLower(strings.TrimSpace(val)) {
	case "0", "off", "false", "no":
		return true
	}
	return false
}

// Workspace is the summary of a captured code state, as recorded in a tool
// event's attributes.workspace and reported by tine record --json.
type Workspace struct {
	Commit    string `json:"commit"`
	Branch    string `json:"branch,omitempty"`
	Dirty     bool   `json:"dirty"`
	Untracked int    `json:"untracked"`
	// Manifest is the oid of the manifest blob.
	Manifest string `json:"manifest"`
}

// WorkspaceCapture is a captured code state: the manifest blob and its
// summary. Skipped says why nothing was captured (no git work tree, git not
// installed, a git call failed); Blob is nil then.
type WorkspaceCapture struct {
	Blob    *objects.Object `json:"-"`
	Summary *Workspace      `json:"workspace,omitempty"`
	Skipped string          `json:"skipped,omitempty"`
}

// WorkspaceOptions configures CaptureWorkspace.
type WorkspaceOptions struct {
	// Env is git's environment (the command's); nil means the process's.
	Env []string
	// Redactor scrubs the patch and the manifest; nil scrubs as RedactBlob.
	Redactor *objects.Redactor
	// Timeout bounds each git call; 0 means DefaultGitTimeout.
	Timeout time.Duration
	// MaxPatch bounds the stored patch; 0 means MaxWorkspacePatch.
	MaxPatch int
}

// CaptureWorkspace reads the code state of the git work tree holding dir
// and returns it as a manifest blob of algorithm a. It never fails: a
// directory outside any work tree, a missing git or a failing git call
// gives a capture with Skipped set and no blob, so a command is recorded
// whatever state its directory is in.
func CaptureWorkspace(ctx context.Context, a objects.Algo, dir string, opt WorkspaceOptions) *WorkspaceCapture {
	v, err := readWorkspace(ctx, dir, opt)
	if err != nil {
		return &WorkspaceCapture{Skipped: oneLineError(err)}
	}
	red, _ := opt.Redactor.Value(v.value())
	body, err := objects.CanonV3(red)
	if err != nil {
		return &WorkspaceCapture{Skipped: oneLineError(err)}
	}
	blob := objects.NewBlob(a, append(body, '\n'))
	return &WorkspaceCapture{Blob: blob, Summary: &Workspace{
		Commit: v.commit, Branch: opt.Redactor.Text(v.branch), Dirty: v.dirty,
		Untracked: v.untrackedCount, Manifest: blob.ID.String(),
	}}
}

// workspaceState is what git said about a work tree.
type workspaceState struct {
	commit, branch, prefix string
	dirty                  bool
	patch                  string
	patchBytes             int
	patchOmitted           string
	patchRedacted          bool
	untracked              []string
	untrackedCount         int
	untrackedTruncated     bool
}

// readWorkspace asks git about dir's work tree.
func readWorkspace(ctx context.Context, dir string, opt WorkspaceOptions) (*workspaceState, error) {
	g, err := newGitRunner(dir, opt.Env, opt.Timeout, true)
	if err != nil {
		return nil, err
	}
	out, err := g.run(ctx, nil, maxGitLine, "rev-parse", "--show-toplevel", "--show-prefix")
	if err != nil {
		if exitCode(err) == 128 {
			return nil, fmt.Errorf("not a git work tree (%w)", err)
		}
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) < 1 || lines[0] == "" {
		return nil, fmt.Errorf("not a git work tree")
	}
	ws := &workspaceState{}
	if len(lines) > 1 {
		ws.prefix = lines[1]
	}
	g.dir = lines[0]
	tracked, err := ws.readStatus(ctx, g)
	if err != nil {
		return nil, err
	}
	if tracked {
		if err := ws.readPatch(ctx, g, opt); err != nil {
			return nil, err
		}
	} else if ws.commit == "" {
		ws.patchOmitted = "no commit yet"
	}
	return ws, nil
}

// readStatus reads, in one git call, the commit, the branch, the
// untracked files that are not ignored (the repository's own .tine
// directory left out) and whether any tracked file differs from the
// commit (git status --porcelain=v2 --branch). It reports that last.
func (ws *workspaceState) readStatus(ctx context.Context, g *gitRunner) (bool, error) {
	out, over, err := g.runPrefix(ctx, nil, maxUntrackedOutput,
		"status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all", "--ignore-submodules=none")
	if err != nil {
		return false, err
	}
	tracked := over // a listing cut short may have hidden a change: diff decides
	entries := bytes.Split(out, []byte{0})
	if over && len(entries) > 0 {
		entries = entries[:len(entries)-1] // the last entry may be cut
	}
	for i := 0; i < len(entries); i++ {
		e := string(entries[i])
		switch {
		case strings.HasPrefix(e, "# branch.oid "):
			if oid := strings.TrimPrefix(e, "# branch.oid "); oid != "(initial)" {
				ws.commit = oid
			}
		case strings.HasPrefix(e, "# branch.head "):
			if b := strings.TrimPrefix(e, "# branch.head "); b != "(detached)" {
				ws.branch = b
			}
		case strings.HasPrefix(e, "? "):
			ws.addUntracked(strings.TrimPrefix(e, "? "))
		case strings.HasPrefix(e, "2 "):
			tracked = true
			i++ // a rename or copy entry is followed by its original path
		case strings.HasPrefix(e, "1 "), strings.HasPrefix(e, "u "):
			tracked = true
		}
	}
	if over {
		ws.untrackedTruncated = true
	}
	return tracked, nil
}

// addUntracked counts and lists one untracked path, unless it lies in a
// .tine directory (a tine repository inside the work tree).
func (ws *workspaceState) addUntracked(p string) {
	if p == ".tine" || strings.HasPrefix(p, ".tine/") || strings.Contains(p, "/.tine/") {
		return
	}
	ws.untrackedCount++
	if len(ws.untracked) < MaxUntrackedListed {
		ws.untracked = append(ws.untracked, strings.ToValidUTF8(p, "\uFFFD"))
	} else {
		ws.untrackedTruncated = true
	}
}

// readPatch stores the staged and unstaged changes of tracked files as a
// patch git apply takes back, whatever the user's diff configuration.
func (ws *workspaceState) readPatch(ctx context.Context, g *gitRunner, opt WorkspaceOptions) error {
	if ws.commit == "" {
		ws.patchOmitted = "no commit yet"
		return nil
	}
	max := opt.MaxPatch
	if max <= 0 {
		max = MaxWorkspacePatch
	}
	out, err := g.run(ctx, nil, max, "-c", "core.quotePath=true", "diff", "--binary", "--no-color",
		"--no-ext-diff", "--no-textconv", "--no-relative", "--src-prefix=a/", "--dst-prefix=b/", "HEAD", "--")
	switch {
	case errors.Is(err, ErrGitOutputTooLarge):
		ws.dirty = true
		ws.patchOmitted = fmt.Sprintf("larger than %d bytes", max)
		return nil
	case err != nil:
		return err
	}
	ws.dirty, ws.patchBytes = len(out) > 0, len(out)
	if !utf8.Valid(out) {
		ws.patchOmitted = "not UTF-8 text"
		return nil
	}
	red := opt.Redactor.Blob(bytes.Clone(out))
	ws.patchRedacted = !bytes.Equal(red, out)
	ws.patch = string(red)
	return nil
}

// value is the manifest's JSON (see the top of this file).
func (ws *workspaceState) value() objects.Value {
	ms := []objects.Member{
		{Key: "format", Value: objects.String(WorkspaceFormat)},
		{Key: "vcs", Value: objects.String("git")},
		{Key: "commit", Value: objects.String(ws.commit)},
		{Key: "branch", Value: objects.String(strings.ToValidUTF8(ws.branch, "\uFFFD"))},
		{Key: "prefix", Value: objects.String(strings.ToValidUTF8(ws.prefix, "\uFFFD"))},
		{Key: "dirty", Value: objects.Bool(ws.dirty)},
		{Key: "patch", Value: objects.String(ws.patch)},
		{Key: "patch_bytes", Value: objects.Int(int64(ws.patchBytes))},
		{Key: "patch_redacted", Value: objects.Bool(ws.patchRedacted)},
		{Key: "untracked", Value: StringsValue(ws.untracked)},
		{Key: "untracked_count", Value: objects.Int(int64(ws.untrackedCount))},
		{Key: "untracked_truncated", Value: objects.Bool(ws.untrackedTruncated)},
	}
	if ws.patchOmitted != "" {
		ms = append(ms, objects.Member{Key: "patch_omitted", Value: objects.String(ws.patchOmitted)})
	}
	return objects.ObjectValue(ms...)
}

// Value is the summary as recorded in an event's attributes.workspace.
func (w *Workspace) Value() objects.Value {
	ms := []objects.Member{
		{Key: "commit", Value: objects.String(w.Commit)},
		{Key: "dirty", Value: objects.Bool(w.Dirty)},
		{Key: "untracked", Value: objects.Int(int64(w.Untracked))},
		{Key: "manifest", Value: objects.String(w.Manifest)},
	}
	if w.Branch != "" {
		ms = append(ms, objects.Member{Key: "branch", Value: objects.String(w.Branch)})
	}
	return objects.ObjectValue(ms...)
}

// oneLineError is err's message on one line.
func oneLineError(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
