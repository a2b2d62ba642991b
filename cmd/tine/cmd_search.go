package main

import (
	"errors"
	"strconv"
	"strings"

	"github.com/tinehq/tine/porcelain/compare"
)

// searchCmd is `tine search WORD... [--in input|output|all] [--kind K]
// [--ref GLOB] [--limit N] [--json]`.
type searchCmd struct {
	Query []string `arg:"" name:"query" help:"Words to find; every one must occur (case-insensitive, whole words)."`
	In    string   `name:"in" enum:"input,output,all" default:"all" help:"Where to look: input (input blob, argv, cwd, input fields), output (stdout, stderr, output blob, error) or all."`
	Kind  string   `name:"kind" placeholder:"K" help:"Only events of this kind (tool, model, loop, ...)."`
	Ref   string   `name:"ref" placeholder:"GLOB" help:"Only events of runs a matching ref names (e.g. 'experiments/tune/*'; * stops at /)."`
	Limit int      `name:"limit" default:"50" help:"Show at most this many events, newest first."`
	jsonFlag
}

// Help shows examples under `tine search --help`.
func (c *searchCmd) Help() string {
	return `Finds events of the runs that refs name by the words of their payload
and of the first 64 KiB of each blob they link (a recorded command's argv,
stdout and stderr; a model step's input and output). Words are runs of
letters and digits, matched whole and case-insensitively; every word of the
query must occur. The search index (objects/catalog/search) is brought up to
date first, reading only the events it lacks; every hit is read back and
re-checked against its objects before it is shown.

Examples:

    $ tine search timeout
    $ tine search 'connection refused' --in output --kind tool
    $ tine search accuracy --ref 'experiments/tune/*' --json`
}

// Run searches and prints one block per hit.
func (c *searchCmd) Run(e *env) error {
	if c.Limit < 1 {
		return usagef("--limit must be at least 1")
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := compare.Search(e.ctx, r, compare.SearchOptions{Query: strings.Join(c.Query, " "), In: c.In, Kind: c.Kind, RefGlob: c.Ref, Limit: c.Limit})
	if errors.Is(err, compare.ErrBadQuery) {
		return usagef("%v", err)
	}
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { printSearch(p, res) })
}

// printSearch renders each hit: event, kind and label, time, refs, the
// fields that matched, and the snippet (sanitized: recorded text).
func printSearch(p *printer, res *compare.SearchResult) {
	if len(res.Hits) == 0 {
		p.printf("no events match %s\n", sanitize(strings.Join(res.Terms, " ")))
		return
	}
	for _, h := range res.Hits {
		line := p.style(styleYellow, shortOID(h.Event)) + " " + sanitize(h.Kind)
		if h.Label != "" && h.Label != h.Kind {
			line += " " + sanitize(h.Label)
		}
		if h.Time != nil {
			line += "  " + p.dim(fmtEventTime(*h.Time))
		}
		if len(h.Refs) > 0 {
			line += "  " + sanitize(h.Refs[0])
			if h.RefCount > 1 {
				line += p.dim(" (+" + strconv.Itoa(h.RefCount-1) + " refs)")
			}
		}
		line += "  [" + strings.Join(h.Fields, ",") + "]"
		p.printf("%s\n", line)
		if h.Snippet != "" {
			p.printf("    %s\n", sanitize(h.Snippet))
		}
	}
	if res.Truncated {
		p.printf("%s\n", p.dim("(more events match; raise --limit)"))
	}
}
