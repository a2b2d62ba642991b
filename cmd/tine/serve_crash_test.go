package main

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tinehq/tine/remote/httpserve"
)

// serveCrashToken is the bearer token of TestPushSIGKILLedMidUploadHTTP.
const serveCrashToken = "crash-token-0123456789abcdef"

// TestPushSIGKILLedMidUploadHTTP SIGKILLs a real `tine push` to a tine
// serve remote on 127.0.0.1 in the middle of its second upload: a run of
// 6,000 events with a blob each is 12,001 objects, two packs over HTTP
// (the server grants tine's extension no more than the format's 10,000
// objects per pack, so the push still splits); the first is installed, and the server holds the first PATCH of the
// second until the push is dead. The tenant must not have the ref (objects
// go first, refs last) and must pass fsck; the next push must succeed with
// no cleanup, leaving both sides fsck-clean.
func TestPushSIGKILLedMidUploadHTTP(t *testing.T) {
	if testing.Short() {
		t.Skip("imports a 6,000-event run")
	}
	dir := t.TempDir()
	root, local := filepath.Join(dir, "srv"), filepath.Join(dir, "local")
	srv, err := httpserve.New(httpserve.Config{Root: root, Tenant: "acme", Token: []byte(serveCrashToken),
		Role: httpserve.RoleWriter, ObjectFormat: httpserve.ObjectFormat("blake3"), TinePackObjects: 10000})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var declarations atomic.Int32
	held, release := make(chan struct{}, 1), make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/packs") {
			declarations.Add(1)
		}
		if r.Method == http.MethodPatch && declarations.Load() == 2 {
			// Mid-upload: hold the chunk (unanswered) until the client
			// is killed.
			select {
			case held <- struct{}{}:
			default:
			}
			<-release
			return
		}
		srv.ServeHTTP(w, r)
	}))
	defer hs.Close()

	mustRun(t, "", "init", local)
	mustRun(t, importStream("first", 6000), "--repo", local, "import", "-", "--ref", "heads/main")
	mustRun(t, "", "--repo", local, "remote", "add", "origin", hs.URL+"/v1/tenants/acme", "--token-env", "TINE_REMOTE_TOKEN")
	t.Setenv("TINE_REMOTE_TOKEN", serveCrashToken)

	child := exec.Command(os.Args[0], "-test.run=^TestTransferCrashChild$", "-test.count=1")
	child.Env = append(os.Environ(), transferCrashArgsEnv+"=--repo "+local+" push origin main")
	var childErr strings.Builder
	child.Stderr = &childErr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- child.Wait() }()
	select {
	case <-held:
	case err := <-done:
		t.Fatalf("the push ended (%v) before its second upload: %s", err, childErr.String())
	case <-time.After(5 * time.Minute):
		child.Process.Kill()
		t.Fatal("the push did not reach its second upload in 5 minutes")
	}
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	var ee *exec.ExitError
	if err := <-done; !errors.As(err, &ee) || ee.Success() {
		t.Fatalf("the push was not killed: %v", err)
	}
	close(release)
	tenant := filepath.Join(root, "tenants", "acme")
	if code, out, _ := tineRun(t, "", "--repo", tenant, "rev-parse", "heads/main"); code == 0 {
		t.Fatalf("the killed push left heads/main on the remote: %s", out)
	}
	fsckClean(t, tenant)
	if m, _ := filepath.Glob(filepath.Join(root, "uploads", "acme", "*.part")); len(m) != 1 {
		t.Fatalf("upload state after the kill: %v, want the one pending upload", m)
	}

	declarations.Store(100) // hold nothing from now on
	code, out, errs := tineRun(t, "", "--repo", local, "push", "origin", "main")
	if code != 0 {
		t.Fatalf("push after the kill: exit %d\n%s%s", code, out, errs)
	}
	_, want, _ := tineRun(t, "", "--repo", local, "rev-parse", "heads/main")
	if _, got, _ := tineRun(t, "", "--repo", tenant, "rev-parse", "heads/main"); got != want {
		t.Fatalf("remote heads/main %q, local %q", got, want)
	}
	fsckClean(t, tenant)
	fsckClean(t, local)
}
