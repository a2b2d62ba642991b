package runs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// checkoutsLeft lists the temporary checkouts left in dir.
func checkoutsLeft(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "tine-checkout-") {
			left = append(left, e.Name())
		}
	}
	return left
}

// TestRerunCheckoutRemovedOnInterrupt: a rerun interrupted while a command
// runs in its recorded checkout kills the command and removes the checkout.
func TestRerunCheckoutRemovedOnInterrupt(t *testing.T) {
	env := gitEnv(t)
	work := gitRepo(t, env, map[string]string{"f": "1\n"})
	r := initRepo(t)
	flags := t.TempDir()
	marker, rerun := filepath.Join(flags, "started"), filepath.Join(flags, "rerun")
	// Quick when recorded; once the rerun flag exists it says it started
	// and then runs until killed.
	script := "if [ -e " + rerun + " ]; then touch " + marker + "; sleep 120; fi"
	ctx := context.Background()
	if _, err := Record(ctx, r, RecordOptions{Argv: []string{"sh", "-c", script}, Dir: work, Env: env}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rerun, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	run, _, err := ResolveRun(ctx, r, DefaultRef)
	if err != nil {
		t.Fatal(err)
	}
	if err := LoadEvents(ctx, r.Objects(), run, nil); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		// Wait (generously: a loaded machine) for the command to start.
		for range 1200 {
			if _, err := os.Stat(marker); err == nil {
				cancel()
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	_, err = Rerun(rctx, r.Objects(), run, RerunOptions{InRecordedCheckout: true, Source: work, TempDir: tmp, Env: env, Timeout: 10 * time.Minute})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the interruption", err)
	}
	if left := checkoutsLeft(t, tmp); len(left) != 0 {
		t.Fatalf("checkouts left after an interrupted rerun: %v", left)
	}
}
