//go:build unix

package gate

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestTimeoutKillsTheProcessGroup(t *testing.T) {
	root := project(t, nil)
	pidFile := filepath.Join(root, "grandchild.pid")
	script := "sh -c 'echo $$ > " + pidFile + "; exec sleep 60' & sleep 60"
	start := time.Now()
	ev := execOne(t, root, shellContract(script, "    timeout_seconds: 0.5\n"), "c", nil)
	if ev.Verdict != Error || !strings.Contains(ev.Message, "timed out after 0.5s") {
		t.Fatalf("got %s %q", ev.Verdict, ev.Message)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatal("timeout did not stop the command promptly")
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d survived the timeout", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
