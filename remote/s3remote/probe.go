package s3remote

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
)

// ProbeWriters is how many conditional writes race on the probe's scratch
// key in each round.
const ProbeWriters = 32

// probeDir holds the probe's scratch keys (one per probe, deleted after).
const probeDir = "probe/"

// Probe checks that the server enforces conditional writes, which every
// ref move relies on: ProbeWriters concurrent PUTs with If-None-Match: *
// to one fresh scratch key must give exactly one success and 412 to the
// rest, then as many PUTs with If-Match on the winner's ETag must again
// give exactly one success. A server that lets two writers win either
// round is refused with ErrNoConditionalWrites. It costs 2×ProbeWriters+1
// requests (more only on 409) and leaves nothing behind (the scratch key
// is deleted).
func (t *Transport) Probe(ctx context.Context) error {
	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return err
	}
	key := probeDir + hex.EncodeToString(nonce[:])
	defer t.b.remove(context.WithoutCancel(ctx), key)
	wins, etag, err := t.race(ctx, key, "")
	if err != nil {
		return err
	}
	if wins != 1 {
		return fmt.Errorf("%s: %w: %d of %d concurrent creates (If-None-Match: *) of one key succeeded", t.url, ErrNoConditionalWrites, wins, ProbeWriters)
	}
	if etag == "" {
		return fmt.Errorf("%s: %w: a write returned no ETag", t.url, ErrNoConditionalWrites)
	}
	wins, _, err = t.race(ctx, key, etag)
	if err != nil {
		return err
	}
	if wins != 1 {
		return fmt.Errorf("%s: %w: %d of %d concurrent replacements (If-Match) of one version succeeded", t.url, ErrNoConditionalWrites, wins, ProbeWriters)
	}
	return nil
}

// race runs ProbeWriters conditional PUTs of distinct bodies to key at
// once (If-Match: etag, or If-None-Match: * when etag is "") and counts
// the successes; 412s are the expected losses, any other failure is
// returned. It returns the ETag of a winner.
func (t *Transport) race(ctx context.Context, key, etag string) (int, string, error) {
	round := "create"
	if etag != "" {
		round = "replace"
	}
	var (
		mu      sync.Mutex
		wins    int
		winETag string
		errs    []error
		wg      sync.WaitGroup
		start   = make(chan struct{})
	)
	for i := range ProbeWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			// Every body differs from every other of both rounds: a
			// replacement with the very bytes the key holds keeps its
			// ETag, so a second If-Match on it would rightly succeed.
			body := fmt.Appendf(nil, "tine conditional write probe: %s writer %d of %d\n", round, i+1, ProbeWriters)
			got, err := t.b.putBytes(ctx, key, body, etag)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
				winETag = got
			case !errors.Is(err, errPrecondition):
				errs = append(errs, err)
			}
		}()
	}
	close(start)
	wg.Wait()
	if len(errs) > 0 {
		// One line: the writers mostly fail alike (no bucket, no access).
		return 0, "", fmt.Errorf("%s: probe: %d of %d writes failed, the first: %w", t.url, len(errs), ProbeWriters, errs[0])
	}
	return wins, winETag, nil
}
