package gate

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// evaluatorErrorTail bounds the output quoted from a failed evaluator.
const evaluatorErrorTail = 1000

// runRubric evaluates a rubric (SPEC §8): build one bundle, call the
// evaluator runs times, and count. Pass needs at least the quorum of
// passes; short of it, any errored or uncertain run makes the rubric
// uncertain, otherwise it fails. A run that exits non-zero, times out or
// answers anything but a valid verdict is an error run, never a pass.
func (e *Engine) runRubric(ctx context.Context, c *Constraint, env ExecEnv, red *redactor, limit int, ev *Evidence) {
	r := c.Rubric
	eval := env.Contract.Evaluator(r.Evaluator)
	if eval == nil {
		setResult(ev, Uncertain, CategoryEnvironment, fmt.Sprintf("Rubric evaluator %s is not defined", r.Evaluator))
		return
	}
	bundle, err := BuildBundle(c, env, red)
	if err != nil {
		setResult(ev, Uncertain, CategoryEnvironment, "Evaluation bundle could not be built: "+err.Error())
		return
	}
	var argv []string
	if eval.Type == "command" {
		argv = commandArgv(eval.Argv, eval.Script, eval.Shell)
		ev.Command = make([]string, len(argv))
		for i, a := range argv {
			ev.Command[i] = red.text(a)
		}
	}
	var passes, fails, uncertain, errs int
	var notes []string
	for i := 0; i < r.Runs; i++ {
		var run RubricRun
		if eval.Type == "command" {
			run = callEvaluator(ctx, argv, env, bundle, seconds(eval.TimeoutSeconds), red)
		} else {
			run = e.callProvider(ctx, eval, env, bundle, red)
		}
		ev.Runs = append(ev.Runs, run)
		switch run.Verdict {
		case Pass:
			passes++
		case Fail:
			fails++
		case Uncertain:
			uncertain++
		default:
			errs++
		}
		if run.Error != "" {
			notes = append(notes, run.Error)
		} else if run.Rationale != "" {
			notes = append(notes, run.Rationale)
		}
		if ctx.Err() != nil {
			break
		}
	}
	ev.Findings = unionFindings(ev.Runs, ev.Findings)
	ev.Output = cutTail([]byte(strings.Join(notes, "\n\n")), limit)
	q := r.Quorum()
	cat := CategoryConstraint
	if errs > 0 {
		cat = CategoryEnvironment
	}
	switch {
	case passes >= q:
		setResult(ev, Pass, "", fmt.Sprintf("Rubric passed quorum (%d/%d; required %d)", passes, r.Runs, q))
	case errs > 0 || uncertain > 0 || len(ev.Runs) < r.Runs:
		setResult(ev, Uncertain, cat, fmt.Sprintf("Rubric did not reach a reliable quorum (%d/%d passed; required %d; %d uncertain, %d errors)", passes, r.Runs, q, uncertain, errs))
	default:
		setResult(ev, Fail, cat, fmt.Sprintf("Rubric failed quorum (%d/%d passed; required %d)", passes, r.Runs, q))
	}
}

// callEvaluator runs the evaluator once with the bundle on stdin.
func callEvaluator(ctx context.Context, argv []string, env ExecEnv, bundle []byte, d time.Duration, red *redactor) RubricRun {
	res := runBounded(ctx, procSpec{argv: argv, dir: env.Root, env: env.Env, stdin: bundle, timeout: d})
	fail := func(msg string) RubricRun { return RubricRun{Verdict: Error, Error: red.text(msg)} }
	switch {
	case res.startErr != nil:
		return fail("Evaluator could not start: " + stableStartError(res.startErr))
	case res.overflow:
		return fail("Evaluator output exceeded the output limit")
	case res.timedOut:
		return fail("Evaluator timed out after " + fmtSeconds(d))
	case res.canceled:
		return fail("Evaluator was canceled")
	case !res.exited:
		return fail("Evaluator was terminated by a signal")
	case res.exitCode != 0:
		tail := red.outputTail(res.stdout, res.stderr, evaluatorErrorTail)
		return fail(fmt.Sprintf("Evaluator exited %d: %s", res.exitCode, tail))
	}
	v, err := ParseEvaluatorResponse(res.stdout)
	if err != nil {
		return fail("Evaluator response is invalid: " + err.Error())
	}
	return verdictRun(v, red)
}

// verdictRun is a parsed verdict as a run, its texts redacted.
func verdictRun(v *EvaluatorVerdict, red *redactor) RubricRun {
	run := RubricRun{Verdict: v.Verdict, Score: v.Score, Rationale: red.text(v.Rationale), Metadata: v.Metadata}
	for _, f := range v.Findings {
		f.Message, f.FilePath, f.Suggestion = red.text(f.Message), red.text(f.FilePath), red.text(f.Suggestion)
		run.findings = append(run.findings, f)
	}
	return run
}

func unionFindings(runs []RubricRun, have []Finding) []Finding {
	out := have
	for _, r := range runs {
		for _, f := range r.findings {
			dup := false
			for _, g := range out {
				dup = dup || g == f
			}
			if !dup {
				out = append(out, f)
			}
		}
	}
	return out
}
