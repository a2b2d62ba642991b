package runs

import "github.com/tinehq/tine/objects"

// redactBlob scrubs secrets from bytes a writer is about to store (SPEC
// §1.7 blob scrub). It runs before hashing, so no secret reaches an object.
func redactBlob(b []byte) []byte { return objects.RedactBlob(b) }

// redactValue replaces secret values in a payload (SPEC §1.7 value walk)
// and returns how many it replaced.
func redactValue(v objects.Value) (objects.Value, int) { return objects.RedactValue(v) }

// redactArgs scrubs each command-line argument as text: a secret passed on
// the command line (OPENAI_API_KEY=sk-... inside an sh -c script, a bearer
// token argument) must not reach the event any more than it may reach an
// output blob. A replay of such a command re-runs the redacted argument and
// reports drift, which is the honest outcome.
func redactArgs(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = string(redactBlob([]byte(a)))
	}
	return out
}
