// Command tine-conformance is tine's adapter for OpenTine's conformance
// suite: a long-lived process that reads one JSON request per stdin line and
// writes one JSON response per stdout line, flushed after each, as the
// suite's runner expects:
//
//	python docs/conformance/run_conformance.py --adapter tine-conformance \
//	    --level 2 --capability wtf8 --capability zlib --capability ed25519
//
// Lines may be up to 1 GiB (the suite's largest input is a 256 MiB+ pack,
// sent as base64). Diagnostics go to stderr; stdout carries responses only.
// The adapter runs the sha256 object profile, OpenTine's; with
// --object-hash blake3 it runs tine's default profile, for the blake3
// suite in testdata/conformance-blake3.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/tinehq/tine/internal/conformance"
	"github.com/tinehq/tine/objects"
)

// parseFlags reads the one option, --object-hash sha256|blake3.
func parseFlags(args []string, stderr io.Writer) (objects.Algo, error) {
	fs := flag.NewFlagSet("tine-conformance", flag.ContinueOnError)
	fs.SetOutput(stderr)
	hash := fs.String("object-hash", string(objects.SHA256), "object profile to run: sha256 (OpenTine's suite) or blake3 (testdata/conformance-blake3)")
	if err := fs.Parse(args); err != nil {
		return "", err
	}
	if fs.NArg() > 0 {
		return "", fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if a := objects.Algo(*hash); a.Valid() {
		return a, nil
	}
	return "", fmt.Errorf("--object-hash must be sha256 or blake3, not %q", *hash)
}

func main() {
	algo, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tine-conformance:", err)
		os.Exit(2)
	}
	if err := serve(os.Stdin, os.Stdout, os.Stderr, algo); err != nil {
		fmt.Fprintln(os.Stderr, "tine-conformance:", err)
		os.Exit(1)
	}
}

// serve answers requests until stdin ends. A line that is not a request
// (or is too long) still gets a response line, a refusal without a reason,
// so the runner never waits for an answer that will not come; the id is
// empty then, since it could not be read.
func serve(stdin io.Reader, stdout, stderr io.Writer, algo objects.Algo) error {
	lines := conformance.NewLineReader(stdin, conformance.MaxLineBytes)
	out := bufio.NewWriterSize(stdout, 64<<10)
	h := &conformance.Handler{Algo: algo}
	for {
		line, err := lines.Next()
		if errors.Is(err, io.EOF) {
			return out.Flush()
		}
		var resp conformance.Response
		switch {
		case errors.Is(err, conformance.ErrLineTooLong):
			resp = conformance.Response{Message: err.Error()}
		case err != nil:
			return fmt.Errorf("reading stdin: %w", err)
		case len(line) == 0:
			continue
		default:
			req, perr := conformance.ParseRequest(line)
			if perr != nil {
				resp = conformance.Response{Message: perr.Error()}
			} else {
				resp = h.Handle(req)
			}
		}
		if !resp.OK && !resp.Unsupported && resp.Reason == "" {
			fmt.Fprintf(stderr, "%s: %s\n", resp.ID, firstLine(resp.Message))
		}
		b, err := conformance.EncodeResponse(resp)
		if err != nil {
			return fmt.Errorf("encoding the response to %q: %w", resp.ID, err)
		}
		if _, err := out.Write(b); err != nil {
			return fmt.Errorf("writing stdout: %w", err)
		}
		if err := out.Flush(); err != nil {
			return fmt.Errorf("writing stdout: %w", err)
		}
	}
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
