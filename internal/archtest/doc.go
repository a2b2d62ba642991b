// Package archtest holds no production code: its tests enforce the package
// import table of ARCHITECTURE.md §3 and the rule that only command binaries
// print or exit. The checks are plain functions over `go list` output so the
// checker itself can be tested against a fabricated violation.
package archtest
