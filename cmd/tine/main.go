// Command tine is git for runs: a content-addressed store of agent and loop
// execution histories with compare-and-swap refs. This package is the
// command-line layer only: the kong grammar, one file per verb, text and
// JSON rendering and exit codes. Every verb calls one plumbing function and
// renders its result; nothing below this package prints or exits.
package main

import "os"

func main() {
	code, sig := runCommand(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if sig != nil {
		endBy(sig)
	}
	os.Exit(code)
}
