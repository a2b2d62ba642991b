package gates

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGateCheckout(t *testing.T) {
	root := t.TempDir()
	co, err := GateCheckout(root)
	if err != nil || co.ProjectRoot == "" || co.GitDir != "" || co.Head != "" {
		t.Fatalf("non-git checkout %+v, %v", co, err)
	}
	git := filepath.Join(root, ".git")
	write := func(rel, s string) {
		t.Helper()
		p := filepath.Join(git, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("HEAD", "ref: refs/heads/main\n")
	sub := filepath.Join(root, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if co, err = GateCheckout(sub); err != nil || co.Branch != "refs/heads/main" || co.Head != "" || !strings.HasSuffix(co.GitDir, "/.git") {
		t.Fatalf("unborn branch %+v, %v", co, err)
	}
	head := strings.Repeat("a1", 20)
	write("packed-refs", "# pack-refs\n"+head+" refs/heads/main\n")
	if co, err = GateCheckout(root); err != nil || co.Head != head {
		t.Fatalf("packed ref %+v, %v", co, err)
	}
	loose := strings.Repeat("b2", 20)
	write("refs/heads/main", loose+"\n")
	if co, err = GateCheckout(root); err != nil || co.Head != loose {
		t.Fatalf("loose ref %+v, %v", co, err)
	}
	write("HEAD", head+"\n")
	if co, err = GateCheckout(root); err != nil || co.Branch != "" || co.Head != head {
		t.Fatalf("detached %+v, %v", co, err)
	}
	for _, bad := range []string{"garbage\n", "ref: ../../etc/passwd\n"} {
		write("HEAD", bad)
		if _, err := GateCheckout(root); err == nil {
			t.Fatalf("HEAD %q accepted: evidence must not be keyed by a guessed checkout", bad)
		}
	}
}
