package conformance

import "errors"

// The sentinel errors of the package. The exported ones are those a caller
// of the runner or the line reader branches on; the rest mark refusals that
// carry no reason code because the request, not the format, is at fault.
var (
	// ErrLineTooLong reports a protocol line longer than the reader's limit.
	// The reader has already skipped the rest of that line, so the caller
	// can answer and carry on with the next one.
	ErrLineTooLong = errors.New("protocol line too long")
	// ErrTagged reports a tagged value tree that breaks the encoding's own
	// rules (a bare number, a malformed $i/$f/$u payload, a non-string key).
	ErrTagged = errors.New("malformed tagged value")
	// ErrGen reports a gen recipe that is unknown, malformed or too large.
	ErrGen = errors.New("bad gen recipe")
	// ErrFixtureAbsent reports a path input whose compat fixture is not
	// available; the runner scores such a case skip.
	ErrFixtureAbsent = errors.New("compat fixture absent")
	// ErrInputDigest reports assembled bytes that do not match input.sha256.
	ErrInputDigest = errors.New("assembled input does not match input.sha256")
	// ErrCaseInput reports a case input in none of the five spellings.
	ErrCaseInput = errors.New("case input has no known spelling")

	// errWire reports a request line that is not a JSON object of members.
	errWire = errors.New("request is not a JSON object")
	// errInputShape reports an input object that is neither {"bytes_b64"} nor {"value"}.
	errInputShape = errors.New("input must be exactly one of bytes_b64 or value")
	// errBase64 reports bytes_b64 that is not strict, padded standard base64.
	errBase64 = errors.New("bytes_b64 is not strict padded standard base64")
	// errTreeDepth reports a protocol value nested deeper than maxTreeDepth.
	errTreeDepth = errors.New("protocol value nests too deeply")
	// errTreeDuplicate reports an object with a repeated key.
	errTreeDuplicate = errors.New("protocol value repeats an object key")
	// errArgs reports args that are not the shape their op takes.
	errArgs = errors.New("malformed args")
	// errWantBytes reports a value input to an op that reads bytes.
	errWantBytes = errors.New("this op reads bytes; the request carried a value")
	// errWantValue reports a bytes input to an op that reads a value.
	errWantValue = errors.New("this op reads a value; the request carried bytes")
	// errContentUnavailable is what the args repository answers when asked
	// to read an object the case declares present without supplying its
	// bytes: it exists (a link to it resolves) but cannot be read (a chain
	// predecessor or run event behind it fails).
	errContentUnavailable = errors.New("object is present but its content was not supplied")
)
