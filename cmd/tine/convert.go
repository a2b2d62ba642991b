package main

import "github.com/tinehq/tine/porcelain/runs"

// setString assigns a flag's text to a string-kinded field of a plumbing
// options struct (an object type, a hash name). Type inference names the
// field's type, so cmd/tine fills those fields without importing the
// objects package: ARCHITECTURE.md §3 lets it import porcelain and plumbing
// only, and plumbing validates the value.
func setString[T ~string](dst *T, s string) { *dst = T(s) }

// parseParams parses `tine record --param NAME=VALUE` flags; a malformed
// one is a usage error.
func parseParams(args []string) ([]runs.Param, error) {
	out := make([]runs.Param, 0, len(args))
	for _, a := range args {
		p, err := runs.ParseParam(a)
		if err != nil {
			return nil, usagef("--param: %v", err)
		}
		out = append(out, p)
	}
	return out, nil
}
