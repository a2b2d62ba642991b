package plumbing

import (
	"bufio"
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

// gcCrashEnv names the repository a re-executed test binary runs gc on in
// child mode; gcCrashModeEnv picks the operation.
const (
	gcCrashEnv     = "TINE_PLUMBING_GC_CRASH_REPO"
	gcCrashModeEnv = "TINE_PLUMBING_GC_CRASH_MODE"
)

// TestGCCrashChild is the process TestGCCrashKill kills. It does nothing
// unless the parent set gcCrashEnv: then it prints "ready" and runs gc,
// repack -d or gc --prune=now over and over until killed.
func TestGCCrashChild(t *testing.T) {
	dir := os.Getenv(gcCrashEnv)
	if dir == "" {
		t.Skip("child mode of TestGCCrashKill only")
	}
	ctx := context.Background()
	r, err := Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gc crash child:", err)
		os.Exit(3)
	}
	fmt.Println("ready")
	for {
		switch os.Getenv(gcCrashModeEnv) {
		case "repack":
			_, err = Repack(ctx, r, RepackOptions{Delete: true})
		case "prune":
			_, err = GC(ctx, r, GCOptions{Prune: true, PackLimit: 3})
		default:
			_, err = GC(ctx, r, GCOptions{PackLimit: 3})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gc crash child:", err)
			os.Exit(3)
		}
	}
}

// TestGCCrashKill grows a repository of a few thousand objects (loose
// files and packs, every object reachable) and SIGKILLs a child running
// gc, repack -d or gc --prune=now on it at random moments; after every
// kill every object stored so far must read back (re-hashed) through a
// freshly opened repository and fsck must find no problem.
func TestGCCrashKill(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test re-executes the test binary")
	}
	if os.Getenv(gcCrashEnv) != "" || os.Getenv(crashEnv) != "" {
		t.Skip("in child mode")
	}
	const roundsPerAlgo = 12
	seed := int64(20261130)
	rng := rand.New(rand.NewSource(seed))
	modes := []string{"gc", "repack", "prune"}
	for _, a := range algos {
		r := packsOn(t, newRepo(t, a))
		var ids []objects.OID
		for i := range 10 {
			ids = append(ids, storeChain(t, r, fmt.Sprintf("heads/base%d", i), i%2 == 0, 150)...)
		}
		for round := range roundsPerAlgo {
			ids = append(ids, storeChain(t, r, fmt.Sprintf("heads/r%d", round), round%2 == 1, 40+rng.Intn(80))...)
			mode := modes[round%len(modes)]
			delay := time.Duration(rng.Intn(250)) * time.Millisecond
			gcCrashRound(t, r.Root(), mode, delay)
			mustReadAll(t, r.Root(), ids)
			fr, err := Open(r.Root())
			if err != nil {
				t.Fatal(err)
			}
			res := mustFsckClean(t, fr)
			fr.Close()
			t.Logf("%s round %d (%s, killed after %v): %d objects, %d warnings", a, round, mode, delay, res.Objects, len(res.Warnings))
		}
	}
}

// gcCrashRound starts a child on root in mode, waits for it to be ready,
// lets it work for delay and kills it.
func gcCrashRound(t *testing.T, root, mode string, delay time.Duration) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestGCCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), gcCrashEnv+"="+root, gcCrashModeEnv+"="+mode)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child did not start: %q\n%s", line, stderr.String())
	}
	time.Sleep(delay)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || strings.Contains(stderr.String(), "gc crash child:") {
		t.Fatalf("child ended on its own (%s): %v\n%s", mode, err, stderr.String())
	}
}
