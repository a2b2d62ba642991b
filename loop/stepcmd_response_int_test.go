package loop

import (
	"errors"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestStepResponseRefusesUnsafeIntegers pins issue 10 item 5 for step
// commands: a response integer outside ±(2^53-1) is refused with
// canon.integer-overflow and its path, not rounded into the recorded state.
func TestStepResponseRefusesUnsafeIntegers(t *testing.T) {
	in := `{"score":1,"next_states":[{"state":{"seed":9007199254740993}}]}`
	_, err := ParseStepResponse([]byte(in))
	if !errors.Is(err, ErrStepResponse) || !objects.HasReason(err, objects.ReasonCanonIntegerOverflow) ||
		!strings.Contains(err.Error(), "$.next_states[0].state.seed") {
		t.Fatalf("ParseStepResponse(2^53+1) = %v, want canon.integer-overflow at $.next_states[0].state.seed", err)
	}
	if _, err := ParseStepResponse([]byte(`{"score":9007199254740991}`)); err != nil {
		t.Fatalf("ParseStepResponse(2^53-1): %v", err)
	}
}
