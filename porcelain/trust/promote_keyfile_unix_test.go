//go:build unix

package trust_test

import (
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/porcelain/runs/runstest"
	"github.com/tinehq/tine/porcelain/trust"
)

const keyFilePolicy = `{"version": 1,
 "keys": {"ci": {"algorithm": "ed25519", "fingerprint": "1111111111111111111111111111111111111111111111111111111111111111", "public_key_file": "@FILE@"}},
 "promotions": {"release": {"trusted_keys": ["ci"], "scores": {"accuracy": {"min": 0.9}}}}}`

// promoteWithKeyFile writes a policy whose key file is rel (prepared by
// setup in the policy's directory) and runs Promote under noHang, so a
// promote that blocks fails the test instead of hanging the suite.
func promoteWithKeyFile(t *testing.T, rel string, setup func(dir string)) error {
	t.Helper()
	r := newRepo(t)
	appendEvent(t, r, "heads/main", `{"kind":"tool"}`, nil)
	dir := t.TempDir()
	setup(dir)
	pol := filepath.Join(dir, trust.PolicyFileName)
	if err := os.WriteFile(pol, []byte(strings.Replace(keyFilePolicy, "@FILE@", rel, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return runstest.NoHang(t, filepath.Join(dir, rel), func() error {
		_, err := trust.Promote(context.Background(), r, trust.PromoteOptions{Target: "heads/main", Name: "release", PolicyFile: pol})
		return err
	})
}

// TestPromoteRefusesFIFOKeyFile checks issue 10 item 7: a policy whose
// public_key_file is a FIFO made promote wait forever for a writer; it is
// refused at once, naming the key and why.
func TestPromoteRefusesFIFOKeyFile(t *testing.T) {
	err := promoteWithKeyFile(t, "ci.pub", func(dir string) {
		if err := syscall.Mkfifo(filepath.Join(dir, "ci.pub"), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	if err == nil || !strings.Contains(err.Error(), "policy key ci") || !strings.Contains(err.Error(), "not a regular file (a FIFO)") {
		t.Fatalf("promote: %v, want a refusal naming the FIFO", err)
	}
}

// TestPromoteKeyFileConfinedToPolicyDir checks public_key_file may be
// reached through links only when it stays inside the policy's directory,
// and must be a regular file.
func TestPromoteKeyFileConfinedToPolicyDir(t *testing.T) {
	outside := t.TempDir()
	key, err := objects.NewEd25519SigningKey(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	pub := []byte(hex.EncodeToString(key.PublicKey()) + "\n")
	if err := os.WriteFile(filepath.Join(outside, "ci.pub"), pub, 0o644); err != nil {
		t.Fatal(err)
	}
	err = promoteWithKeyFile(t, "ci.pub", func(dir string) {
		if err := os.Symlink(filepath.Join(outside, "ci.pub"), filepath.Join(dir, "ci.pub")); err != nil {
			t.Fatal(err)
		}
	})
	if err == nil || !strings.Contains(err.Error(), "policy key ci") || !strings.Contains(err.Error(), "inside the policy's directory") {
		t.Fatalf("link out of the policy directory: %v, want a refusal", err)
	}
	err = promoteWithKeyFile(t, "keys", func(dir string) {
		if err := os.Mkdir(filepath.Join(dir, "keys"), 0o755); err != nil {
			t.Fatal(err)
		}
	})
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("directory: %v, want a refusal", err)
	}
	// A link that stays inside is followed: the key is read, and this
	// policy's made-up fingerprint is what refuses it.
	err = promoteWithKeyFile(t, "ci.pub", func(dir string) {
		if err := os.Mkdir(filepath.Join(dir, "keys"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "keys", "real.pub"), pub, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("keys/real.pub", filepath.Join(dir, "ci.pub")); err != nil {
			t.Fatal(err)
		}
	})
	if !errors.Is(err, trust.ErrBadPolicy) || !strings.Contains(err.Error(), "has fingerprint") {
		t.Fatalf("link inside: %v, want the fingerprint check", err)
	}
}

// TestPolicyFIFORefused checks the other trust file read through the same
// bounded regular-file reader: a FIFO as the policy is refused at once.
func TestPolicyFIFORefused(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, trust.PolicyFileName)
	if err := syscall.Mkfifo(pol, 0o644); err != nil {
		t.Fatal(err)
	}
	err := runstest.NoHang(t, pol, func() error { _, err := trust.LoadPolicy(pol, objects.BLAKE3); return err })
	if !errors.Is(err, trust.ErrBadPolicy) || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("policy FIFO: %v", err)
	}
}
