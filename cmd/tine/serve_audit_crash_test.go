package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestServeSIGKILLedAuditChainHolds SIGKILLs a real `tine serve` while
// four clients keep it busy, three times over, restarting it on the same
// root each time: every restart must find a chain it can extend, and
// audit/verify must answer verified at the end. A row the kill left
// without its head is adopted at the restart; a row the kill tore
// mid-write (Linux stops a write part-way, between pages, for SIGKILL:
// CI once caught it) is set aside at the restart and named in verify's
// warnings; a kill can never leave a chain that verifies as invalid.
func TestServeSIGKILLedAuditChainHolds(t *testing.T) {
	root := filepath.Join(t.TempDir(), "srv")
	const token = "audit-crash-token-0123456789"
	for round := 0; round < 3; round++ {
		url, stop := startServeChild(t, root, token, round)
		var answered atomic.Int32
		var wg sync.WaitGroup
		quit := make(chan struct{})
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-quit:
						return
					default:
					}
					if status, _ := serveGet(url+"/v1/tenants/acme/refs", token); status == 200 {
						answered.Add(1)
					}
				}
			}()
		}
		// Kill once the server has answered some requests: their rows,
		// and likely one in flight, are on disk.
		deadline := time.Now().Add(2 * time.Minute)
		for answered.Load() < int32(20+round*7) && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		stop()
		close(quit)
		wg.Wait()
		if answered.Load() == 0 {
			t.Fatalf("round %d: the server answered nothing", round)
		}
	}
	url, stop := startServeChild(t, root, token, 3)
	defer stop()
	status, body := serveGet(url+"/v1/tenants/acme/audit/verify", token)
	var reply struct {
		OK       bool     `json:"ok"`
		Status   string   `json:"status"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(body), &reply); status != 200 || err != nil || !reply.OK || reply.Status != "verified" {
		t.Fatalf("audit/verify after three kills = %d %s", status, body)
	}
	set, _ := filepath.Glob(filepath.Join(root, "audit", "torn.*"))
	if len(reply.Warnings) != len(set) {
		t.Fatalf("audit/verify warns %q, with %d torn rows set aside", reply.Warnings, len(set))
	}
	if m, _ := filepath.Glob(filepath.Join(root, "audit", ".tmp-*")); len(m) != 0 {
		t.Errorf("temporary heads left after the restarts: %v", m)
	}
}

// startServeChild starts `tine serve` on root in a child process and
// returns its URL and a function that SIGKILLs it.
func startServeChild(t *testing.T, root, token string, n int) (string, func()) {
	t.Helper()
	ready := filepath.Join(filepath.Dir(root), "url"+string(rune('0'+n)))
	child := exec.Command(os.Args[0], "-test.run=^TestTransferCrashChild$", "-test.count=1")
	child.Env = append(os.Environ(), "TINE_REMOTE_TOKEN="+token,
		transferCrashArgsEnv+"=serve --root "+root+" --addr 127.0.0.1:0 --tenant acme --role admin --ready-file "+ready)
	var errb strings.Builder
	child.Stderr = &errb
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- child.Wait() }()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		b, err := os.ReadFile(ready)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			var once sync.Once
			return strings.TrimSpace(string(b)), func() {
				once.Do(func() {
					_ = child.Process.Kill()
					<-done
				})
			}
		}
		select {
		case err := <-done:
			t.Fatalf("tine serve (start %d) exited: %v: %s", n, err, errb.String())
		default:
		}
		if time.Now().After(deadline) {
			_ = child.Process.Kill()
			t.Fatalf("tine serve (start %d) did not listen within 2 minutes", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// serveGet sends one GET with the bearer token; a transport error (the
// server killed) is status 0.
func serveGet(url, token string) (int, string) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		var ne interface{ Timeout() bool }
		if errors.As(err, &ne) {
			return 0, "timeout"
		}
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
