package objectstest

import (
	"errors"
	"sync"
)

// The steps a fault can fail, spelled as the stores name them in their
// errors ("object <oid>: <step>: ..."). The write steps are the crash-safe
// protocol of an on-disk store, in order; the read steps are a verified
// read. StepVerify does not fail an operation: it damages the bytes a read
// returns, so the store's verification must refuse them.
const (
	StepCreateTemp = "create temp file"
	StepWrite      = "write"
	StepSync       = "sync"
	StepRename     = "rename"
	StepSyncDir    = "sync directory"
	StepOpen       = "open"
	StepRead       = "read"
	StepVerify     = "verify"
)

// WriteSteps are the steps of a durable write, in the order a store takes
// them: the rename is the commit point.
var WriteSteps = []string{StepCreateTemp, StepWrite, StepSync, StepRename, StepSyncDir}

// ReadSteps are the steps of a verified read.
var ReadSteps = []string{StepOpen, StepRead, StepVerify}

// ErrInjected is the error every injected fault returns. The store must
// wrap it with the object and the step; the fault itself names neither, so
// a test can tell the store's error is clear on its own.
var ErrInjected = errors.New("injected fault")

// Faults decides which step fails: Arm(step, n) fails the n-th call of step
// after it, once. Its Hook is what a store (or FaultStore) consults before
// each step. It is safe for concurrent use, as a store's batch runs its
// steps on several goroutines.
type Faults struct {
	mu    sync.Mutex
	step  string
	n     int // calls of step still to pass before the failing one
	fired int
}

// Arm makes the n-th call (counting from 1) of step from now on fail, and
// only that call. It resets Fired.
func (f *Faults) Arm(step string, n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.step, f.n, f.fired = step, n, 0
}

// Disarm stops injecting faults.
func (f *Faults) Disarm() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.step = ""
}

// Fired returns how many faults were injected since the last Arm: a test
// whose fault never fired proved nothing.
func (f *Faults) Fired() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fired
}

// Hook reports whether the call of step on name fails: ErrInjected when it
// is the armed call, nil otherwise.
func (f *Faults) Hook(step, name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.step == "" || step != f.step {
		return nil
	}
	f.n--
	if f.n != 0 {
		return nil
	}
	f.step = ""
	f.fired++
	return ErrInjected
}
