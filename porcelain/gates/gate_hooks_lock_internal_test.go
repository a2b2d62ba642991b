package gates

import (
	"path/filepath"
	"sync/atomic"
	"testing"
)

// TestHookStateLockSerializes: two runs of setup or uninstall at once (in
// goroutines, each with its own file lock, as two processes would have)
// never lose each other's changes to the record. The first run is paused
// between reading the record and writing it; the second must then wait
// for the lock. Unserialized, it would run to its end inside that window
// and the first would write back the record it read, dropping (or
// bringing back) the second's entry. No timing is involved: the test
// resumes the first run once the second waits for the lock, or has
// finished.
func TestHookStateLockSerializes(t *testing.T) {
	claude := []string{HookAdapterClaude}
	codex := []string{HookAdapterCodex}
	cases := []struct {
		name   string
		before []string // adapters set up first
		second func(HookSetupOptions) (*HookSetupResult, error)
		want   []string // adapters the record names at the end
	}{
		{"setup-setup", nil, SetupHooks, []string{HookAdapterClaude, HookAdapterCodex}},
		{"setup-uninstall", codex, UninstallHooks, []string{HookAdapterClaude}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			proj := t.TempDir()
			state := filepath.Join(t.TempDir(), "gate")
			opt := func(adapters []string) HookSetupOptions {
				return HookSetupOptions{Project: proj, Adapters: adapters, StateDir: state}
			}
			if c.before != nil {
				if _, err := SetupHooks(opt(c.before)); err != nil {
					t.Fatal(err)
				}
			}
			paused, resume := make(chan struct{}), make(chan struct{})
			waiting := make(chan struct{}, 1)
			var reads atomic.Int32
			hookStateRead = func() {
				if reads.Add(1) == 1 {
					close(paused)
					<-resume
				}
			}
			hookLockWait = func() {
				select {
				case waiting <- struct{}{}:
				default:
				}
			}
			t.Cleanup(func() { hookStateRead, hookLockWait = nil, nil })

			first, second := make(chan error, 1), make(chan error, 1)
			go func() { _, err := SetupHooks(opt(claude)); first <- err }()
			<-paused
			go func() { _, err := c.second(opt(codex)); second <- err }()
			var secondErr error
			secondDone := false
			select {
			case <-waiting: // serialized: it waits for the first
			case secondErr = <-second: // not serialized: it ran inside the window
				secondDone = true
			}
			close(resume)
			if err := <-first; err != nil {
				t.Fatalf("first run: %v", err)
			}
			if !secondDone {
				secondErr = <-second
			}
			if secondErr != nil {
				t.Fatalf("second run: %v", secondErr)
			}
			rec, err := readCreated(state)
			if err != nil {
				t.Fatal(err)
			}
			if len(rec) != len(c.want) {
				t.Errorf("record names %v, want %v", keys(rec), c.want)
			}
			for _, a := range c.want {
				if _, ok := rec[a]; !ok {
					t.Errorf("record lost %s: it names %v, want %v", a, keys(rec), c.want)
				}
			}
		})
	}
}

func keys(m map[string]createdSettings) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
