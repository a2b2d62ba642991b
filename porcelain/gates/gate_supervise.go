package gates

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
)

// LoopLease is loops/<name>.lease.json (SPEC §6 Supervisor): the single
// writer allowed to supervise a loop until ExpiresAt (Unix seconds).
type LoopLease struct {
	SchemaVersion int     `json:"schema_version"`
	Loop          string  `json:"loop"`
	PID           int     `json:"pid"`
	Token         string  `json:"token"`
	ExpiresAt     float64 `json:"expires_at"`
}

// LeaseOptions configures a lease.
type LeaseOptions struct {
	// TTL is how long one acquisition or renewal lasts.
	TTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Rand supplies the token; nil means crypto/rand.
	Rand io.Reader
	// PID is recorded for humans; 0 means this process.
	PID int
}

// Lease is a held supervisor lease.
type Lease struct {
	stateDir, loop string
	token          string
	opt            LeaseOptions
}

// leaseFile names the loop's lease in the state directory.
func leaseFile(name string) string { return "loops/" + name + ".lease.json" }

// withLeaseLock runs fn under the lease file's own lock, held only for the
// read-check-write; a cycle holds the journal lock, not this one.
func withLeaseLock(stateDir, name string, fn func() error) error {
	lockName := "loops/" + name + ".lease.lock"
	l, err := stateLock(stateDir, lockName)
	if err != nil {
		return fmt.Errorf("loop %s: %w", name, err)
	}
	if err := l.Lock(); err != nil {
		return fmt.Errorf("loop %s: the lease lock: %w", name, lockStateError(stateDir, lockName, err))
	}
	defer l.Unlock()
	return fn()
}

// readLease returns the current lease; a missing or corrupt one is nil
// (SPEC §10: a corrupt lease file is treated as absent). A lease that is a
// symlink is an error: it is never read, and never replaced by a write.
func readLease(stateDir, name string) (*LoopLease, error) {
	raw, err := readStateFile(stateDir, leaseFile(name), 1<<16)
	if errors.Is(err, fsutil.ErrSymlink) {
		return nil, fmt.Errorf("loop %s lease: %w", name, err)
	}
	if err != nil {
		return nil, nil
	}
	var l LoopLease
	if decodeStrictJSON(raw, &l) != nil || l.SchemaVersion != 1 || l.Loop != name || l.Token == "" ||
		math.IsNaN(l.ExpiresAt) || math.IsInf(l.ExpiresAt, 0) {
		return nil, nil
	}
	return &l, nil
}

func (l *Lease) write(now time.Time) error {
	pid := l.opt.PID
	if pid == 0 {
		pid = os.Getpid()
	}
	rec := LoopLease{SchemaVersion: 1, Loop: l.loop, PID: pid, Token: l.token, ExpiresAt: epoch(now.Add(l.opt.TTL))}
	raw, err := jsonIndent(rec)
	if err != nil {
		return err
	}
	if err := writeStateFile(l.stateDir, leaseFile(l.loop), raw); err != nil {
		return fmt.Errorf("loop %s lease: %w", l.loop, err)
	}
	return nil
}

// AcquireLease takes the loop's supervisor lease in stateDir. A lease
// another supervisor holds and has not let expire is refused with
// ErrCycleLease; an expired (or corrupt) one is taken over.
func AcquireLease(stateDir, name string, opt LeaseOptions) (*Lease, error) {
	if err := checkLoopName(name); err != nil {
		return nil, err
	}
	if opt.TTL <= 0 {
		return nil, fmt.Errorf("loop %s: the lease TTL must be positive", name)
	}
	src := opt.Rand
	if src == nil {
		src = rand.Reader
	}
	tok := make([]byte, 16)
	if _, err := io.ReadFull(src, tok); err != nil {
		return nil, fmt.Errorf("loop %s: lease token: %w", name, err)
	}
	l := &Lease{stateDir: stateDir, loop: name, token: hex.EncodeToString(tok), opt: opt}
	now := runs.Clock(opt.Now)()
	err := withLeaseLock(stateDir, name, func() error {
		cur, err := readLease(stateDir, name)
		if err != nil {
			return err
		}
		if cur != nil && cur.ExpiresAt > epoch(now) {
			return fmt.Errorf("%w: loop %s already has an active supervisor lease (pid %d) until %s",
				ErrCycleLease, name, cur.PID, time.Unix(0, int64(cur.ExpiresAt*1e9)).UTC().Format(time.RFC3339))
		}
		return l.write(now)
	})
	if err != nil {
		return nil, err
	}
	return l, nil
}

