package main

import (
	"sort"

	"github.com/tinehq/tine/porcelain/trust"
)

// annotateCmd is `tine annotate REF --set KEY=VALUE... [--unset KEY...]`.
type annotateCmd struct {
	Target string   `arg:"" name:"ref" help:"Revision of the run annotated."`
	Set    []string `name:"set" placeholder:"KEY=VALUE" help:"Set a metadata key (repeatable)."`
	Unset  []string `name:"unset" placeholder:"KEY" help:"Remove a metadata key (repeatable)."`
	jsonFlag
}

// Help explains the chain under `tine annotate --help`.
func (c *annotateCmd) Help() string {
	return `Appends an annotation to the run's chain at annotations/<run digest>:
{"compatibility":"run-metadata-v1","previous_id","target_id",
"value":{"metadata":{...},"tags":[...]}}. Each annotation holds the whole
current metadata (the previous one's, with --set and --unset applied);
previous_id links the history. The ref moves by compare-and-swap.

Example:

    $ tine annotate heads/main --set owner=ml-team --set dataset=v3`
}

// Run appends the annotation and prints its oid.
func (c *annotateCmd) Run(e *env) error {
	if len(c.Set) == 0 && len(c.Unset) == 0 {
		return usagef("give --set KEY=VALUE or --unset KEY")
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := trust.Annotate(e.ctx, r, trust.AnnotateOptions{Target: c.Target, Set: c.Set, Unset: c.Unset})
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) {
		p.printf("%s\n", res.OID)
		if res.Unchanged {
			p.printf("unchanged: %s already holds this metadata\n", res.Ref)
		}
		keys := make([]string, 0, len(res.Metadata))
		for k := range res.Metadata {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p.printf("%s=%s\n", k, res.Metadata[k])
		}
	})
}
