package objects

import (
	"errors"
	"strconv"
	"strings"
)

// inPath records that err happened inside the container member or element
// named by seg. Only the failing path pays for this: the segments are
// collected innermost first as the error unwinds and joined once.
func inPath(err error, seg string) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		pe.segs = append(pe.segs, seg)
	}
	return err
}

// finishPath turns the collected segments of a *ParseError into its Path.
func finishPath(err error) error {
	var pe *ParseError
	if !errors.As(err, &pe) {
		return err
	}
	var b strings.Builder
	b.WriteByte('$')
	for i := len(pe.segs) - 1; i >= 0; i-- {
		b.WriteString(pe.segs[i])
	}
	pe.Path, pe.segs = b.String(), nil
	return err
}

// indexSeg is the path segment of array element i.
func indexSeg(i int) string {
	return "[" + strconv.Itoa(i) + "]"
}

// keySeg is the path segment of object member key: ".key" for an
// identifier, a quoted, abbreviated ["key"] otherwise.
func keySeg(key string) string {
	if isPathIdent(key) {
		return "." + key
	}
	return "[" + strconv.Quote(abbreviate(key)) + "]"
}

// isPathIdent reports whether key can stand unquoted in a path.
func isPathIdent(key string) bool {
	if key == "" || len(key) > 64 {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c != '_' && !isASCIIUpper(c) && !isASCIILower(c) && (i == 0 || !isASCIIDigit(c)) {
			return false
		}
	}
	return true
}
