package runs

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// gitEnv is an environment for git in tests: no user or system config, a
// fixed identity.
func gitEnv(t *testing.T) []string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
	}
}

// gitRepo makes a work tree with one commit of files.
func gitRepo(t *testing.T, env []string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."}, {"commit", "-q", "-m", "one"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// manifestOf parses a capture's blob.
func manifestOf(t *testing.T, c *WorkspaceCapture) objects.Value {
	t.Helper()
	if c.Blob == nil {
		t.Fatalf("nothing captured: %s", c.Skipped)
	}
	v, err := objects.ParseJSON(c.Blob.Body, objects.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// field returns a manifest member.
func field(t *testing.T, v objects.Value, k string) objects.Value {
	t.Helper()
	f, ok := v.Get(k)
	if !ok {
		t.Fatalf("manifest has no %s", k)
	}
	return f
}

// TestCaptureRedactsPatch: a secret in a dirty file, by its shape and as
// the value of a secret-named variable of the command's environment, never
// reaches the manifest blob; the manifest says the patch was redacted.
func TestCaptureRedactsPatch(t *testing.T) {
	env := gitEnv(t)
	dir := gitRepo(t, env, map[string]string{"conf.txt": "a\n"})
	secret := "s3cr3t-literal-value-9876"
	if err := os.WriteFile(filepath.Join(dir, "conf.txt"), []byte("a\npassword=hunter2hunter2\nplain "+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	red := objects.NewEnvRedactor(append(env, "DEPLOY_TOKEN="+secret))
	c := CaptureWorkspace(context.Background(), objects.BLAKE3, dir, WorkspaceOptions{Env: env, Redactor: red})
	v := manifestOf(t, c)
	body := string(c.Blob.Body)
	if strings.Contains(body, "hunter2") || strings.Contains(body, secret) {
		t.Fatalf("a secret reached the manifest: %s", body)
	}
	if p := field(t, v, "patch").Str; !strings.Contains(p, "+password=[REDACTED]") || !strings.Contains(p, "+plain [REDACTED]") {
		t.Fatalf("patch = %q", p)
	}
	if !field(t, v, "patch_redacted").Bool || !field(t, v, "dirty").Bool || !c.Summary.Dirty {
		t.Fatalf("manifest = %s", body)
	}
}

// TestCapturePatchBound: a patch over MaxPatch is not stored (git is
// stopped, not read to the end), and the manifest says why; a checkout of
// that state is refused.
func TestCapturePatchBound(t *testing.T) {
	env := gitEnv(t)
	dir := gitRepo(t, env, map[string]string{"big.txt": "x\n"})
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(strings.Repeat("line of text\n", 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := CaptureWorkspace(ctx, objects.BLAKE3, dir, WorkspaceOptions{Env: env, MaxPatch: 4096})
	v := manifestOf(t, c)
	if got := field(t, v, "patch_omitted").Str; got != "larger than 4096 bytes" {
		t.Fatalf("patch_omitted = %q", got)
	}
	if field(t, v, "patch").Str != "" || !field(t, v, "dirty").Bool {
		t.Fatalf("manifest = %s", c.Blob.Body)
	}
	m, err := parseWorkspace(c.Blob)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := makeCheckout(ctx, c.Blob.ID, m, dir, t.TempDir(), 0); err == nil || !strings.Contains(err.Error(), "was not stored (larger than 4096 bytes)") {
		t.Fatalf("checkout of an unstored patch: %v", err)
	}
	// Under the bound the same change is stored whole.
	c = CaptureWorkspace(ctx, objects.BLAKE3, dir, WorkspaceOptions{Env: env})
	if p := field(t, manifestOf(t, c), "patch").Str; strings.Count(p, "+line of text") != 1000 {
		t.Fatalf("patch holds %d added lines", strings.Count(p, "+line of text"))
	}
}

// TestCaptureSkips: no work tree, no git, an unborn branch.
func TestCaptureSkips(t *testing.T) {
	env := gitEnv(t)
	ctx := context.Background()
	c := CaptureWorkspace(ctx, objects.BLAKE3, t.TempDir(), WorkspaceOptions{Env: env})
	if c.Blob != nil || !strings.HasPrefix(c.Skipped, "not a git work tree") {
		t.Fatalf("outside a work tree: %+v", c)
	}
	t.Setenv("PATH", t.TempDir()) // git cannot be found
	c = CaptureWorkspace(ctx, objects.BLAKE3, t.TempDir(), WorkspaceOptions{Env: env})
	if c.Blob != nil || c.Skipped != ErrGitMissing.Error() {
		t.Fatalf("without git: %+v", c)
	}
}

// TestCaptureUnbornBranch: a work tree without a commit is captured with
// an empty commit, and its state cannot be checked out.
func TestCaptureUnbornBranch(t *testing.T) {
	env := gitEnv(t)
	dir := t.TempDir()
	cmd := exec.Command("git", "init", "-q", "-b", "trunk")
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(dir, "a"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	c := CaptureWorkspace(context.Background(), objects.BLAKE3, dir, WorkspaceOptions{Env: env})
	v := manifestOf(t, c)
	if field(t, v, "commit").Str != "" || field(t, v, "branch").Str != "trunk" || field(t, v, "patch_omitted").Str != "no commit yet" {
		t.Fatalf("manifest = %s", c.Blob.Body)
	}
	if c.Summary.Untracked != 1 {
		t.Fatalf("untracked = %d", c.Summary.Untracked)
	}
	if _, err := parseWorkspace(c.Blob); !errors.Is(err, ErrBadWorkspace) {
		t.Fatalf("parse: %v", err)
	}
}

// TestParseWorkspaceRefuses: a manifest naming a working directory outside
// the work tree, or no full commit id, is refused before git runs.
func TestParseWorkspaceRefuses(t *testing.T) {
	c40 := strings.Repeat("a", 40)
	for _, body := range []string{
		`{"format":"tine-workspace/1","vcs":"git","commit":"` + c40 + `","prefix":"../../etc/"}`,
		`{"format":"tine-workspace/1","vcs":"git","commit":"` + c40 + `","prefix":"/etc/"}`,
		`{"format":"tine-workspace/1","vcs":"git","commit":"--upload-pack=x"}`,
		`{"format":"tine-workspace/2","vcs":"git","commit":"` + c40 + `"}`,
		`[1]`,
	} {
		if _, err := parseWorkspace(objects.NewBlob(objects.BLAKE3, []byte(body))); !errors.Is(err, ErrBadWorkspace) {
			t.Errorf("%s: %v", body, err)
		}
	}
}

// TestGitOutputBound: git output over the bound is an error, not a
// shortened answer.
func TestGitOutputBound(t *testing.T) {
	env := gitEnv(t)
	dir := gitRepo(t, env, map[string]string{"a": "1\n"})
	g, err := newGitRunner(dir, env, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.run(context.Background(), nil, 8, "rev-parse", "HEAD"); !errors.Is(err, ErrGitOutputTooLarge) {
		t.Fatalf("err = %v", err)
	}
	out, err := g.run(context.Background(), nil, 64, "rev-parse", "HEAD")
	if err != nil || len(strings.TrimSpace(string(out))) != 40 {
		t.Fatalf("rev-parse = %q, %v", out, err)
	}
}

// TestCaptureCheckoutRoundTrip: a dirty state (a staged rename, an edit,
// a binary change, a deletion) captured and then checked out gives the
// same tracked files; untracked files are listed (never the .tine
// directory) but not recreated; the checkout directory is the recorded
// subdirectory and removing it leaves nothing.
func TestCaptureCheckoutRoundTrip(t *testing.T) {
	env := gitEnv(t)
	dir := gitRepo(t, env, map[string]string{"a.txt": "a\n", "old.txt": "old\n", "gone.txt": "x\n", "sub/bin.dat": "\x00\x01\x02", "sub/keep": "k\n"})
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("mv", "old.txt", "new.txt")
	write := func(name, body string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "a\nb\n")
	write("sub/bin.dat", "\x00\x01\x02\x03\xff")
	write("untracked.txt", "u\n")
	write(".tine/objects/x", "not listed\n")
	write("sub/.tine/y", "not listed\n")
	if err := os.Remove(filepath.Join(dir, "gone.txt")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := CaptureWorkspace(ctx, objects.BLAKE3, filepath.Join(dir, "sub"), WorkspaceOptions{Env: env})
	v := manifestOf(t, c)
	if got := field(t, v, "untracked"); len(got.Array) != 1 || got.Array[0].Str != "untracked.txt" {
		t.Fatalf("untracked = %s", c.Blob.Body)
	}
	if field(t, v, "prefix").Str != "sub/" || !c.Summary.Dirty || c.Summary.Branch != "main" {
		t.Fatalf("manifest = %s", c.Blob.Body)
	}
	m, err := parseWorkspace(c.Blob)
	if err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	co, err := makeCheckout(ctx, c.Blob.ID, m, dir, parent, 0)
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Dir(co.dir)
	for _, name := range []string{"a.txt", "new.txt", "sub/bin.dat", "sub/keep"} {
		want, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		got, err := os.ReadFile(filepath.Join(work, filepath.FromSlash(name)))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: checkout has %q (%v), work tree %q", name, got, err, want)
		}
	}
	for _, name := range []string{"old.txt", "gone.txt", "untracked.txt"} {
		if _, err := os.Stat(filepath.Join(work, name)); !os.IsNotExist(err) {
			t.Errorf("%s is in the checkout: %v", name, err)
		}
	}
	if !strings.Contains(co.note, "1 untracked file(s)") {
		t.Errorf("note = %q", co.note)
	}
	if err := co.remove(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(parent); len(left) != 0 {
		t.Fatalf("left behind: %v", left)
	}
}

// TestCaptureOff: TINE_CAPTURE turns capture off with 0, off, false or no,
// the last entry of the name counting.
func TestCaptureOff(t *testing.T) {
	for env, want := range map[string]bool{
		"": false, "TINE_CAPTURE=off": true, "TINE_CAPTURE=0": true, "TINE_CAPTURE= No ": true,
		"TINE_CAPTURE=on": false, "TINE_CAPTURE=off,TINE_CAPTURE=1": false, "TINE_CAPTURE=1,TINE_CAPTURE=false": true,
	} {
		if got := CaptureOff(strings.Split(env, ",")); got != want {
			t.Errorf("%q: %v, want %v", env, got, want)
		}
	}
}
