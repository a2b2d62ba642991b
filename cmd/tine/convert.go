package main

// setString assigns a flag's text to a string-kinded field of a plumbing
// options struct (an object type, a hash name). Type inference names the
// field's type, so cmd/tine fills those fields without importing the
// objects package: ARCHITECTURE.md §3 lets it import porcelain and plumbing
// only, and plumbing validates the value.
func setString[T ~string](dst *T, s string) { *dst = T(s) }
