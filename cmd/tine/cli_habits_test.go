package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// completeIn runs a completion script in a real shell and returns the
// candidates it offers for the command line words (the last one being
// completed).
func completeIn(t *testing.T, shell, script string, words ...string) []string {
	t.Helper()
	path, err := exec.LookPath(shell)
	if err != nil {
		t.Skipf("%s is not installed", shell)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "tine."+shell)
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	var cmd *exec.Cmd
	switch shell {
	case "bash":
		// COMP_WORDS holds the words as typed; the script is sourced as
		// a user's ~/.bashrc would.
		q := make([]string, len(words))
		for i, w := range words {
			q[i] = "'" + w + "'"
		}
		cmd = exec.Command(path, "--norc", "--noprofile", "-c",
			`source "$1"; COMP_WORDS=(`+strings.Join(q, " ")+`); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _tine; printf '%s\n' "${COMPREPLY[@]}"`, "bash", file)
	case "fish":
		cmd = exec.Command(path, "--no-config", "-c", `source $argv[1]; complete -C $argv[2]`, file, strings.Join(words, " "))
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", shell, err, out)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" {
			got = append(got, strings.Fields(l)[0])
		}
	}
	return got
}

func TestCompletionScriptsCompleteInRealShells(t *testing.T) {
	for _, shell := range []string{"bash", "fish"} {
		t.Run(shell, func(t *testing.T) {
			code, script, stderr := tineRun(t, "", "completion", shell)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			cases := []struct {
				words []string
				want  []string
			}{
				{[]string{"tine", "ru"}, []string{"runs"}},
				{[]string{"tine", "runs", "--sort-"}, []string{"--sort-by", "--sort-order"}},
				{[]string{"tine", "index", "re"}, []string{"rebuild"}},
				{[]string{"tine", "--repo", "x", "gate", "r"}, []string{"run"}},
				// global flags after a verb, as kong accepts them
				{[]string{"tine", "log", "--no-p"}, []string{"--no-pager"}},
			}
			for _, tc := range cases {
				got := completeIn(t, shell, script, tc.words...)
				if strings.Join(got, " ") != strings.Join(tc.want, " ") {
					t.Errorf("%q: got %q, want %q", tc.words, got, tc.want)
				}
			}
		})
	}
}

func TestCompletionZshScriptLoads(t *testing.T) {
	path, err := exec.LookPath("zsh")
	if err != nil {
		t.Skip("zsh is not installed")
	}
	_, script, _ := tineRun(t, "", "completion", "zsh")
	file := filepath.Join(t.TempDir(), "_tine")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(path, "-f", "-c", `autoload -U compinit && compinit -u -d "$2" && source "$1" && whence -w _tine`, "zsh", file, filepath.Join(t.TempDir(), "zcompdump")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "_tine: function") {
		t.Fatalf("zsh did not load the script: %v\n%s", err, out)
	}
}
