package runs

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tinehq/tine/objects"
)

// ErrBadParam means a run parameter given as NAME=VALUE was refused.
var ErrBadParam = errors.New("bad parameter")

// Bounds of a declared parameter.
const (
	MaxParamNameBytes  = 128
	MaxParamValueBytes = 4096
	MaxParams          = 64
)

// Param is one run parameter a recorded event declares (NAME=VALUE). It
// is stored as attributes.params.NAME, a JSON string, on the event: see
// the package doc of porcelain/compare for how a run's parameters merge.
type Param struct {
	Name, Value string
}

// ParseParam parses NAME=VALUE: NAME is 1..128 bytes of printable text
// without "=" or spaces, VALUE at most 4096 bytes without control
// characters (it may be empty).
func ParseParam(s string) (Param, error) {
	name, value, ok := strings.Cut(s, "=")
	if !ok {
		return Param{}, fmt.Errorf("%w %q: want NAME=VALUE", ErrBadParam, s)
	}
	if name == "" {
		// Name the whole argument: an empty name alone says nothing
		// about which --param was wrong.
		return Param{}, fmt.Errorf("%w %q: the name before \"=\" is empty; want NAME=VALUE", ErrBadParam, s)
	}
	p := Param{Name: name, Value: value}
	return p, checkParam(p)
}

// checkParam refuses names and values the table could not show on a line.
func checkParam(p Param) error {
	switch {
	case p.Name == "" || len(p.Name) > MaxParamNameBytes:
		return fmt.Errorf("%w %q: the name must be 1..%d bytes", ErrBadParam, p.Name, MaxParamNameBytes)
	case strings.IndexFunc(p.Name, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }) >= 0 || !utf8.ValidString(p.Name):
		return fmt.Errorf("%w %q: the name must be printable text without spaces", ErrBadParam, p.Name)
	case len(p.Value) > MaxParamValueBytes:
		return fmt.Errorf("%w %s: the value is over %d bytes", ErrBadParam, p.Name, MaxParamValueBytes)
	case strings.IndexFunc(p.Value, unicode.IsControl) >= 0 || !utf8.ValidString(p.Value):
		return fmt.Errorf("%w %s: the value must be text on one line", ErrBadParam, p.Name)
	}
	return nil
}

// checkParams checks every parameter and refuses a name given twice.
func checkParams(ps []Param) error {
	if len(ps) > MaxParams {
		return fmt.Errorf("%w: %d parameters, at most %d", ErrBadParam, len(ps), MaxParams)
	}
	seen := map[string]bool{}
	for _, p := range ps {
		if err := checkParam(p); err != nil {
			return err
		}
		if seen[p.Name] {
			return fmt.Errorf("%w %s: given twice", ErrBadParam, p.Name)
		}
		seen[p.Name] = true
	}
	return nil
}

// withParams adds attributes.params to an event payload, redacted by red
// like the rest of the event (a secret passed as a parameter never
// reaches an object).
func withParams(red *objects.Redactor, payload objects.Value, ps []Param) objects.Value {
	if len(ps) == 0 {
		return payload
	}
	ms := make([]objects.Member, len(ps))
	for i, p := range ps {
		ms[i] = objects.Member{Key: p.Name, Value: objects.String(p.Value)}
	}
	params, _ := red.Value(objects.ObjectValue(ms...))
	attrs, _ := payload.Get("attributes")
	return derivePayload(payload, []objects.Member{{Key: "attributes", Value: derivePayload(attrs, []objects.Member{{Key: "params", Value: params}}, nil)}}, nil)
}
