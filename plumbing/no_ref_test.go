package plumbing

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// TestRefNameNoRef checks RefName's errors for names no ref has: a bare
// word says no ref is named so and lists where it looked, while a name
// with an explicit bad namespace keeps the namespace rule.
func TestRefNameNoRef(t *testing.T) {
	forEachAlgo(t, func(t *testing.T, r *Repo) {
		ctx := context.Background()
		_, err := r.RefName(ctx, "nothing")
		var nr *NoRefError
		if !errors.As(err, &nr) || !errors.Is(err, ErrUnknownRevision) {
			t.Fatalf("bare word: %v", err)
		}
		if reason, _ := objects.ReasonOf(err); reason != objects.ReasonRefNameNamespace {
			t.Errorf("bare word: reason %q, want the namespace rule still", reason)
		}
		if want := `no ref is named "nothing" (tried heads/nothing, tags/nothing, experiments/nothing, promotions/nothing, remotes/nothing, annotations/nothing)`; err.Error() != want {
			t.Errorf("bare word: %q, want %q", err, want)
		}
		_, err = r.RefName(ctx, "foo/bar")
		if errors.As(err, &nr) || !strings.Contains(err.Error(), "namespace must be one of") {
			t.Errorf("explicit bad namespace: %v", err)
		}
		if name, err := r.RefName(ctx, "heads/new"); err != nil || name != "heads/new" {
			t.Errorf("full name of no ref: %q, %v", name, err)
		}
		_, err = r.RefName(ctx, "Main")
		if errors.As(err, &nr) {
			t.Errorf("illegal bare word: %v", err)
		}
	})
}
