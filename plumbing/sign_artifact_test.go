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

// artifactFixture copies testdata/artifacts/name into dir with mode perm.
func artifactFixture(t *testing.T, dir, name string, perm os.FileMode) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "artifacts", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, filepath.Base(name))
	if err := os.WriteFile(p, b, perm); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeKey writes key material and LF to dir/name.
func writeKey(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSignArtifactWritesAVerifyingCopy: the output verifies under the key
// through Verify, keeps the input's mode, and the input is untouched.
func TestSignArtifactWritesAVerifyingCopy(t *testing.T) {
	dir := t.TempDir()
	in := artifactFixture(t, dir, "retry.tine", 0o640)
	before, _ := os.ReadFile(in)
	seed := writeKey(t, dir, "ci.key", strings.Repeat("ab", 32))
	out := filepath.Join(dir, "signed.tine")
	res, err := SignArtifact(context.Background(), SignArtifactOptions{Path: in, Output: out, KeyFile: seed, Signer: "ci", SignedAt: "2026-01-01T00:00:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != "artifact" || res.Algorithm != objects.AlgEd25519 || res.Scheme != objects.SchemeSigV2 || *res.Signer != "ci" || res.KeyID != nil {
		t.Fatalf("result %+v", res)
	}
	if after, _ := os.ReadFile(in); !bytes.Equal(before, after) {
		t.Fatal("the input changed")
	}
	if fi, _ := os.Stat(out); fi.Mode().Perm() != 0o640 {
		t.Fatalf("output mode %v, want the input's 0640", fi.Mode().Perm())
	}
	v, err := Verify(context.Background(), nil, VerifyOptions{Target: out, KeyFile: seed})
	if err != nil {
		t.Fatal(err)
	}
	if !v.OK || v.Signature.State != objects.StateVerified || v.Signature.Fingerprint != res.Fingerprint {
		t.Fatalf("verify: ok %v state %s fingerprint %s", v.OK, v.Signature.State, v.Signature.Fingerprint)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Fatalf("files left in the directory: %v", entries)
	}
}

// TestSignArtifactOutputRules: an existing output is refused unless
// overwrite is asked for; the input is rewritten only in place; the output
// cannot name the input.
func TestSignArtifactOutputRules(t *testing.T) {
	dir := t.TempDir()
	in := artifactFixture(t, dir, "retry.tine", 0o644)
	key := writeKey(t, dir, "ci.hmac", "fixture-signing-key-0123456789ab")
	out := filepath.Join(dir, "out.tine")
	if err := os.WriteFile(out, []byte("occupied"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := SignArtifactOptions{Path: in, KeyFile: key, HMAC: true}
	ctx := context.Background()

	opt := base
	opt.Output = out
	if _, err := SignArtifact(ctx, opt); !errors.Is(err, ErrSignOutputExists) || !strings.Contains(err.Error(), "--overwrite") {
		t.Fatalf("existing output: err = %v", err)
	}
	if b, _ := os.ReadFile(out); string(b) != "occupied" {
		t.Fatal("a refused write replaced the output")
	}
	opt.Overwrite = true
	if _, err := SignArtifact(ctx, opt); err != nil {
		t.Fatal(err)
	}
	if v, _ := Verify(ctx, nil, VerifyOptions{Target: out, KeyFile: key}); !v.OK {
		t.Fatalf("overwritten output does not verify: %s", v.Problem)
	}

	for name, o := range map[string]SignArtifactOptions{
		"no destination":       base,
		"output and in place":  {Path: in, Output: out, InPlace: true, KeyFile: key, HMAC: true},
		"overwrite in place":   {Path: in, InPlace: true, Overwrite: true, KeyFile: key, HMAC: true},
		"output is the input":  {Path: in, Output: filepath.Join(dir, ".", "retry.tine"), Overwrite: true, KeyFile: key, HMAC: true},
		"signed-at not a time": {Path: in, Output: filepath.Join(dir, "x.tine"), SignedAt: "yesterday", KeyFile: key, HMAC: true},
	} {
		if _, err := SignArtifact(ctx, o); !errors.Is(err, ErrBadInput) {
			t.Errorf("%s: err = %v, want ErrBadInput", name, err)
		}
	}

	before, _ := os.ReadFile(in)
	opt = base
	opt.InPlace = true
	if _, err := SignArtifact(ctx, opt); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(in)
	if bytes.Equal(before, after) {
		t.Fatal("in-place signing left the input as it was")
	}
	if v, _ := Verify(ctx, nil, VerifyOptions{Target: in, KeyFile: key}); !v.OK {
		t.Fatalf("signed in place, does not verify: %s", v.Problem)
	}
	if _, err := SignArtifact(ctx, opt); !errors.Is(err, objects.ErrArtifactSigned) {
		t.Fatalf("signing twice: err = %v", err)
	}
}

// TestSignArtifactRefusesWithoutWriting: a refused artifact (integrity
// failure) or key leaves no output and no temporary file.
func TestSignArtifactRefusesWithoutWriting(t *testing.T) {
	dir := t.TempDir()
	in := artifactFixture(t, dir, "tampered.tine", 0o644)
	key := writeKey(t, dir, "ci.hmac", "fixture-signing-key-0123456789ab")
	short := writeKey(t, dir, "short.hmac", "fifteen-bytes!!")
	ctx := context.Background()
	out := filepath.Join(dir, "out.tine")
	if _, err := SignArtifact(ctx, SignArtifactOptions{Path: in, Output: out, KeyFile: key, HMAC: true}); !errors.Is(err, objects.ErrArtifactIntegrity) {
		t.Fatalf("tampered: err = %v", err)
	}
	good := artifactFixture(t, dir, "retry.tine", 0o644)
	if _, err := SignArtifact(ctx, SignArtifactOptions{Path: good, Output: out, KeyFile: short, HMAC: true}); !errors.Is(err, objects.ErrWeakHMACKey) {
		t.Fatalf("short key: err = %v", err)
	}
	if _, err := os.Lstat(out); !os.IsNotExist(err) {
		t.Fatal("a refused signing wrote the output")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		t.Fatalf("directory holds %v", entries)
	}
}
