package demo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/loops"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/porcelain/trust"
)

// The demo's release (tine demo, after the fix-the-test story).
//
// A small numeric loop tunes a parameter x toward 42 (the built-in
// numeric strategy: the score is -|x - 42|), two proposals per step, at
// most four live branches and twelve steps, recorded under
// experiments/tune/ with the best branch at experiments/tune/best.
// DemoRelease then plays a release: an Ed25519 key, a reviewed release
// policy (tine-policy.json) asking for a quality score of at least 0.9
// signed by that key, a promotion refused because nobody evaluated the
// run yet, a signed evaluation that maps the loop's best score to quality
// (see DemoQuality), the candidates query, and the promotion that now
// passes. The key is new each time (crypto/rand), like the timestamps.

// The demo release's names.
const (
	// DemoLoop is the tuning loop's name (refs experiments/DemoLoop/...).
	DemoLoop = "tune"
	// DemoPromotion is the promotion (ref promotions/DemoPromotion).
	DemoPromotion = "release"
	// DemoScore is the score the policy requires, at least DemoMinQuality.
	DemoScore      = "quality"
	DemoMinQuality = 0.9
	// DemoSigner signs the evaluation with the key DemoKeyName.
	DemoSigner  = "evaluator"
	DemoKeyName = "release"
)

// Demo loop parameters: small enough to read, long enough that the best
// branch gets within 0.1 of the target (distance 0.082 after 12 steps).
const (
	demoWidth       = 2
	demoMaxBranches = 4
	demoMaxSteps    = 12
	demoKeyFile     = "release.key"
	demoPubFile     = "release.pub"
)

// DemoPolicy is the release policy text the demo writes, as a step's
// Output.
type DemoPolicy string

// DemoReleaseResult is what DemoRelease did.
type DemoReleaseResult struct {
	// Key is the release key; Policy the policy file's path.
	Key    *plumbing.KeygenResult `json:"key"`
	Policy string                 `json:"policy"`
	// Quality is the evaluation's quality score (DemoQuality of the
	// loop's best score).
	Quality float64 `json:"quality"`
	// Refused is the promotion refused before the evaluation existed;
	// Promoted the one that passed.
	Refused    *trust.PromoteResult    `json:"refused"`
	Evaluation *trust.AttestResult     `json:"evaluation"`
	Candidates *trust.CandidatesResult `json:"candidates"`
	Promoted   *trust.PromoteResult    `json:"promoted"`
	Promotions *trust.PromotionsResult `json:"promotions"`
}

// DemoQuality maps a numeric loop score (-|x - target|, at most 0) to a
// quality in (0, 1]: 1 / (1 + distance), rounded down to three decimals so
// the printed score never overstates. A quality of 0.9 or more means x is
// within about 0.11 of the target.
func DemoQuality(score float64) float64 {
	if math.IsNaN(score) || score > 0 {
		return 0
	}
	return math.Floor(1000/(1-score)) / 1000
}

// tune runs the demo's loop.
func (d *demo) tune() (*loops.LoopRunResult, error) {
	cmd := fmt.Sprintf("loop run --strategy numeric --name %s --width %d --max-branches %d --max-steps %d",
		DemoLoop, demoWidth, demoMaxBranches, demoMaxSteps)
	d.say(cmd, "Meanwhile, a loop tunes a parameter: the numeric strategy moves x toward 42, scoring -|x - 42|; each step proposes two next states, the best continues the branch and the other is forked.")
	res, err := loops.LoopRun(d.ctx, d.r, loops.LoopRunOptions{Name: DemoLoop, Strategy: loops.LoopStrategyNumeric,
		Width: demoWidth, MaxBranches: demoMaxBranches, MaxSteps: demoMaxSteps, Now: d.opt.Now})
	if err != nil {
		return nil, fmt.Errorf("demo loop %s: %w", DemoLoop, err)
	}
	if res.Best == nil || res.BestRef == "" {
		return nil, fmt.Errorf("demo loop %s: no best branch", DemoLoop)
	}
	d.done(cmd, res, nil)
	return res, nil
}

