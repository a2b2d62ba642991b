// Package bench holds tine's benchmark harness against git. The harness is
// run.sh; the commands under it are its helpers (gendata writes the data
// sets, rawb3 is the raw BLAKE3 baseline, mkloose writes a loose-object
// repository). The Go benchmarks of the same operations live beside the
// code they measure: plumbing/bench_test.go and objects/bench_large_test.go.
//
// The package itself only holds a smoke test that runs the harness at a
// tiny scale, so a broken script is caught by `go test ./...` without
// paying for a full run.
package bench
