package main

import (
	"strconv"

	"github.com/tinehq/tine/porcelain/trust"
)

// candidatesCmd is `tine candidates [--min-score NAME=V...] [--ref-prefix P]
// [--signer S] [--key-file K | --pubkey P] [--json]`.
type candidatesCmd struct {
	MinScore  []string `name:"min-score" placeholder:"NAME=V" help:"Keep runs whose best NAME score is at least V (repeatable)."`
	RefPrefix string   `name:"ref-prefix" placeholder:"P" help:"Keep runs named by a ref at or under P (e.g. experiments/)."`
	Signer    string   `name:"signer" placeholder:"S" help:"Count only evaluations by this signer."`
	KeyFile   string   `name:"key-file" placeholder:"K" help:"Verify the listed evaluations with this key file (HMAC secret or Ed25519 seed)."`
	PubKey    string   `name:"pubkey" placeholder:"P" help:"Verify the listed evaluations with this Ed25519 public key (file or 64 hex)."`
	jsonFlag
}

// Help shows examples under `tine candidates --help`.
func (c *candidatesCmd) Help() string {
	return `Lists evaluated runs from the derived catalog (tine index), best first
by the first --min-score's name: each run's refs and best scores, with the
evaluation that gave each score, its signer and its signature state
(unsigned, no-key; verified or mismatch when a key is given).

Examples:

    $ tine candidates --min-score accuracy=0.9 --ref-prefix experiments/
    $ tine candidates --signer ci --pubkey ci.pub --json`
}

// Run queries the catalog and prints one line per candidate score.
func (c *candidatesCmd) Run(e *env) error {
	if c.KeyFile != "" && c.PubKey != "" {
		return usagef("--key-file and --pubkey cannot be combined; give one key")
	}
	opt := trust.CandidatesOptions{RefPrefix: c.RefPrefix, Signer: c.Signer, KeyFile: c.KeyFile, PubKey: c.PubKey}
	for _, arg := range c.MinScore {
		s, err := trust.ParseScore(arg)
		if err != nil {
			return usagef("--min-score: %v", err)
		}
		opt.Min = append(opt.Min, s)
	}
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := trust.Candidates(e.ctx, r, opt)
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) { printCandidates(p, res) })
}

// printCandidates renders candidate runs with the scores that qualify them.
func printCandidates(p *printer, res *trust.CandidatesResult) {
	if len(res.Candidates) == 0 {
		p.printf("no candidates\n")
	}
	for _, cd := range res.Candidates {
		name := cd.Ref
		if name == "" {
			name = "(no ref)"
		}
		p.printf("%s %s\n", name, cd.Run)
		for _, s := range cd.Scores {
			p.printf("  %s=%s  %s by %s (%s)\n", s.Name, strconv.FormatFloat(s.Value, 'g', -1, 64), s.Attestation, s.Signer, s.State)
		}
	}
}
