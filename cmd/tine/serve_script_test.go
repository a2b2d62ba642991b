package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestServeScripts runs the testdata/script-serve sessions: each starts
// `tine serve` in the background on 127.0.0.1 (port 0, --ready-file) and
// drives it with tine's own client verbs over real HTTP.
func TestServeScripts(t *testing.T) {
	testscript.Run(t, scriptParams("script-serve", map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"capture":  cmdCapture,
		"waitfile": cmdWaitFile,
		"http":     cmdHTTP,
		"oidckey":  cmdOIDCKey,
		"mintjwt":  cmdMintJWT,
		"tamper":   cmdTamper,
		"tear":     cmdTear,
	}))
}

// cmdWaitFile is the script command `waitfile NAME FILE`: it waits (up to
// two minutes: CI machines are slow, and nothing here measures time) for
// FILE to exist, as a background `tine serve --ready-file FILE` writes it
// once it listens, and sets NAME to its first line (the server's URL).
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfile NAME FILE")
	}
	path := ts.MkAbs(args[1])
	deadline := time.Now().Add(2 * time.Minute)
	for {
		b, err := os.ReadFile(path)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			ts.Setenv(args[0], strings.TrimSpace(string(b)))
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfile: %s did not appear", args[1])
		}
		time.Sleep(20 * time.Millisecond)
	}
}
