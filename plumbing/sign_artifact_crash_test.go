package plumbing

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tinehq/tine/objects"
)

// signCrashEnv names the directory a re-executed test binary signs in, in
// child mode.
const signCrashEnv = "TINE_SIGN_CRASH_DIR"

// signCrashKey is the HMAC key of the crash test, in the file "k".
const signCrashKey = "crash-test-signing-key-0123456789"

// TestSignArtifactCrashChild is the signer TestSignArtifactCrashKill
// kills. It does nothing unless the parent set signCrashEnv: then it signs
// src.tine forever, into a new file out-N.tine (the create path) and over
// latest.tine (the replace path, as --in-place and --overwrite write).
func TestSignArtifactCrashChild(t *testing.T) {
	dir := os.Getenv(signCrashEnv)
	if dir == "" {
		t.Skip("child mode of TestSignArtifactCrashKill only")
	}
	ctx := context.Background()
	src, key := filepath.Join(dir, "src.tine"), filepath.Join(dir, "k")
	for i := 0; ; i++ {
		for _, o := range []SignArtifactOptions{
			{Path: src, Output: filepath.Join(dir, fmt.Sprintf("out-%d-%d.tine", os.Getpid(), i)), KeyFile: key, HMAC: true},
			{Path: src, Output: filepath.Join(dir, "latest.tine"), Overwrite: true, KeyFile: key, HMAC: true},
		} {
			if _, err := SignArtifact(ctx, o); err != nil {
				fmt.Fprintln(os.Stderr, "sign crash child:", err)
				os.Exit(3)
			}
		}
	}
}

// TestSignArtifactCrashKill kills the signer above with SIGKILL at random
// moments and requires after every kill that each .tine file under its
// final name is whole: it parses, passes its integrity check and its
// signature verifies. Temporary files may be left; nothing else may be.
func TestSignArtifactCrashKill(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test re-executes the test binary")
	}
	if os.Getenv(signCrashEnv) != "" {
		t.Skip("in child mode")
	}
	dir := t.TempDir()
	writeCrashSource(t, dir)
	rng := rand.New(rand.NewSource(20261201))
	const rounds = 10
	for round := 0; round < rounds; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSignArtifactCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), signCrashEnv+"="+dir)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Wait for the child to be writing (its first temporary file), so
		// the kill lands inside the write loop however slow the start is.
		deadline := time.Now().Add(2 * time.Minute)
		for !hasTemp(t, dir) && time.Now().Before(deadline) {
			time.Sleep(2 * time.Millisecond)
		}
		// The last round lets one replace complete first, so the run is
		// known to have made progress whatever the machine's speed.
		for round == rounds-1 && !exists(filepath.Join(dir, "latest.tine")) && time.Now().Before(deadline) {
			time.Sleep(2 * time.Millisecond)
		}
		time.Sleep(time.Duration(rng.Intn(150)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err == nil || strings.Contains(stderr.String(), "crash child:") {
			t.Fatalf("round %d: child ended on its own: %v\n%s", round, err, stderr.String())
		}
		checkCrashOutputs(t, dir, round)
	}
	if _, err := os.Stat(filepath.Join(dir, "latest.tine")); err != nil {
		t.Fatalf("no signed file was ever completed: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	temps := 0
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			temps++
		}
	}
	t.Logf("%d rounds: %d files, %d temporary files left by kills", rounds, len(entries), temps)
}

// writeCrashSource writes the key and a finished, unsigned run of a few
// hundred KiB as src.tine, so a write takes long enough to be interrupted.
func writeCrashSource(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "artifacts", "retry.tine"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := objects.ParseArtifact(b)
	if err != nil {
		t.Fatal(err)
	}
	lines := make([]objects.Value, 8000)
	for i := range lines {
		lines[i] = objects.String(fmt.Sprintf("transcript line %d of a long run", i))
	}
	doc = setMember(doc, "transcript", objects.Array(lines...))
	digest, err := objects.IntegrityDigest(doc)
	if err != nil {
		t.Fatal(err)
	}
	md, _ := doc.Get("metadata")
	integrity := objects.ObjectValue(objects.Member{Key: "algorithm", Value: objects.String("sha256")}, objects.Member{Key: "digest", Value: objects.String(digest)})
	doc = setMember(doc, "metadata", setMember(md, "integrity", integrity))
	out, err := objects.EncodeArtifact(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "src.tine"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "k"), []byte(signCrashKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// setMember returns a copy of object v with key set to val.
func setMember(v objects.Value, key string, val objects.Value) objects.Value {
	out := objects.ObjectValue()
	for _, m := range v.Object {
		if m.Key != key {
			out.Object = append(out.Object, m)
		}
	}
	out.Object = append(out.Object, objects.Member{Key: key, Value: val})
	return out
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// hasTemp reports a temporary file of the signer in dir.
func hasTemp(t *testing.T, dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			return true
		}
	}
	return false
}

// checkCrashOutputs requires every signed file in dir to be whole.
func checkCrashOutputs(t *testing.T, dir string, round int) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case name == "src.tine" || name == "k" || strings.HasPrefix(name, ".tmp-"):
			continue
		case !strings.HasSuffix(name, ".tine"):
			t.Fatalf("round %d: unexpected file %s", round, name)
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := objects.ParseArtifact(b)
		if err != nil {
			t.Fatalf("round %d: %s is torn: %v", round, name, err)
		}
		if integ := objects.VerifyIntegrity(doc); !integ.OK {
			t.Fatalf("round %d: %s: integrity %s", round, name, integ.Reason)
		}
		if v := objects.VerifyArtifact(doc, objects.VerifyOptions{HMACKey: []byte(signCrashKey)}); !v.OK {
			t.Fatalf("round %d: %s: signature %s", round, name, v.Reason)
		}
	}
}
