package gate

import (
	"bytes"
	"fmt"
	"strings"
)

// PrePushMarker is the line that marks a git pre-push hook as tine's:
// setup rewrites only a hook carrying it and uninstall removes only such
// a hook.
const PrePushMarker = "# tine-gate-pre-push: managed by tine gate setup --pre-push; remove with tine gate uninstall --pre-push"

// PrePushScript is the hook text: run the push phase of the gate and let
// its exit status decide the push (git aborts the push on non-zero). exe
// and project are shell words, already quoted by the caller.
func PrePushScript(exe, project string) []byte {
	if exe == "" {
		exe = "tine"
	}
	return []byte(fmt.Sprintf("#!/bin/sh\n%s\n# The push phase ignores waivers; a blocked or pending gate aborts the push.\nexec %s gate run --phase push --project %s\n", PrePushMarker, exe, project))
}

// OwnedPrePush reports whether hook text was written by tine.
func OwnedPrePush(hook []byte) bool {
	first, rest, _ := bytes.Cut(hook, []byte("\n"))
	second, _, _ := bytes.Cut(rest, []byte("\n"))
	return bytes.HasPrefix(first, []byte("#!")) && strings.TrimSpace(string(second)) == PrePushMarker
}

// PlanPrePush decides what setup writes given the existing hook (nil when
// there is none): tine's script, or ErrForeignHook for a hook it does not
// own, which the user must merge by hand.
func PlanPrePush(existing []byte, exe, project string) ([]byte, error) {
	if existing != nil && !OwnedPrePush(existing) {
		return nil, fmt.Errorf("%w; add `tine gate run --phase push` to it yourself, or move it away and run setup again", ErrForeignHook)
	}
	return PrePushScript(exe, project), nil
}
