package gate

import (
	"time"

	"github.com/tinehq/tine/internal/llm"
)

// ContractFileNames are the contract files tine looks for in a project
// root, in order; the first that exists wins. tine's own name comes first;
// ConstraintLoop's names follow so an existing contract works unchanged.
var ContractFileNames = []string{"tine-gate.yml", "tine-gate.yaml", "constraintloop.yml", "constraintloop.yaml"}

// MaxContractBytes caps the contract file size before it is parsed.
const MaxContractBytes = 1 << 20

// MaxContractName bounds Contract.Name.
const MaxContractName = 128

// Kind is a constraint's discriminator (SPEC §1).
type Kind string

// The constraint kinds.
const (
	KindCommand  Kind = "command"
	KindMetric   Kind = "metric"
	KindRatchet  Kind = "ratchet"
	KindArtifact Kind = "artifact"
	KindRubric   Kind = "rubric"
)

// Deterministic reports whether the kind produces reproducible evidence;
// only deterministic results may be waived (SPEC §4).
func (k Kind) Deterministic() bool { return k != KindRubric }

// Enforcement says whether a non-passing result blocks completion.
type Enforcement string

// The two enforcement levels.
const (
	Required Enforcement = "required"
	Advisory Enforcement = "advisory"
)

// Contract is a validated ConstraintLoop schema version 1 contract.
type Contract struct {
	// Version is always 1.
	Version int
	// Name is the contract's optional top-level name (a tine extension of
	// ConstraintLoop's schema: an identifier, at most MaxContractName
	// characters). Gate attestations carry it as claim.contract_name, so a
	// release policy can require a gate by name; "" when the file has none.
	Name string
	// Settings holds the contract-wide limits, defaults applied.
	Settings Settings
	// Constraints are in file order.
	Constraints []*Constraint
	// Evaluators are in file order.
	Evaluators []*Evaluator
	// Loops are in file order.
	Loops []*Loop
	// Digest is the contract identity: hex SHA-256 of the canonical JSON
	// (objects.CanonV3) of the whole validated model, defaults included.
	Digest string
}

// Constraint returns the constraint named id, or nil.
func (c *Contract) Constraint(id string) *Constraint {
	for _, k := range c.Constraints {
		if k.ID == id {
			return k
		}
	}
	return nil
}

// Evaluator returns the evaluator named id, or nil.
func (c *Contract) Evaluator(id string) *Evaluator {
	for _, e := range c.Evaluators {
		if e.ID == id {
			return e
		}
	}
	return nil
}

// Settings are the contract-wide limits (SPEC §1 ContractSettings).
type Settings struct {
	MaxAutoRetries          int
	Concurrency             int
	EvidenceOutputLimit     int
	HookOutputLimit         int
	EvaluationBundleLimit   int
	ProgressIntervalSeconds float64
}

// DefaultSettings returns ConstraintLoop's defaults.
func DefaultSettings() Settings {
	return Settings{MaxAutoRetries: 2, Concurrency: 4, EvidenceOutputLimit: 65536,
		HookOutputLimit: 4096, EvaluationBundleLimit: 102400, ProgressIntervalSeconds: 15}
}

// Constraint is one validated constraint. Exactly the kind's spec pointer
// is set: Command for command, metric and ratchet; Parser for metric and
// ratchet; Threshold for metric; Ratchet, Artifact or Rubric for theirs.
type Constraint struct {
	ID   string
	Kind Kind
	// Line is where the constraint's key stands in the contract file.
	Line int
	// Description is nil when the contract leaves it out or null.
	Description    *string
	Enforcement    Enforcement
	Phases         []Phase
	Watch          []string
	Needs          []string
	TimeoutSeconds float64
	Enabled        bool

	Command   *CommandSpec
	Parser    *MetricParser
	Threshold *Threshold
	Ratchet   *RatchetSpec
	Artifact  *ArtifactSpec
	Rubric    *RubricSpec
}

// Timeout returns TimeoutSeconds as a duration.
func (c *Constraint) Timeout() time.Duration { return seconds(c.TimeoutSeconds) }

