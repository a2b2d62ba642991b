package gates

import "testing"

// TestCycleExitCodes pins SPEC §6's exit code of every cycle state, and
// that an unknown state is an error (14) and unknown to the journal.
func TestCycleExitCodes(t *testing.T) {
	want := map[string]int{
		CyclePassed: 0, CycleRepair: 10, CycleWaiting: 11, CycleHumanRequired: 12, CycleBudgetExhausted: 13, CycleError: 14,
		CycleChallenge: 15, CycleVerify: 16,
	}
	for state, code := range want {
		if got, ok := CycleExitCode(state); !ok || got != code {
			t.Errorf("%s: exit %d (known %v), want %d", state, got, ok, code)
		}
		if got := (&CycleResult{State: state}).ExitCode(); got != code {
			t.Errorf("%s: ExitCode %d, want %d", state, got, code)
		}
	}
	if _, ok := CycleExitCode("bogus"); ok || knownCycleState("bogus") || knownCycleState("") {
		t.Error("an unknown state is known")
	}
	if got := (&CycleResult{State: "bogus"}).ExitCode(); got != 14 {
		t.Errorf("unknown state: ExitCode %d, want 14", got)
	}
}
