//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// heldRemote is an HTTP remote that holds every request open until the
// client goes or the test ends, so a clone against it waits at its first
// request.
type heldRemote struct {
	*httptest.Server
	arrived chan struct{}
}

func newHeldRemote(t *testing.T) *heldRemote {
	h := &heldRemote{arrived: make(chan struct{}, 1)}
	release := make(chan struct{})
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case h.arrived <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(h.Close)
	t.Cleanup(func() { close(release) })
	return h
}

// start starts the tine clone cmd against h and returns, with the
// buffer collecting its stderr, once its first request has arrived.
func (h *heldRemote) start(t *testing.T, cmd *exec.Cmd) *bytes.Buffer {
	t.Helper()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-h.arrived:
	case <-time.After(harnessTimeout):
		cmd.Process.Kill()
		t.Fatalf("tine clone never reached the remote; stderr: %s", errb.String())
	}
	return &errb
}

// TestInterruptedCloneEndsBySignal interrupts a real tine clone while its
// HTTP remote holds the first request open: tine says "interrupted" with
// what it kept and what to run next, removes the partly made directory
// and then ends itself by the same signal (SIGINT, SIGTERM, SIGHUP), so a
// shell loop stops as it does for git. Before, it exited 130/143, which a
// shell reads as a command that handled the signal, and a loop went on;
// earlier still it printed "context canceled" and exited 1 (SIGINT), or
// died without a word (SIGTERM).
func TestInterruptedCloneEndsBySignal(t *testing.T) {
	catchSIGINT(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			srv := newHeldRemote(t)
			dir := filepath.Join(t.TempDir(), "work")
			cmd := tineCmd(t, "clone", srv.URL+"/v1/tenants/acme", dir, "--token-env", "TINE_TEST_TOKEN")
			cmd.Env = append(os.Environ(), "TINE_TEST_TOKEN=0123456789abcdef0123")
			errb := srv.start(t, cmd)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			got := waitSignaled(t, cmd)
			want := "tine clone: interrupted; the partly made repository was removed; run tine clone again\n"
			if got != sig || errb.String() != want {
				t.Fatalf("ended by %v, stderr %q; want %v, %q", got, errb.String(), sig, want)
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the interrupted clone left %s behind (%v)", dir, err)
			}
		})
	}
}

// TestInterruptedOnlyFromASignal: a cancellation nobody signalled, and a
// real error after a signal, keep their own message and exit 1; only the
// signal's own cancellation becomes "interrupted" with 128+N.
func TestInterruptedOnlyFromASignal(t *testing.T) {
	canceled := fmt.Errorf("fetch origin: %w", context.Canceled)
	if got := interrupted(context.Background(), "fetch", canceled); got != canceled || exitCode(got) != exitFailure {
		t.Fatalf("an unsignalled cancellation became %v (exit %d)", got, exitCode(got))
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&interruptedError{sig: syscall.SIGTERM})
	real := errors.New("object 1234: corrupt")
	if got := interrupted(ctx, "fetch", real); got != real || exitCode(got) != exitFailure {
		t.Fatalf("a real error after a signal became %v (exit %d)", got, exitCode(got))
	}
	got := interrupted(ctx, "fetch", canceled)
	var buf bytes.Buffer
	if code := reportError(&buf, "fetch", got); code != 143 || buf.String() != "tine fetch: interrupted; refs not yet moved kept their old value; run tine fetch again to finish\n" {
		t.Fatalf("exit %d, %q", code, buf.String())
	}
}

// TestNohupKeepsIgnoringSIGHUP starts tine clone with SIGHUP ignored, as
// nohup does: a hangup leaves it working, and the SIGINT after it is what
// interrupts it.
func TestNohupKeepsIgnoringSIGHUP(t *testing.T) {
	catchSIGINT(t)
	srv := newHeldRemote(t)
	bin := tineCmd(t).Path
	dir := filepath.Join(t.TempDir(), "work")
	cmd := tineCmd(t)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Path, cmd.Args = sh, []string{"sh", "-c", `trap "" HUP; exec "$0" "$@"`, bin,
		"clone", srv.URL + "/v1/tenants/acme", dir, "--token-env", "TINE_TEST_TOKEN"}
	cmd.Env = append(os.Environ(), "TINE_TEST_TOKEN=0123456789abcdef0123")
	errb := srv.start(t, cmd)
	cmd.Process.Signal(syscall.SIGHUP)
	cmd.Process.Signal(syscall.SIGINT)
	if got := waitSignaled(t, cmd); got != syscall.SIGINT {
		t.Fatalf("ended by %v, want SIGINT (SIGHUP ignored); stderr %s", got, errb.String())
	}
}
