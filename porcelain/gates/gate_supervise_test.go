package gates_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/porcelain/gates"
)

// TestLeaseHelperProcess is not a test: run by TestLeaseAcrossProcesses as
// a second process, it takes the lease, says so, and holds it until its
// stdin closes.
func TestLeaseHelperProcess(t *testing.T) {
	dir := os.Getenv("TINE_GATE_LEASE_HELPER")
	if dir == "" {
		t.Skip("helper process only")
	}
	l, err := gates.AcquireLease(dir, "fix", gates.LeaseOptions{TTL: time.Hour})
	if err != nil {
		os.Stdout.WriteString("refused: " + err.Error() + "\n")
		return
	}
	os.Stdout.WriteString("acquired\n")
	bufio.NewReader(os.Stdin).ReadString('\n')
	if os.Getenv("TINE_GATE_LEASE_RELEASE") != "" {
		l.Release()
	}
}

func helper(t *testing.T, dir string, release bool) (*exec.Cmd, *bufio.Reader, func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLeaseHelperProcess$")
	cmd.Env = append(os.Environ(), "TINE_GATE_LEASE_HELPER="+dir)
	if release {
		cmd.Env = append(cmd.Env, "TINE_GATE_LEASE_RELEASE=1")
	}
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, bufio.NewReader(out), func() { in.Close(); cmd.Wait() }
}

func TestLeaseAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	_, out, stop := helper(t, dir, false)
	if line, _ := out.ReadString('\n'); line != "acquired\n" {
		t.Fatalf("helper: %q", line)
	}
	now := time.Now()
	_, err := gates.AcquireLease(dir, "fix", gates.LeaseOptions{TTL: time.Minute, Now: func() time.Time { return now }})
	if !errors.Is(err, gates.ErrCycleLease) || !strings.Contains(err.Error(), "already has an active supervisor lease") {
		t.Fatalf("second supervisor: %v", err)
	}
	// The holder exits without releasing (a crash): the lease stays until
	// it expires, then a new supervisor takes it over.
	stop()
	if _, err := gates.AcquireLease(dir, "fix", gates.LeaseOptions{TTL: time.Minute, Now: func() time.Time { return now }}); !errors.Is(err, gates.ErrCycleLease) {
		t.Fatalf("before expiry: %v", err)
	}
	later := now.Add(time.Hour + time.Second)
	l, err := gates.AcquireLease(dir, "fix", gates.LeaseOptions{TTL: time.Minute, Now: func() time.Time { return later }})
	if err != nil {
		t.Fatalf("takeover after expiry: %v", err)
	}
	// Now this process holds it: another process is refused.
	_, out, stop = helper(t, dir, false)
	if line, _ := out.ReadString('\n'); !strings.HasPrefix(line, "refused: ") {
		t.Fatalf("helper while held: %q", line)
	}
	stop()
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	_, out, stop = helper(t, dir, true)
	if line, _ := out.ReadString('\n'); line != "acquired\n" {
		t.Fatalf("helper after release: %q", line)
	}
	stop()
	if _, err := os.Stat(filepath.Join(dir, "loops", "fix.lease.json")); !os.IsNotExist(err) {
		t.Errorf("released lease left behind: %v", err)
	}
}

func TestLeaseRenewalAndLoss(t *testing.T) {
	dir := t.TempDir()
	c := &setClock{time.Unix(1700000000, 0)}
	a, err := gates.AcquireLease(dir, "fix", gates.LeaseOptions{TTL: time.Minute, Now: c.now, Rand: bytes.NewReader(bytes.Repeat([]byte{1}, 16))})
	if err != nil {
		t.Fatal(err)
	}
	c.advance(50 * time.Second)
	if err := a.Renew(); err != nil {
		t.Fatal(err)
	}
	c.advance(50 * time.Second) // 100 s: alive only thanks to the renewal
	if _, err := gates.AcquireLease(dir, "fix", gates.LeaseOptions{TTL: time.Minute, Now: c.now}); !errors.Is(err, gates.ErrCycleLease) {
		t.Fatalf("renewed lease taken: %v", err)
	}
	c.advance(11 * time.Second)
	b, err := gates.AcquireLease(dir, "fix", gates.LeaseOptions{TTL: time.Minute, Now: c.now, Rand: bytes.NewReader(bytes.Repeat([]byte{2}, 16))})
	if err != nil {
		t.Fatalf("expired lease not taken over: %v", err)
	}
	if err := a.Renew(); !errors.Is(err, gates.ErrCycleLease) || !strings.Contains(err.Error(), "lease was lost") {
		t.Fatalf("lost lease renewed: %v", err)
	}
	a.Release() // must not delete b's lease
	if err := b.Renew(); err != nil {
		t.Fatalf("b lost its lease to a's release: %v", err)
	}
	if _, err := gates.AcquireLease(dir, "fix", gates.LeaseOptions{}); err == nil {
		t.Error("zero TTL accepted")
	}
	write(t, filepath.Join(dir, "loops", "fix.lease.json"), "{corrupt")
	if _, err := gates.AcquireLease(dir, "fix", gates.LeaseOptions{TTL: time.Minute, Now: c.now}); err != nil {
		t.Errorf("corrupt lease not treated as absent: %v", err)
	}
}

func TestSuperviseReturnsFirstNonWaitingState(t *testing.T) {
	dir, r := gateProject(t, loopContract(3, 3, "3600"))
	c := &setClock{time.Unix(1700000000, 0)}
	write(t, filepath.Join(dir, "status"), "75")
	var emitted []string
	sleeps := 0
	res, err := gates.Supervise(context.Background(), r, "fix", gates.SuperviseOptions{
		CycleOptions: gates.CycleOptions{Root: dir, Now: c.now},
		Emit:         func(cr *gates.CycleResult) { emitted = append(emitted, cr.State) },
		Sleep: func(ctx context.Context, d time.Duration) error {
			sleeps++
			c.advance(d)
			if sleeps == 40 { // the pending check settles while waiting
				write(t, filepath.Join(dir, "status"), "1")
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.State != gates.CycleRepair || res.ExitCode() != 10 {
		t.Fatalf("result %+v", res)
	}
	if strings.Join(emitted, ",") != "waiting,repair" {
		t.Errorf("emitted %v", emitted)
	}
	if _, err := os.Stat(filepath.Join(r.Root(), "gate", "loops", "fix.lease.json")); !os.IsNotExist(err) {
		t.Errorf("lease not released: %v", err)
	}
}
