package gate

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

func sampleDigestInput() DigestInput {
	return DigestInput{
		ConstraintID: "tests", ContractDigest: "c0ffee", Checkout: []byte(`{"branch":"refs/heads/main"}`),
		Spec:     []byte(`{"kind":"command"}`),
		Baseline: &BaselineInput{Present: true, Bytes: []byte(`{"schema_version":1}`)},
		Files: []WatchedFile{
			{Path: "src/b.go", Present: true, SHA256: hex.EncodeToString(make([]byte, 32))},
			{Path: "src/a.go", Err: "permission denied"},
		},
	}
}

// independentDigest recomputes the documented format without frame():
// lengths written with binary.Write into one buffer, files pre-sorted.
func independentDigest(in DigestInput) string {
	var buf bytes.Buffer
	put := func(s []byte) {
		_ = binary.Write(&buf, binary.BigEndian, uint64(len(s)))
		buf.Write(s)
	}
	buf.WriteString("tine-gate-input-v1\x00")
	put([]byte(in.ConstraintID))
	put([]byte(in.ContractDigest))
	put(in.Checkout)
	put(in.Spec)
	put([]byte("baseline-present"))
	put(in.Baseline.Bytes)
	put([]byte("src/a.go"))
	put([]byte("file-unavailable"))
	put([]byte("permission denied"))
	put([]byte("src/b.go"))
	put([]byte("file-present"))
	put([]byte(hex.EncodeToString(make([]byte, 32))))
	sum := sha256.Sum256(buf.Bytes())
	return hex.EncodeToString(sum[:])
}

func TestInputDigestGolden(t *testing.T) {
	const golden = "0a16b9081464ad306b7ffaaae12fd8223dc42b3b3443be82da1c083db8986983"
	in := sampleDigestInput()
	got, err := InputDigest(in)
	if err != nil {
		t.Fatal(err)
	}
	if got != golden {
		t.Errorf("digest %s, golden %s", got, golden)
	}
	if want := independentDigest(in); got != want {
		t.Fatalf("digest %s, independent computation %s", got, want)
	}
	// Framing: moving a byte between adjacent fields changes the digest.
	shifted := in
	shifted.ConstraintID, shifted.ContractDigest = "testsc", "0ffee"
	if d, _ := InputDigest(shifted); d == got {
		t.Fatal("framing does not separate fields")
	}
	// Each part matters.
	for name, mut := range map[string]func(*DigestInput){
		"checkout": func(d *DigestInput) { d.Checkout = []byte(`{"branch":"refs/heads/dev"}`) },
		"baseline": func(d *DigestInput) { d.Baseline = &BaselineInput{Err: "file does not exist"} },
		"rename": func(d *DigestInput) {
			d.Files = []WatchedFile{d.Files[0], {Path: "src/c.go", Err: "permission denied"}}
		},
		"delete": func(d *DigestInput) { d.Files = d.Files[:1] },
	} {
		m := sampleDigestInput()
		mut(&m)
		if d, _ := InputDigest(m); d == got {
			t.Errorf("%s did not change the digest", name)
		}
	}
	for _, bad := range []DigestInput{{}, {ConstraintID: "x", Files: []WatchedFile{{Path: "../x", Present: true, SHA256: golden}}},
		{ConstraintID: "x", Files: []WatchedFile{{Path: "a", Present: true, SHA256: "XYZ"}}}} {
		if _, err := InputDigest(bad); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}

func TestComputeInputDigestFollowsWatchedFiles(t *testing.T) {
	root := project(t, map[string]string{"src/a.go": "package a\n", "README.md": "hi\n", "node_modules/x/y.go": "x\n"})
	c := mustLoad(t, "constraints:\n  t: {kind: command, command: [go, test], watch: ['src/**/*.go', '**/*.go']}\n")
	co := Checkout{ProjectRoot: "/p", Head: "abc"}
	d1, err := ComputeInputDigest(root, c, c.Constraint("t"), co)
	if err != nil {
		t.Fatal(err)
	}
	// Deterministic; an unwatched or excluded file changes nothing.
	os.WriteFile(filepath.Join(root, "README.md"), []byte("changed\n"), 0o644)
	os.WriteFile(filepath.Join(root, "node_modules/x/y.go"), []byte("changed\n"), 0o644)
	if d2, _ := ComputeInputDigest(root, c, c.Constraint("t"), co); d2 != d1 {
		t.Fatal("an unwatched edit changed the digest")
	}
	os.WriteFile(filepath.Join(root, "src/a.go"), []byte("package a // edit\n"), 0o644)
	d3, _ := ComputeInputDigest(root, c, c.Constraint("t"), co)
	if d3 == d1 {
		t.Fatal("a watched edit kept the digest")
	}
	co.Head = "def"
	if d4, _ := ComputeInputDigest(root, c, c.Constraint("t"), co); d4 == d3 {
		t.Fatal("a new HEAD kept the digest")
	}
	files, _ := MatchingFiles(root, []string{"**/*"})
	if len(files) != 2 || files[0] != "README.md" || files[1] != "src/a.go" {
		t.Fatalf("matching files %v", files)
	}
}

func TestMatchGlob(t *testing.T) {
	cases := []struct {
		pat, path string
		want      bool
	}{
		{"**/*", "a", true}, {"**/*", "a/b/c.go", true}, {"src/**/*.py", "src/x.py", true},
		{"src/**/*.py", "src/a/b/x.py", true}, {"src/**/*.py", "lib/x.py", false}, {"*.go", "a/b.go", false},
		{"pyproject.toml", "pyproject.toml", true}, {"**/*.go", ".hidden/x.go", true}, {"src/**", "src/a/b", true},
	}
	for _, tc := range cases {
		if got := MatchGlob(tc.pat, tc.path); got != tc.want {
			t.Errorf("%s ~ %s: got %v", tc.pat, tc.path, got)
		}
	}
}
