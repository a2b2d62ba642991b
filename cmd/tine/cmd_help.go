package main

import (
	"strings"
)

// helpCmd is `tine help [VERB...]`: the help of a verb, as VERB --help
// prints it, or the verb list.
type helpCmd struct {
	Verb []string `arg:"" optional:"" name:"verb" help:"The verb (and subcommand) to explain: runs, index rebuild, gate run, ..."`
}

// Help shows an example under `tine help --help`.
func (c *helpCmd) Help() string {
	return `Prints what tine VERB --help prints; with no verb, the list of verbs.

Examples:

    $ tine help runs
    $ tine help index rebuild`
}

// Run prints the help through the full grammar, so it is exactly what
// --help shows.
func (c *helpCmd) Run(e *env) error {
	for _, w := range c.Verb {
		if strings.HasPrefix(w, "-") {
			return usagef("help takes verb names, not flags (%s)", w)
		}
	}
	args := append(append([]string{}, c.Verb...), "--help")
	_, exited, err := parse(&cli{}, args, e.stdout, e.stderr)
	switch {
	case exited == exitOK:
		return nil
	case exited < 0 && err != nil:
		return usagef("no verb %q; tine help lists them", strings.Join(c.Verb, " "))
	}
	return &silentError{code: exitUsage}
}
