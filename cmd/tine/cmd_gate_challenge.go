package main

import (
	"github.com/tinehq/tine/porcelain/gates"
)

// gateChallengeCmd is `tine gate challenge show|submit LOOP`.
type gateChallengeCmd struct {
	Show   gateChallengeShowCmd   `cmd:"" help:"Print a challenge loop's open request, its recorded challenges and the submission schema."`
	Submit gateChallengeSubmitCmd `cmd:"" help:"Submit challenges or their resolutions (a JSON file) for a challenge loop."`
}

// Help explains session challenges under `tine gate challenge --help`.
func (c *gateChallengeCmd) Help() string {
	return `A loop with a challenge block does not pass when its required
constraints pass: the agent must first write challenges against its own work
(state challenge, exit 15), then resolve each one at the current inputs
(state verify, exit 16). A defect sends the loop to repair. The ledger is
kept in the loop's journal; each accepted submission changes the request id,
so a submission cannot be replayed.

Example:

    $ tine gate cycle review          # exit 15: challenge
    $ tine gate challenge show review
    $ tine gate challenge submit review --file challenges.json
    $ tine gate cycle review          # exit 16: verify`
}

// gateChallengeShowCmd is `tine gate challenge show LOOP`.
type gateChallengeShowCmd struct {
	gateProject
	Name string `arg:"" name:"loop" help:"Loop name from the contract's loops."`
	jsonFlag
}

// Help shows an example under `tine gate challenge show --help`.
func (c *gateChallengeShowCmd) Help() string {
	return `A submission must quote the request_id and input_snapshot shown; --json
gives them as fields.

Example:

    $ tine gate challenge show review
    loop review: verify, round 1 of 1, expecting resolutions
    request_id: 9de2ce13247f8f3cab98faec85b61bbf
    input_snapshot: blob:sha256:505f0a5d...
    challenges per round: 3
      c1 [round 1, unresolved]: divide by zero
      c2 [round 1, unresolved]: fractional inputs
      c3 [round 1, unresolved]: two callers at once
    verifiable constraints: [tests]
    submission schema:
    {...}`
}

// Run prints the request.
func (c *gateChallengeShowCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	req, err := gates.ShowChallenge(r, c.Name, c.Project)
	if err != nil {
		return err
	}
	return e.emit(c.JSON, req, func(p *printer) {
		p.printf("loop %s: %s, round %d of %d, expecting %s\n", req.Loop, req.State, req.Round, req.MaxRounds, req.Expect)
		p.printf("request_id: %s\ninput_snapshot: %s\n", req.RequestID, req.InputSnapshot)
		p.printf("challenges per round: %d\n", req.Count)
		for _, ch := range req.Challenges {
			status := "unresolved"
			if ch.Resolution != nil {
				status = ch.Resolution.Outcome
				if !ch.Current {
					status += " (stale: the inputs changed)"
				}
			}
			p.printf("  %s [round %d, %s]: %s\n", ch.ID, ch.Round, status, ch.Scenario)
		}
		p.printf("verifiable constraints: %v\n", req.VerifiableConstraints)
		p.printf("submission schema:\n%s", req.SubmissionSchema)
	})
}

// gateChallengeSubmitCmd is `tine gate challenge submit LOOP --file F`.
type gateChallengeSubmitCmd struct {
	gateProject
	Name string `arg:"" name:"loop" help:"Loop name from the contract's loops."`
	File string `name:"file" required:"" placeholder:"FILE" help:"JSON submission (at most 1 MiB)."`
	jsonFlag
}

// Help shows an example under `tine gate challenge submit --help`.
func (c *gateChallengeSubmitCmd) Help() string {
	return `The file answers the open request (tine gate challenge show): its
request_id and input_snapshot, then exactly the requested number of
challenges, or resolutions of the open ones.

Example:

    $ tine gate challenge submit review --file challenges.json
    loop review: 3 challenges accepted (round 1); run one cycle next`
}

// Run records the submission.
func (c *gateChallengeSubmitCmd) Run(e *env) error {
	r, err := e.openRepo()
	if err != nil {
		return err
	}
	defer r.Close()
	res, err := gates.SubmitChallenge(e.ctx, r, c.Name, c.Project, c.File, nil)
	if err != nil {
		return err
	}
	return e.emit(c.JSON, res, func(p *printer) {
		p.printf("loop %s: %d %s accepted (round %d); run one cycle next\n", res.Loop, res.Count, res.Accepted, res.Round)
	})
}
