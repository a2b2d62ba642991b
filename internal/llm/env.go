package llm

import "os"

// lookupProcessEnv reads the process environment; it is the one place the
// package touches os, so tests pass env explicitly.
func lookupProcessEnv(name string) string { return os.Getenv(name) }
