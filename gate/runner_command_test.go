package gate

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// project writes files into a fresh project root.
func project(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func execOne(t *testing.T, root, contract, id string, env []string) *Evidence {
	t.Helper()
	c := mustLoad(t, contract)
	ev, err := NewEngine(time.Now).Execute(context.Background(), c.Constraint(id), ExecEnv{Root: root, Contract: c, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func shellContract(script string, extra string) string {
	return "constraints:\n  c:\n    kind: command\n    shell: true\n    command: " + strconv.Quote(script) + "\n" + extra
}

func TestCommandVerdicts(t *testing.T) {
	root := project(t, nil)
	cases := []struct {
		script string
		want   Verdict
		cat    Category
		code   int
	}{
		{"echo ok", Pass, "", 0},
		{"echo broken >&2; exit 3", Fail, CategoryConstraint, 3},
		{"exit 75", Pending, "", 75},
	}
	for _, tc := range cases {
		ev := execOne(t, root, shellContract(tc.script, ""), "c", []string{"PATH=/usr/bin:/bin"})
		if ev.Verdict != tc.want || ev.Category != tc.cat || ev.ExitCode == nil || *ev.ExitCode != tc.code {
			t.Errorf("%q: got %s/%s/%v %q", tc.script, ev.Verdict, ev.Category, ev.ExitCode, ev.Message)
		}
	}
	ev := execOne(t, root, "constraints:\n  c: {kind: command, command: [/nonexistent/tool]}\n", "c", nil)
	if ev.Verdict != Error || ev.Category != CategoryEnvironment || !strings.Contains(ev.Message, "could not start") {
		t.Fatalf("missing tool: %s %q", ev.Verdict, ev.Message)
	}
	ev = execOne(t, root, "constraints:\n  c: {kind: command, command: [x], cwd: nowhere}\n", "c", nil)
	if ev.Verdict != Error || ev.Category != CategoryEnvironment {
		t.Fatalf("missing cwd: %s %q", ev.Verdict, ev.Message)
	}
}

func TestHugeOutputIsCappedAndRedactedBeforeTruncation(t *testing.T) {
	root := project(t, nil)
	// 9 MiB of output: more than the 8 MiB collection cap.
	ev := execOne(t, root, shellContract("head -c 9437184 /dev/zero | tr '\\0' x", ""), "c", nil)
	if ev.Verdict != Error || !strings.Contains(ev.Message, "exceeded") {
		t.Fatalf("got %s %q", ev.Verdict, ev.Message)
	}
	if len(ev.Output) > 65536 || !strings.HasPrefix(string(ev.Output), truncatedPrefix) {
		t.Fatalf("output tail %d bytes, prefix %q", len(ev.Output), ev.Output[:20])
	}
	// A secret that straddles the cut: truncating first would leave its
	// tail unrecognisable; redacting first removes all of it.
	secret := "sk-proj-" + strings.Repeat("A1b2C3d4", 8)
	limit := 1024
	filler := strings.Repeat("y", limit-len(truncatedPrefix)-20)
	script := "printf '%s' 'api_key=" + secret + "'; printf '%s' '" + filler + "'"
	ev = execOne(t, root, shellContract(script, "")+"settings:\n  evidence_output_limit: 1024\n", "c", []string{"PATH=/usr/bin:/bin"})
	if ev.Verdict != Pass || len(ev.Output) > limit {
		t.Fatalf("got %s, %d bytes", ev.Verdict, len(ev.Output))
	}
	for i := 0; i+8 <= len(secret); i++ {
		if strings.Contains(string(ev.Output), secret[i:i+8]) {
			t.Fatalf("secret fragment %q leaked in %q", secret[i:i+8], ev.Output[:80])
		}
	}
}

func TestSecretsInOutputAreRedacted(t *testing.T) {
	root := project(t, nil)
	env := []string{"PATH=/usr/bin:/bin", "MY_SERVICE_TOKEN=hunter2hunter2"}
	ev := execOne(t, root, shellContract("echo token is $MY_SERVICE_TOKEN; echo 'password: swordfish99' >&2; exit 1", ""), "c", env)
	out := string(ev.Output)
	if strings.Contains(out, "hunter2hunter2") || strings.Contains(out, "swordfish99") || !strings.Contains(out, "[REDACTED]") {
		t.Fatalf("output not redacted: %q", out)
	}
}

func TestRetryPolicy(t *testing.T) {
	root := project(t, nil)
	// Fails with 1 the first time, passes the second.
	script := "if [ -f marker ]; then exit 0; fi; touch marker; exit 1"
	ev := execOne(t, root, shellContract(script, "    retry: {max_attempts: 3, delay_seconds: 0}\n"), "c", nil)
	if ev.Verdict != Pass || len(ev.Attempts) != 2 || ev.Message != "Command passed after 2 attempts" {
		t.Fatalf("got %s %d %q", ev.Verdict, len(ev.Attempts), ev.Message)
	}
	// Exit 2 is not in exit_codes: no retry.
	ev = execOne(t, root, shellContract("exit 2", "    retry: {max_attempts: 3, delay_seconds: 0}\n"), "c", nil)
	if ev.Verdict != Fail || len(ev.Attempts) != 1 {
		t.Fatalf("got %s %d", ev.Verdict, len(ev.Attempts))
	}
}
