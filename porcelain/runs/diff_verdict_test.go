package runs

import (
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestEventChangesVerdict: two gate evidence events of the same constraint
// whose verdicts differ show the verdict among the changed fields.
func TestEventChangesVerdict(t *testing.T) {
	ev := func(verdict string) *Event {
		t.Helper()
		v, err := objects.ParseJSON([]byte(`{"attributes":{"constraint_id":"tests","verdict":"`+verdict+`"},"kind":"policy","tool":"gate:tests"}`), objects.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		o, err := objects.NewJSONObject(objects.BLAKE3, objects.TypeEvent, 1, v)
		if err != nil {
			t.Fatal(err)
		}
		e, err := DecodeEvent(o)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	var got *FieldChange
	for _, c := range eventChanges(ev("fail"), ev("pass")) {
		if c.Field == "verdict" {
			c := c
			got = &c
		}
	}
	if got == nil || got.Old != "fail" || got.New != "pass" {
		t.Fatalf("verdict change = %+v, want fail -> pass", got)
	}
	for _, c := range eventChanges(ev("pass"), ev("pass")) {
		if c.Field == "verdict" {
			t.Fatalf("equal verdicts reported as changed: %+v", c)
		}
	}
}
