package gate

import (
	"fmt"

	"github.com/tinehq/tine/objects"
)

// Checkout identifies the working copy evidence was produced in (SPEC §2
// checkout identity): a new HEAD, another branch or another worktree
// changes every input digest. Empty fields are absent (null): a non-git
// project sets only ProjectRoot; a detached HEAD has no Branch; an unborn
// branch has no Head. The persistence layer fills it (from git, or from
// tine's own repository state); gate only frames it.
type Checkout struct {
	ProjectRoot  string
	WorktreeRoot string
	GitDir       string
	Branch       string
	Head         string
}

// Snapshot returns the canonical JSON object {branch, git_dir, head,
// project_root, worktree_root}, the checkout's framed identity.
func (c Checkout) Snapshot() ([]byte, error) {
	v := objects.ObjectValue(mem("branch", optText(c.Branch)), mem("git_dir", optText(c.GitDir)),
		mem("head", optText(c.Head)), mem("project_root", optText(c.ProjectRoot)),
		mem("worktree_root", optText(c.WorktreeRoot)))
	b, err := objects.CanonV3(v)
	if err != nil {
		return nil, fmt.Errorf("%w: checkout identity: %w", ErrDigestInput, err)
	}
	return b, nil
}
