package gate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
)

// runMeasure evaluates a metric or ratchet: run the command as a command
// constraint, then (only after a pass) parse the value and compare it with
// the threshold or the committed baseline (SPEC §2 metric and ratchet
// runners). A parse failure is ERROR (environment), never a pass.
func (e *Engine) runMeasure(ctx context.Context, c *Constraint, env ExecEnv, red *redactor, limit int, ev *Evidence) {
	run := e.execCommand(ctx, c, env, red, limit, ev)
	if ev.Verdict != Pass || run == nil {
		return
	}
	source, err := metricSource(c.Parser, run)
	if err != nil {
		setResult(ev, Error, CategoryEnvironment, "Metric source is unreadable: "+stableError(err))
		return
	}
	sum := sha256.Sum256(source)
	ev.MetricSHA256 = hex.EncodeToString(sum[:])
	value, err := ParseMetric(c.Parser, source)
	if err != nil {
		setResult(ev, Error, CategoryEnvironment, "Metric could not be parsed: "+err.Error())
		return
	}
	ev.Value = floatPtr(value)
	ev.Details = map[string]string{"value": fmtNum(value)}
	if c.Kind == KindRatchet {
		compareBaseline(c, env, value, ev)
		return
	}
	t := c.Threshold
	delta := value - t.Value
	ev.Baseline, ev.Delta = floatPtr(t.Value), floatPtr(delta)
	ev.Details["operator"], ev.Details["threshold"], ev.Details["delta"] = t.Operator, fmtNum(t.Value), fmtNum(delta)
	ok, err := Compare(t.Operator, value, t.Value)
	switch {
	case err != nil:
		setResult(ev, Error, CategoryEnvironment, err.Error())
	case ok:
		setResult(ev, Pass, "", fmt.Sprintf("Metric %s %s %s", fmtNum(value), t.Operator, fmtNum(t.Value)))
	default:
		setResult(ev, Fail, CategoryConstraint, fmt.Sprintf("Metric %s is not %s %s", fmtNum(value), t.Operator, fmtNum(t.Value)))
	}
}

// metricSource returns the text the parser reads: stdout, stderr, or a
// file confined to the constraint's cwd.
func metricSource(p *MetricParser, run *commandRun) ([]byte, error) {
	switch p.Source {
	case "stderr":
		return run.res.stderr, nil
	case "file":
		return readConfined(run.cwd, p.File, MaxCollectedOutput)
	}
	return run.res.stdout, nil
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
