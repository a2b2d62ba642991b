package loose_test

import (
	"testing"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/loose"
	"github.com/tinehq/tine/objects/objectstest"
)

// TestLooseStoreFaults fails each step of the loose store's write and read
// paths in turn (objectstest.RunFaults).
func TestLooseStoreFaults(t *testing.T) {
	objectstest.RunFaults(t, func(t *testing.T, a objects.Algo, f *objectstest.Faults) objects.Store {
		s, err := loose.Open(t.TempDir(), a)
		if err != nil {
			t.Fatal(err)
		}
		loose.SetFaultHook(s, f.Hook)
		return s
	})
}
