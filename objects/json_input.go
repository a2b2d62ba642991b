package objects

import (
	"errors"
)

// ParseInput parses a JSON document a user hands to a writer (an event
// file, an import line, a claim, a score): ParseJSON under opt with
// RefuseUnsafeInts forced on, because OpenTine stores no integer outside
// ±(2^53-1) and rounding one to the nearest double would store a number
// nobody wrote (SPEC §0.2 rule 7). Such an integer is refused with a
// *FormatError canon.integer-overflow naming its JSON path, wrapping the
// *ParseError; every other failure is ParseJSON's *ParseError.
//
// Stored bodies are not input: DecodeEnvelope demotes (SPEC §0.2 demotion).
func ParseInput(data []byte, opt ParseOptions) (Value, error) {
	opt.RefuseUnsafeInts = true
	v, err := ParseJSON(data, opt)
	if err == nil {
		return v, nil
	}
	var pe *ParseError
	if errors.As(err, &pe) && pe.Kind == ParseIntegerOverflow {
		return Value{}, &inputIntError{pe: pe}
	}
	return Value{}, err
}

// inputIntError is ParseInput's canon.integer-overflow refusal: a
// *FormatError for ReasonOf, with the *ParseError kept for errors.As.
type inputIntError struct {
	pe *ParseError
}

// Error returns "<path>: <detail> (canon.integer-overflow)".
func (e *inputIntError) Error() string {
	return e.format().Error()
}

// format is the refusal as a *FormatError.
func (e *inputIntError) format() *FormatError {
	path := e.pe.Path
	if path == "" {
		path = "$"
	}
	return &FormatError{Reason: ReasonCanonIntegerOverflow, Detail: path + ": " + e.pe.Msg}
}

// Unwrap exposes both the reason and the parse error.
func (e *inputIntError) Unwrap() []error {
	return []error{e.format(), e.pe}
}
