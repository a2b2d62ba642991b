package porcelain

import "github.com/tinehq/tine/objects"

// redactBlob scrubs secrets from bytes a writer is about to store (SPEC
// §1.7 blob scrub). It runs before hashing, so no secret reaches an object.
func redactBlob(b []byte) []byte { return objects.RedactBlob(b) }

// redactValue replaces secret values in a payload (SPEC §1.7 value walk)
// and returns how many it replaced.
func redactValue(v objects.Value) (objects.Value, int) { return objects.RedactValue(v) }
