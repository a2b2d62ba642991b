package gate

import (
	"errors"
	"strings"
	"testing"
)

func TestPlanPrePush(t *testing.T) {
	ours, err := PlanPrePush(nil, "", `"$(git rev-parse --show-toplevel)"`)
	if err != nil {
		t.Fatal(err)
	}
	if !OwnedPrePush(ours) || !strings.Contains(string(ours), "exec tine gate run --phase push --project \"$(git rev-parse --show-toplevel)\"\n") {
		t.Fatalf("script:\n%s", ours)
	}
	// Setup again rewrites its own hook (a new executable here).
	again, err := PlanPrePush(ours, "/opt/tine", "'p'")
	if err != nil || !strings.Contains(string(again), "exec /opt/tine gate run --phase push --project 'p'") {
		t.Fatalf("rewrite: %v\n%s", err, again)
	}
	for _, foreign := range []string{"#!/bin/sh\nmake lint\n", "", "#!/bin/sh\nmake lint\n" + PrePushMarker + "\n", PrePushMarker + "\n"} {
		if OwnedPrePush([]byte(foreign)) {
			t.Errorf("%q counted as tine's", foreign)
		}
		if _, err := PlanPrePush([]byte(foreign), "", "p"); !errors.Is(err, ErrForeignHook) {
			t.Errorf("%q: got %v, want ErrForeignHook", foreign, err)
		}
	}
}

func TestLoopPrompt(t *testing.T) {
	for _, a := range LoopPromptAdapters {
		plain, err := LoopPrompt("fix", a, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"`tine gate cycle fix --json` exactly once", "next_action", "no edits at all while waiting",
			"Never edit the gate contract", "never create a waiver", "loop journal", "run one cycle", adapterShell[a]} {
			if !strings.Contains(plain, want) {
				t.Errorf("%s: prompt lacks %q", a, want)
			}
		}
		if strings.Contains(plain, "challenge submit") {
			t.Errorf("%s: a loop without challenges is told to submit challenges", a)
		}
		ch, _ := LoopPrompt("fix", a, true)
		for _, want := range []string{"tine gate challenge show fix", "tine gate challenge submit fix --file FILE", "in this session"} {
			if !strings.Contains(ch, want) {
				t.Errorf("%s: challenge prompt lacks %q", a, want)
			}
		}
	}
	if _, err := LoopPrompt("fix", "cursor", false); err == nil {
		t.Error("unknown adapter accepted")
	}
}
