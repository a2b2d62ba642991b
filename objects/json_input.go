package objects

import (
	"errors"
)

// ParseInput parses a JSON document a user hands to a writer (an event
// file, an import line, a claim, a score): ParseJSON under opt with
// RefuseUnsafeInts forced on, because OpenTine stores no integer outside
// ±(2^53-1) and rounding one to the nearest double would store a number
// nobody wrote (SPEC §0.2 rule 7). Such an integer is refused with a
// *FormatError canon.integer-overflow naming its JSON path, and a
// non-finite number (NaN, 1e999) with canon.non-finite, each wrapping the
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
	if errors.As(err, &pe) {
		switch pe.Kind {
		case ParseIntegerOverflow:
			return Value{}, &inputError{ReasonCanonIntegerOverflow, pe}
		case ParseNonFinite:
			return Value{}, &inputError{ReasonCanonNonFinite, pe}
		}
	}
	return Value{}, err
}

// inputError is a ParseInput refusal with a reason code: a *FormatError
// for ReasonOf, with the *ParseError kept for errors.As.
type inputError struct {
	reason Reason
	pe     *ParseError
}

// Error returns "<path>: <detail> (<reason>)".
func (e *inputError) Error() string {
	return e.format().Error()
}

// format is the refusal as a *FormatError.
func (e *inputError) format() *FormatError {
	path := e.pe.Path
	if path == "" {
		path = "$"
	}
	return &FormatError{Reason: e.reason, Detail: path + ": " + e.pe.Msg}
}

// Unwrap exposes both the reason and the parse error.
func (e *inputError) Unwrap() []error {
	return []error{e.format(), e.pe}
}