// DemoRelease plays the release part of the demo on the repository Demo
// built (see above), narrating through opt.Step and opt.Done. It fails
// when any step does not behave as the story says: the first promotion
// must be refused for the missing score, the second must pass.
func DemoRelease(ctx context.Context, r *plumbing.Repo, opt DemoOptions, res *DemoResult) (*DemoReleaseResult, error) {
	if res == nil || res.Loop == nil || res.Loop.Best == nil {
		return nil, fmt.Errorf("demo release: the demo's loop has no best branch")
	}
	d := &demo{ctx: ctx, opt: opt, r: r}
	best := res.Loop.BestRef
	out := &DemoReleaseResult{Policy: trust.DefaultPolicyPath(r)}

	cmd := "loop show " + DemoLoop
	d.say(cmd, "The loop's trajectory, read back from the repository.")
	show, err := loops.LoopShow(ctx, r, DemoLoop)
	if err != nil {
		return nil, err
	}
	d.done(cmd, show, nil)

	cmd = fmt.Sprintf("keygen --out %s --pub %s", demoKeyFile, demoPubFile)
	d.say(cmd, "A release: first an Ed25519 key for the evaluator (demo only: the secret sits in the workspace).")
	key, err := plumbing.Keygen(ctx, nil, plumbing.KeygenOptions{
		Out: filepath.Join(opt.Dir, demoKeyFile), Pub: filepath.Join(opt.Dir, demoPubFile), Rand: opt.Rand})
	if err != nil {
		return nil, err
	}
	out.Key = key
	d.done(cmd, key, nil)

	policy := demoPolicyText(key.Fingerprint)
	d.say("", fmt.Sprintf("The release policy, %s beside .tine (a reviewed file): promotions/%s needs a %s score of at least %s, signed by that key as %s.",
		trust.PolicyFileName, DemoPromotion, DemoScore, demoNum(DemoMinQuality), DemoSigner))
	if err := os.WriteFile(out.Policy, []byte(policy), 0o644); err != nil {
		return nil, fmt.Errorf("demo policy: %w", err)
	}
	d.done("", DemoPolicy(policy), nil)

	cmd = fmt.Sprintf("promote %s --name %s", best, DemoPromotion)
	d.say(cmd, "Promoting the best branch before anyone evaluated it: refused, and the refusal names the unmet requirement.")
	out.Refused, err = trust.Promote(ctx, r, trust.PromoteOptions{Target: best, Name: DemoPromotion})
	if !errors.Is(err, trust.ErrPolicyUnmet) || out.Refused == nil {
		return nil, fmt.Errorf("demo: promoting an unevaluated run was not refused by the policy: %v", err)
	}
	d.done(cmd, out.Refused, err)

	out.Quality = DemoQuality(float64(res.Loop.Best.Score))
	q := strconv.FormatFloat(out.Quality, 'f', 3, 64)
	score, err := trust.ParseScore(DemoScore + "=" + q)
	if err != nil {
		return nil, err
	}
	cmd = fmt.Sprintf("evaluate %s --score %s=%s --signer %s --key-file %s", best, DemoScore, q, DemoSigner, demoKeyFile)
	d.say(cmd, fmt.Sprintf("The evaluator maps the best score to quality = 1 / (1 + |x - 42|): score %s is a distance of %s, so quality %s (rounded down), and signs it.",
		demoNum(float64(res.Loop.Best.Score)), demoNum(-float64(res.Loop.Best.Score)), q))
	out.Evaluation, err = trust.Evaluate(ctx, r, trust.EvaluateOptions{Target: best, Scores: []trust.Score{score}, Signer: DemoSigner,
		SignWith: trust.SignWith{KeyFile: filepath.Join(opt.Dir, demoKeyFile), Now: opt.Now}})
	if err != nil {
		return nil, err
	}
	d.done(cmd, out.Evaluation, nil)

	minQ := DemoScore + "=" + demoNum(DemoMinQuality)
	cmd = fmt.Sprintf("candidates --min-score %s --pubkey %s", minQ, demoPubFile)
	d.say(cmd, "Which runs qualify, from the catalog, each evaluation's signature checked.")
	threshold, err := trust.ParseScore(minQ)
	if err != nil {
		return nil, err
	}
	out.Candidates, err = trust.Candidates(ctx, r, trust.CandidatesOptions{Min: []trust.Score{threshold}, PubKey: filepath.Join(opt.Dir, demoPubFile)})
	if err != nil {
		return nil, err
	}
	d.done(cmd, out.Candidates, nil)

	reason := fmt.Sprintf("loop %s reached %s %s", DemoLoop, DemoScore, q)
	cmd = fmt.Sprintf("promote %s --name %s --reason %s", best, DemoPromotion, runs.ShellQuote([]string{reason}))
	d.say(cmd, "With a trusted evaluation the policy holds: promotions/"+DemoPromotion+" moves by compare-and-swap, who, why and the policy recorded.")
	out.Promoted, err = trust.Promote(ctx, r, trust.PromoteOptions{Target: best, Name: DemoPromotion, Reason: reason})
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	d.done(cmd, out.Promoted, nil)

	d.say("promotions", "")
	out.Promotions, err = trust.Promotions(ctx, r.Refs())
	if err != nil {
		return nil, err
	}
	d.done("promotions", out.Promotions, nil)
	return out, nil
}

// demoPolicyText is the demo's release policy for a key fingerprint.
func demoPolicyText(fingerprint string) string {
	return fmt.Sprintf(`{
  "version": 1,
  "keys": {
    %q: {"algorithm": "ed25519", "fingerprint": %q, "public_key_file": %q}
  },
  "promotions": {
    %q: {
      "trusted_keys": [%q],
      "signers": [%q],
      "scores": {%q: {"min": %s}}
    }
  }
}
`, DemoKeyName, fingerprint, demoPubFile, DemoPromotion, DemoKeyName, DemoSigner, DemoScore, demoNum(DemoMinQuality))
}

// demoNum formats a number the shortest way that reads back exactly.
func demoNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
