package refs

import (
	"fmt"
	"strings"

	"github.com/tinehq/tine/objects"
)

// Namespace is the first component of a normalized ref name.
type Namespace string

// The six ref namespaces (SPEC §2.4). There is no seventh.
const (
	NamespaceAnnotations Namespace = "annotations"
	NamespaceHeads       Namespace = "heads"
	NamespaceTags        Namespace = "tags"
	NamespaceExperiments Namespace = "experiments"
	NamespacePromotions  Namespace = "promotions"
	NamespaceRemotes     Namespace = "remotes"
)

// Namespaces lists every namespace in sorted order, the order List walks them.
var Namespaces = []Namespace{
	NamespaceAnnotations, NamespaceExperiments, NamespaceHeads,
	NamespacePromotions, NamespaceRemotes, NamespaceTags,
}

// Valid reports whether n is one of the six namespaces.
func (n Namespace) Valid() bool {
	switch n {
	case NamespaceAnnotations, NamespaceHeads, NamespaceTags,
		NamespaceExperiments, NamespacePromotions, NamespaceRemotes:
		return true
	}
	return false
}

// TargetType returns the object type refs of n must point at and true, or
// false for the untyped namespaces tags/ and remotes/ (SPEC §2.5).
func (n Namespace) TargetType() (objects.Type, bool) {
	switch n {
	case NamespaceHeads, NamespaceExperiments, NamespacePromotions:
		return objects.TypeRun, true
	case NamespaceAnnotations:
		return objects.TypeAnnotation, true
	}
	return "", false
}

// NamespaceOf returns the namespace of a ref name, normalized or not
// ("refs/heads/x" and "heads/x" both give heads). It does not validate the
// rest of the name.
func NamespaceOf(name string) Namespace {
	ns, _, _ := strings.Cut(strings.TrimPrefix(name, "refs/"), "/")
	return Namespace(ns)
}

// Bounds of SPEC §1.6 on names.
const (
	MaxNameBytes      = 512
	MaxComponentBytes = 240
)

// NormalizeName validates a ref name and returns its normalized spelling:
// the name with a leading "refs/" removed (SPEC §2.4). Errors are
// *objects.FormatError with one of the ref.name-* / ref.component-* reasons.
//
// The checks run in a fixed order so that each input gets the most telling
// code: namespace, then non-ASCII (charset, before any case rule: a
// non-ASCII letter is a charset error even when it has a lowercase form),
// then case folding, then the ASCII charset, then the total length, then
// each component in turn.
func NormalizeName(s string) (string, error) {
	name := strings.TrimPrefix(s, "refs/")
	ns, rest, ok := strings.Cut(name, "/")
	if !ok || !Namespace(ns).Valid() {
		return "", objects.Errorf(objects.ReasonRefNameNamespace, "ref %.80q: namespace must be one of annotations, heads, tags, experiments, promotions, remotes", s)
	}
	for i := 0; i < len(name); i++ {
		if name[i] >= 0x80 {
			return "", objects.Errorf(objects.ReasonRefNameCharset, "ref %.80q: non-ASCII byte at offset %d", s, i)
		}
	}
	// SPEC §2.4: the name must equal its own casefold. For ASCII input the
	// Unicode casefold is exactly ASCII lowercasing.
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= 'A' && c <= 'Z' {
			return "", objects.Errorf(objects.ReasonRefNameNotCasefolded, "ref %.80q: uppercase %q; ref names are case-folded", s, c)
		}
	}
	for i := 0; i < len(name); i++ {
		if !nameByte(name[i]) {
			return "", objects.Errorf(objects.ReasonRefNameCharset, "ref %.80q: character %q is outside [a-z0-9._/-]", s, name[i])
		}
	}
	if len(name) > MaxNameBytes {
		return "", objects.Errorf(objects.ReasonRefNameTooLong, "ref %.80q...: %d bytes, limit %d", s, len(name), MaxNameBytes)
	}
	for _, c := range strings.Split(rest, "/") {
		if r, why := checkComponent(c); r != "" {
			return "", objects.Errorf(r, "ref %.80q: %s", s, why)
		}
	}
	return name, nil
}

// nameByte reports whether c is in the ref charset [a-z0-9._/-].
func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '/' || c == '-'
}

// windowsDevices are the reserved stems of SPEC §2.4: a component whose
// part before the first '.' is one of these cannot be a file on Windows.
var windowsDevices = map[string]bool{
	"con": true, "prn": true, "aux": true, "nul": true,
	"com1": true, "com2": true, "com3": true, "com4": true, "com5": true,
	"com6": true, "com7": true, "com8": true, "com9": true,
	"lpt1": true, "lpt2": true, "lpt3": true, "lpt4": true, "lpt5": true,
	"lpt6": true, "lpt7": true, "lpt8": true, "lpt9": true,
}

// checkComponent applies the per-component rules of SPEC §2.4 to one
// component of an already charset-checked name. It returns the reason and
// an explanation, or "" when the component is legal.
func checkComponent(c string) (objects.Reason, string) {
	if len(c) > MaxComponentBytes {
		return objects.ReasonRefComponentTooLong, fmt.Sprintf("component of %d bytes, limit %d", len(c), MaxComponentBytes)
	}
	switch {
	case c == "" || c == "." || c == "..":
		return objects.ReasonRefComponentReserved, fmt.Sprintf("component %q is reserved", c)
	case strings.Contains(c, ".."):
		return objects.ReasonRefComponentReserved, fmt.Sprintf("component %q contains \"..\"", c)
	case strings.HasSuffix(strings.ToLower(c), ".lock"):
		// The guard is <ref>.lock, so no ref may end in .lock.
		return objects.ReasonRefComponentReserved, fmt.Sprintf("component %q ends in .lock", c)
	case strings.HasSuffix(c, "."):
		return objects.ReasonRefComponentReserved, fmt.Sprintf("component %q ends in '.'", c)
	}
	stem, _, _ := strings.Cut(c, ".")
	if windowsDevices[stem] {
		return objects.ReasonRefComponentWindowsDevice, fmt.Sprintf("component %q is the Windows device name %q", c, stem)
	}
	return "", ""
}
