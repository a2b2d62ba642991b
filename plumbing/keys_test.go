package plumbing

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestKeygenDeterministic pins keygen's output with injected randomness:
// the seed 00..1f gives the suite's public key 03a107bf...31b8.
func TestKeygenDeterministic(t *testing.T) {
	dir := t.TempDir()
	seed := make([]byte, 32)
	for i := range seed {
		seed[i] = byte(i)
	}
	out, pub := filepath.Join(dir, "k"), filepath.Join(dir, "k.pub")
	res, err := Keygen(context.Background(), nil, KeygenOptions{Out: out, Pub: pub, Rand: bytes.NewReader(seed)})
	if err != nil {
		t.Fatal(err)
	}
	const wantPub = "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8"
	if res.PublicKey != wantPub || res.Algorithm != objects.AlgEd25519 {
		t.Fatalf("result %+v", res)
	}
	if b, _ := os.ReadFile(out); string(b) != "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n" {
		t.Errorf("seed file %q", b)
	}
	if b, _ := os.ReadFile(pub); string(b) != wantPub+"\n" {
		t.Errorf("public key file %q", b)
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o600 {
		t.Errorf("secret mode %v", st.Mode().Perm())
	}
	// Refused without Force, before anything is written; replaced with it.
	_, err = Keygen(context.Background(), nil, KeygenOptions{Out: filepath.Join(dir, "new"), Pub: pub, Rand: bytes.NewReader(seed)})
	if !errors.Is(err, ErrKeyFileExists) {
		t.Errorf("overwrite: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); err == nil {
		t.Errorf("a refused keygen wrote its secret")
	}
	os.Chmod(out, 0o644)
	if _, err := Keygen(context.Background(), nil, KeygenOptions{HMAC: true, Out: out, Force: true, Rand: bytes.NewReader(bytes.Repeat([]byte{0xab}, 32))}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	if string(b) != strings.Repeat("ab", 32)+"\n" {
		t.Errorf("hmac file %q", b)
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o600 {
		t.Errorf("forced secret mode %v", st.Mode().Perm())
	}
	for _, bad := range []KeygenOptions{{}, {HMAC: true, Out: out, Pub: pub}, {Out: out, Pub: out, Force: true}} {
		if _, err := Keygen(context.Background(), nil, bad); !errors.Is(err, ErrBadInput) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	if _, err := Keygen(context.Background(), nil, KeygenOptions{Out: filepath.Join(dir, "x"), Rand: bytes.NewReader(nil)}); err == nil {
		t.Errorf("exhausted randomness accepted")
	}
}
