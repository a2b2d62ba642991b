package runs

import (
	"strings"
	"testing"
)

// TestRedactArgs: a secret on the command line never reaches the event,
// only its redacted form; ordinary arguments are untouched.
func TestRedactArgs(t *testing.T) {
	got := redactArgs([]string{"sh", "-c", "echo OPENAI_API_KEY=sk-proj-abc123def456ghi789 >&2"})
	for _, a := range got {
		if strings.Contains(a, "sk-proj-abc123def456ghi789") {
			t.Fatalf("secret kept in argv: %q", got)
		}
	}
	if got[0] != "sh" || got[1] != "-c" || !strings.Contains(got[2], "[REDACTED]") {
		t.Fatalf("redactArgs = %q", got)
	}
}
