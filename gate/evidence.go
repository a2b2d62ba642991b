package gate

import "time"

// Evidence is the result of evaluating one constraint once: what the
// persistence layer stores as a gate run's event (ARCHITECTURE §4) and
// what Decide, Reusable and the waiver rules read (SPEC §2
// ConstraintResult).
type Evidence struct {
	ConstraintID string
	Kind         Kind
	Enforcement  Enforcement
	Verdict      Verdict
	// Message is one redacted line saying why.
	Message string
	// InputDigest is the digest the evidence was produced for.
	InputDigest string
	// Category is set for non-pass results.
	Category Category
	// Command is the redacted command line that ran (argv; a shell command
	// is ["sh", "-c", script]); nil for artifacts and dependency blocks.
	Command []string
	// ExitCode is the last attempt's exit code; nil when none.
	ExitCode *int
	// Value is the parsed metric or ratchet value.
	Value *float64
	// Baseline is the ratchet baseline, or the metric threshold value.
	Baseline *float64
	// Delta is value - threshold (metric) or value - baseline (ratchet).
	Delta *float64
	// MetricSHA256 is the hex SHA-256 of the raw metric source text
	// (SPEC evidence_sha256).
	MetricSHA256 string
	// Details holds structured, redacted facts (artifact evidence paths,
	// operator, mode), name to text.
	Details map[string]string
	// BlockedBy lists the dependencies that kept this constraint from
	// running, sorted; empty when it ran.
	BlockedBy []string
	// Output is the redacted tail of stdout and stderr, at most
	// Settings.EvidenceOutputLimit bytes, redacted before it was cut.
	Output []byte
	// Attempts records every command attempt.
	Attempts []Attempt
	// Findings are a rubric's findings, the union over its runs.
	Findings []Finding
	// Runs are a rubric's individual evaluations.
	Runs []RubricRun
	// Started is when evaluation began (the Engine clock); Duration is
	// how long it took.
	Started  time.Time
	Duration time.Duration
}

// Blocks applies the blocking rule to this result.
func (e *Evidence) Blocks() bool { return Blocks(e.Enforcement, e.Verdict) }

// Attempt is one command attempt (SPEC §2 CommandAttempt).
type Attempt struct {
	Number   int
	Started  time.Time
	Duration time.Duration
	// ExitCode is nil when the process did not exit normally.
	ExitCode *int
	// Output is this attempt's redacted, cut output tail.
	Output []byte
	// Error says why the attempt could not complete ("" when it exited).
	Error string
}

// Finding is one evaluator finding (SPEC §8).
type Finding struct {
	Message    string
	FilePath   string
	Line       int
	Suggestion string
}

// RubricRun is one evaluator call of a rubric.
type RubricRun struct {
	// Verdict is pass, fail or uncertain; error when the call failed.
	Verdict   Verdict
	Score     *float64
	Rationale string
	// Error says why the call failed.
	Error string
	// Metadata is the redacted envelope metadata, as canonical JSON text.
	Metadata string
	// findings are this run's findings, merged into Evidence.Findings.
	findings []Finding
}

func intPtr(i int) *int           { return &i }
func floatPtr(f float64) *float64 { return &f }
