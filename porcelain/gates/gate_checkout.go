package gates

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tinehq/tine/gate"
)

// maxGitFile bounds the git metadata files read for the checkout identity.
const maxGitFile = 1 << 20

// GateCheckout returns the checkout identity of the project at root (SPEC §2
// checkout identity). git is optional and never executed: when root or an
// ancestor holds .git, its files are read directly (a .git file naming a
// worktree's gitdir, HEAD, the loose ref or packed-refs, commondir), giving
// worktree root, git dir, branch (a symbolic HEAD) and head (the commit;
// empty on an unborn branch). Without .git only ProjectRoot is set, so the
// identity is the project's absolute path. Anything unexpected in the git
// files is an error: evidence must not be keyed by a guessed checkout.
func GateCheckout(root string) (gate.Checkout, error) {
	abs, err := absRoot(root)
	if err != nil {
		return gate.Checkout{}, err
	}
	co := gate.Checkout{ProjectRoot: filepath.ToSlash(abs)}
	wt, dotgit := findDotGit(abs)
	if dotgit == "" {
		return co, nil
	}
	gitDir, err := resolveGitDir(dotgit)
	if err != nil {
		return gate.Checkout{}, fmt.Errorf("inspect git checkout %s: %w", dotgit, err)
	}
	co.WorktreeRoot, co.GitDir = filepath.ToSlash(wt), filepath.ToSlash(gitDir)
	head, err := readBounded(filepath.Join(gitDir, "HEAD"), maxGitFile)
	if err != nil {
		return gate.Checkout{}, fmt.Errorf("inspect git checkout %s: %w", gitDir, err)
	}
	h := strings.TrimSpace(string(head))
	if ref, ok := strings.CutPrefix(h, "ref: "); ok {
		co.Branch = strings.TrimSpace(ref)
		if co.Head, err = resolveGitRef(gitDir, co.Branch); err != nil {
			return gate.Checkout{}, fmt.Errorf("inspect git checkout %s: %w", gitDir, err)
		}
		return co, nil
	}
	if !isGitOID(h) {
		return gate.Checkout{}, fmt.Errorf("inspect git checkout %s: HEAD is neither a ref nor a commit", gitDir)
	}
	co.Head = h
	return co, nil
}

// findDotGit walks up from dir to the nearest .git; it returns the
// worktree root and the .git path, or "" when there is none.
func findDotGit(dir string) (string, string) {
	for {
		p := filepath.Join(dir, ".git")
		if _, err := os.Lstat(p); err == nil {
			return dir, p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", ""
		}
		dir = parent
	}
}

// resolveGitDir follows a .git file ("gitdir: PATH") to the git directory.
func resolveGitDir(dotgit string) (string, error) {
	fi, err := os.Stat(dotgit)
	if err != nil {
		return "", err
	}
	if fi.IsDir() {
		return dotgit, nil
	}
	b, err := readBounded(dotgit, maxGitFile)
	if err != nil {
		return "", err
	}
	p, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok || p == "" {
		return "", errors.New(".git is a file without a gitdir line")
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(dotgit), p)
	}
	return filepath.Clean(p), nil
}

// resolveGitRef returns the commit a ref names: the loose ref file in the
// git dir or its common dir, else packed-refs; "" when the ref does not
// exist (an unborn branch).
func resolveGitRef(gitDir, ref string) (string, error) {
	if !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") {
		return "", fmt.Errorf("HEAD names %q, not a ref under refs/", ref)
	}
	dirs := []string{gitDir}
	if b, err := readBounded(filepath.Join(gitDir, "commondir"), maxGitFile); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		dirs = append(dirs, filepath.Clean(c))
	}
	for _, d := range dirs {
		b, err := readBounded(filepath.Join(d, filepath.FromSlash(ref)), maxGitFile)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		s := strings.TrimSpace(string(b))
		if !isGitOID(s) {
			return "", fmt.Errorf("ref %s holds no commit id", ref)
		}
		return s, nil
	}
	for _, d := range dirs {
		id, err := packedRef(filepath.Join(d, "packed-refs"), ref)
		if err != nil || id != "" {
			return id, err
		}
	}
	return "", nil
}

// packedRef looks ref up in a packed-refs file ("" when absent).
func packedRef(path, ref string) (string, error) {
	b, err := readBounded(path, 64<<20)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || line[0] == '^' {
			continue
		}
		id, name, ok := strings.Cut(line, " ")
		if ok && name == ref {
			if !isGitOID(id) {
				return "", fmt.Errorf("packed-refs: %s holds no commit id", ref)
			}
			return id, nil
		}
	}
	return "", sc.Err()
}

// isGitOID accepts a SHA-1 or SHA-256 hex commit id.
func isGitOID(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