// Renew extends the lease by its TTL. It fails closed with ErrCycleLease
// when the lease file no longer carries this lease's token: another
// supervisor took it over after it expired.
func (l *Lease) Renew() error {
	now := runs.Clock(l.opt.Now)()
	return withLeaseLock(l.stateDir, l.loop, func() error {
		cur, err := readLease(l.stateDir, l.loop)
		if err != nil {
			return err
		}
		if cur == nil || cur.Token != l.token {
			return fmt.Errorf("%w: loop %s: the lease was lost; supervisor lease renewal failed", ErrCycleLease, l.loop)
		}
		return l.write(now)
	})
}

// Release deletes the lease file, only while it still carries this
// lease's token.
func (l *Lease) Release() error {
	return withLeaseLock(l.stateDir, l.loop, func() error {
		cur, err := readLease(l.stateDir, l.loop)
		if err != nil || cur == nil || cur.Token != l.token {
			return err
		}
		if err := writeStateFile(l.stateDir, leaseFile(l.loop), nil); err != nil {
			return fmt.Errorf("loop %s: releasing the lease: %w", l.loop, err)
		}
		return nil
	})
}

// SuperviseOptions configures Supervise.
type SuperviseOptions struct {
	CycleOptions
	// Emit receives each transition whose state differs from the last
	// one emitted (SPEC §6: JSON Lines on state changes).
	Emit func(*CycleResult)
	// Sleep waits; nil sleeps on real timers and returns early when ctx ends.
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand supplies the lease token; nil means crypto/rand.
	Rand io.Reader
}

// Supervise runs the loop's cycles while it is waiting, holding the
// renewable single-writer lease (SPEC §6 Supervisor, TTL max(60 s, 3 ×
// interval)). Each iteration checks the checkout, renews, runs one cycle
// and renews again; it returns the first transition that is not waiting
// (its ExitCode is the process status). It never launches an agent. A lost
// lease or a moved checkout fails closed with an error.
func Supervise(ctx context.Context, r *plumbing.Repo, name string, opt SuperviseOptions) (*CycleResult, error) {
	if r == nil {
		return nil, fmt.Errorf("loop %s: supervise needs a tine repository", name)
	}
	proj, err := LoadGateProject(opt.Root)
	if err != nil {
		return nil, err
	}
	interval := 0.0
	for _, l := range proj.Contract.Loops {
		if l.ID == name {
			interval = l.IntervalSeconds
		}
	}
	ttl := time.Duration(math.Max(60, 3*interval) * float64(time.Second))
	lease, err := AcquireLease(GateStateDir(r), name, LeaseOptions{TTL: ttl, Now: opt.Now, Rand: opt.Rand})
	if err != nil {
		return nil, err
	}
	defer lease.Release()
	sleep := opt.Sleep
	if sleep == nil {
		sleep = runs.SleepContext
	}
	opt.CycleOptions.Root = proj.Root
	last := ""
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("loop %s: supervisor cancelled: %w", name, err)
		}
		if co, err := GateCheckout(proj.Root); err != nil || co != proj.Checkout {
			return nil, fmt.Errorf("loop %s: %w", name, ErrGateCheckoutChanged)
		}
		if err := lease.Renew(); err != nil {
			return nil, err
		}
		res, err := cycleWithHeartbeat(ctx, r, name, opt.CycleOptions, lease, ttl/3)
		if err != nil {
			return nil, err
		}
		if err := lease.Renew(); err != nil {
			return nil, err
		}
		if res.State != last && opt.Emit != nil {
			opt.Emit(res)
		}
		last = res.State
		if res.State != CycleWaiting {
			return res, nil
		}
		// Sleep in slices of at most a third of the TTL, renewing between
		// them, so a long wait never lets the lease lapse.
		wait := time.Duration(res.WakeAfterSeconds * float64(time.Second))
		for wait > 0 {
			step := min(wait, ttl/3, time.Second)
			if err := sleep(ctx, step); err != nil {
				return nil, fmt.Errorf("loop %s: supervisor cancelled: %w", name, err)
			}
			wait -= step
			if err := lease.Renew(); err != nil {
				return nil, err
			}
		}
	}
}

// cycleWithHeartbeat runs one cycle while a heartbeat renews the lease
// every beat on real timers, since a cycle runs the gate and may outlast
// the TTL. A failed renewal cancels the cycle and fails closed.
func cycleWithHeartbeat(ctx context.Context, r *plumbing.Repo, name string, opt CycleOptions, lease *Lease, beat time.Duration) (*CycleResult, error) {
	cctx, cancel := context.WithCancel(ctx)
	lost := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for runs.SleepContext(cctx, beat) == nil {
			if err := lease.Renew(); err != nil {
				lost <- err
				cancel()
				return
			}
		}
	}()
	res, err := RunCycle(cctx, r, name, opt)
	cancel()
	<-done
	select {
	case lerr := <-lost:
		return nil, lerr
	default:
	}
	return res, err
}