// InPhase reports whether the constraint is enabled and selected in p.
func (c *Constraint) InPhase(p Phase) bool {
	if !c.Enabled {
		return false
	}
	for _, q := range c.Phases {
		if q == p {
			return true
		}
	}
	return false
}

// CommandSpec is the process part of command, metric and ratchet kinds.
type CommandSpec struct {
	// Argv is the command as a list; with Shell it runs as sh -c Argv[0] Argv[1:]...
	Argv []string
	// Script is the command as a string; it requires Shell.
	Script       string
	Shell        bool
	Cwd          string
	SuccessCodes []int
	PendingCodes []int
	// Retry is nil when the contract has no retry block: no retries.
	Retry *RetryPolicy
}

// RetryPolicy is a command's retry block (SPEC §1 CommandRetryPolicy).
type RetryPolicy struct {
	MaxAttempts         int
	ExitCodes           []int
	RetryTimeouts       bool
	RetryStartErrors    bool
	DelaySeconds        float64
	TotalTimeoutSeconds *float64
}

// MetricParser extracts a number from a command's output or a file.
type MetricParser struct {
	Type    string // "json" or "regex"
	Path    string // dotted path for json; an integer segment indexes a list
	Pattern string // for regex (RE2 syntax), matched multi-line
	// Group is the regex group: GroupName when set, else GroupIndex.
	GroupIndex int
	GroupName  string
	Source     string // "stdout", "stderr" or "file"
	File       string // for source file, relative to the constraint cwd
}

// Threshold compares a metric value (SPEC §1 kind metric).
type Threshold struct {
	Operator string // gt, gte, lt, lte, eq
	Value    float64
}

// RatchetSpec holds the ratchet-only fields.
type RatchetSpec struct {
	Mode         string // must_not_increase or must_not_decrease
	BaselineFile string
}

// ArtifactSpec holds the artifact fields.
type ArtifactSpec struct {
	Path     string
	Format   string // any, json or junit
	NonEmpty bool
	// Evidence maps a name to a dotted JSON path, in file order.
	Evidence []NamedPath
}

// NamedPath is one artifact evidence entry.
type NamedPath struct{ Name, Path string }

// RubricSpec holds the rubric fields.
type RubricSpec struct {
	Evaluator  string
	Text       string
	Include    []string
	Runs       int
	PassQuorum *int
}

// Quorum is the effective pass quorum: pass_quorum, or 1.
func (r *RubricSpec) Quorum() int {
	if r.PassQuorum != nil {
		return *r.PassQuorum
	}
	return 1
}

// Evaluator is a rubric evaluator: a command, or a model called over
// HTTP (openai: an OpenAI-compatible chat completions API; anthropic:
// Anthropic's messages API).
type Evaluator struct {
	ID             string
	Line           int
	Type           string // command, openai or anthropic
	Argv           []string
	Script         string
	Shell          bool
	TimeoutSeconds float64
	// Provider fields (openai, anthropic).
	Model           string
	APIKeyEnv       string
	MaxAttempts     int
	MaxOutputTokens int
	ReasoningEffort string
	// ReasoningEffortSet is true when the contract wrote reasoning_effort;
	// only then is it sent, since models without reasoning refuse it.
	ReasoningEffortSet bool
	// BaseURL is the contract's base_url, "" for the provider's own API
	// (an extension of ConstraintLoop's schema, for compatible servers).
	BaseURL string
}

// Endpoint is the base URL the evaluator calls: BaseURL, or the
// provider's public API.
func (e *Evaluator) Endpoint() string {
	switch {
	case e.BaseURL != "":
		return e.BaseURL
	case e.Type == "anthropic":
		return llm.AnthropicBaseURL
	}
	return llm.OpenAIBaseURL
}

// Loop is a convergence loop's budget block (SPEC §1 LoopConfig).
type Loop struct {
	ID                  string
	Line                int
	Phase               Phase
	IntervalSeconds     float64
	MaxRepairAttempts   int
	MaxUnchangedRepairs int
	MaxDurationSeconds  float64
	Challenge           *Challenge
}

// Challenge is a stop loop's session challenge block (SPEC §6).
type Challenge struct {
	Count            int
	MaxRounds        int
	MaxContinuations int
	Watch            []string
	DomainContext    []string
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
