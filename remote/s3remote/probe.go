package s3remote

import (
	"bytes"
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
// round is refused with ErrNoConditionalWrites. It costs 2×ProbeWriters+3
// requests (more only on 409 or a retry) and leaves nothing behind (the
// scratch key is deleted).
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

// maxProbeBody bounds the read-back of the scratch key: every probe body
// is one short line.
const maxProbeBody = 256

// race runs ProbeWriters conditional PUTs of distinct bodies to key at
// once (If-Match: etag, or If-None-Match: * when etag is "") and counts
// the successes; 412s are the expected losses, any other failure is
// returned. It returns the ETag of a winner.
//
// A success whose answer was lost is retried by the client, and the
// retry gets 412 like a loss: the key is read back after the round, and
// a writer that saw 412 but whose bytes the key holds won too (a server
// that let it write beside a seen winner let two win).
func (t *Transport) race(ctx context.Context, key, etag string) (int, string, error) {
	round := "create"
	if etag != "" {
		round = "replace"
	}
	var (
		mu      sync.Mutex
		wins    int
		winETag string
		won     [ProbeWriters]bool
		bodies  [ProbeWriters][]byte
		errs    []error
		wg      sync.WaitGroup
		start   = make(chan struct{})
	)
	for i := range ProbeWriters {
		// Every body differs from every other of both rounds: a
		// replacement with the very bytes the key holds keeps its
		// ETag, so a second If-Match on it would rightly succeed.
		bodies[i] = fmt.Appendf(nil, "tine conditional write probe: %s writer %d of %d\n", round, i+1, ProbeWriters)
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			got, err := t.b.putBytes(ctx, key, bodies[i], etag)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
				won[i] = true
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
	data, held, err := t.b.get(ctx, key, maxProbeBody)
	if errors.Is(err, errNoSuchKey) {
		return wins, winETag, nil
	}
	if err != nil {
		return 0, "", fmt.Errorf("%s: probe: read back: %w", t.url, err)
	}
	for i := range bodies {
		if !won[i] && bytes.Equal(data, bodies[i]) {
			wins++ // its answer was lost: its retry got 412
			if winETag == "" {
				winETag = held
			}
		}
	}
	return wins, winETag, nil
}
