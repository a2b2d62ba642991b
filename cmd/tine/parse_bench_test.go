package main

import (
	"io"
	"testing"
)

// BenchmarkParseOneVerb measures the grammar build and parse of a short
// verb's command line, the part of every process start that run owns.
func BenchmarkParseOneVerb(b *testing.B) {
	for _, args := range [][]string{
		{"--repo", "r", "update-ref", "tags/cas", "blob:blake3:00", "--old", "blob:blake3:01"},
		{"--repo", "r", "log", "-n", "20", "heads/main"},
		{"--repo", "r", "rev-parse", "heads/main"},
	} {
		b.Run(args[2], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				g, verb := verbGrammar(args)
				if _, exited, err := parse(g, args, io.Discard, io.Discard, verb); err != nil || exited >= 0 {
					b.Fatal(err)
				}
			}
		})
	}
}
