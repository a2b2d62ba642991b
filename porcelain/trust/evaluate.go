package trust

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
)

// MaxScoreName bounds a score name; MaxScores the scores of one evaluation
// (the derived catalog keeps at most this many per evaluation).
const (
	MaxScoreName = 128
	MaxScores    = 256
)

// Regexps here compile on first use (sync.OnceValue), not at every
// process start: most commands never match them (issue 13).

// scoreName is the score name grammar: a letter or digit, then letters,
// digits and . _ / - (names appear in policy files and on command lines,
// so they stay printable and unambiguous).
var scoreName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/-]*$`) })

// jsonNumber is the JSON number grammar (RFC 8259 §6): no hex, no leading
// +, no "inf" or "nan" spellings that strconv would take.
var jsonNumber = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`) })

// Score is one named evaluation score.
type Score struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	// literal is the value as given, so 3 stays the integer 3.
	literal string
}

// ParseScore reads a NAME=VALUE argument (NewScore).
func ParseScore(arg string) (Score, error) {
	name, val, ok := strings.Cut(arg, "=")
	if !ok {
		return Score{}, fmt.Errorf("score %q: want NAME=VALUE: %w", arg, ErrBadScore)
	}
	return NewScore(name, val)
}

// NewScore is the score name with the value of the JSON number text val,
// checked as tine evaluate and the MCP evaluate tool both take it. val
// must be a finite JSON number: NaN, Inf and overflowing literals such as
// 1e999 are refused (SPEC §3.5: scores are finite numbers); so is an
// integer outside ±(2^53-1) (canon.integer-overflow), which a double
// would round, and a decimal the stored double would spell as another
// number (0.1000000000000000055511151231257827 is stored as 0.1): a score
// keeps what was given or is refused, never silently rounded.
func NewScore(name, val string) (Score, error) {
	if err := CheckScoreName(name); err != nil {
		return Score{}, err
	}
	if !jsonNumber().MatchString(val) || len(val) > 64 {
		return Score{}, fmt.Errorf("score %s: %.70q is not a JSON number: %w", name, val, ErrBadScore)
	}
	// The literal goes through the input parser, so an integer outside
	// ±(2^53-1) is refused rather than rounded (SPEC §0.2 rule 7).
	if _, err := objects.ParseInput([]byte(val), objects.ParseOptions{}); objects.HasReason(err, objects.ReasonCanonIntegerOverflow) {
		return Score{}, fmt.Errorf("score %s: %w: %w", name, ErrBadScore, err)
	}
	f, err := strconv.ParseFloat(val, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return Score{}, fmt.Errorf("score %s: %s is not a finite number: %w", name, val, ErrBadScore)
	}
	if short := strconv.FormatFloat(f, 'g', -1, 64); decimalKey(short) != decimalKey(val) {
		return Score{}, fmt.Errorf("score %s: %s has more precision than a score keeps (a double: about 17 significant digits) and would be stored as %s; give that: %w", name, val, short, ErrBadScore)
	}
	return Score{Name: name, Value: f, literal: val}, nil
}

// decimalKey spells the JSON number text num so that two texts of the
// same number compare equal: the significant digits and the exponent of
// 0.DIGITS×10^EXP, signed; "0" for zero however spelt (-0 included). An
// exponent past int (possible only for a value a double holds as 0 or
// refuses as infinite) keeps its text, so it matches no finite double.
func decimalKey(num string) string {
	sign := ""
	if rest, ok := strings.CutPrefix(num, "-"); ok {
		sign, num = "-", rest
	}
	mant, exp, _ := strings.Cut(strings.ToLower(num), "e")
	whole, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(whole+frac, "0")
	if digits == "" {
		return "0"
	}
	e := 0
	if exp != "" {
		var err error
		if e, err = strconv.Atoi(exp); err != nil {
			return sign + digits + "e" + exp + "!"
		}
	}
	// whole+frac has len(whole+frac)-len(digits) leading zeros.
	point := e + len(whole) - (len(whole+frac) - len(digits))
	return sign + strings.TrimRight(digits, "0") + "e" + strconv.Itoa(point)
}

// CheckScoreName validates a score name.
func CheckScoreName(name string) error {
	if len(name) > MaxScoreName || !scoreName().MatchString(name) {
		return fmt.Errorf("score name %q: want 1-%d of A-Z a-z 0-9 . _ / -, starting with a letter or digit: %w", name, MaxScoreName, ErrBadScore)
	}
	return nil
}

// value returns the score as a JSON number: an integer literal stays an
// integer when it fits, anything else is a float.
func (s Score) value() objects.Value {
	if s.literal != "" && !strings.ContainsAny(s.literal, ".eE") {
		if i, err := strconv.ParseInt(s.literal, 10, 64); err == nil && i >= -(1<<53-1) && i <= 1<<53-1 {
			return objects.Int(i)
		}
	}
	return objects.Float(s.Value)
}

// EvaluateOptions configures Evaluate.
type EvaluateOptions struct {
	// Target is a revision naming a stored run.
	Target string
	// Scores are the scores (ParseScore); at least one, names unique.
	Scores []Score
	// Signer is the evaluator's name; "" means DefaultSigner.
	Signer string
	SignWith
}

// Evaluate stores an evaluation attestation on the run Target resolves to:
// claim {"kind":"evaluation","scores":{name: number}} (SPEC §3.5, the only
// evaluation claim shape), signed with tine-attest/1 when a key is given.
func Evaluate(ctx context.Context, r *plumbing.Repo, opt EvaluateOptions) (*AttestResult, error) {
	if len(opt.Scores) == 0 {
		return nil, fmt.Errorf("evaluate: give at least one --score NAME=VALUE: %w", ErrBadScore)
	}
	if len(opt.Scores) > MaxScores {
		return nil, fmt.Errorf("evaluate: %d scores, at most %d: %w", len(opt.Scores), MaxScores, ErrBadScore)
	}
	seen := make(map[string]bool, len(opt.Scores))
	members := make([]objects.Member, 0, len(opt.Scores))
	for _, s := range opt.Scores {
		if err := CheckScoreName(s.Name); err != nil {
			return nil, fmt.Errorf("evaluate: %w", err)
		}
		if math.IsNaN(s.Value) || math.IsInf(s.Value, 0) {
			return nil, fmt.Errorf("evaluate: score %s is not finite: %w", s.Name, ErrBadScore)
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("evaluate: score %s given twice: %w", s.Name, ErrBadScore)
		}
		seen[s.Name] = true
		members = append(members, objects.Member{Key: s.Name, Value: s.value()})
	}
	run, err := storedRun(ctx, r, opt.Target)
	if err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	claim := objects.ObjectValue(
		objects.Member{Key: "kind", Value: objects.String("evaluation")},
		objects.Member{Key: "scores", Value: objects.ObjectValue(members...)},
	)
	res, err := writeAttestation(ctx, r, run, claim, nil, opt.Signer, opt.SignWith)
	if err != nil {
		return nil, fmt.Errorf("evaluate: %w", err)
	}
	res.Scores = opt.Scores
	return res, nil
}
