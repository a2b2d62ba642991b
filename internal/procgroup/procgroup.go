// Package procgroup starts child processes as the leaders of their own
// process group, so that a timeout or a cancellation stops everything a
// command started (a shell's children included), not just the command.
// Gate constraints, loop step commands and replayed commands all use it.
package procgroup
