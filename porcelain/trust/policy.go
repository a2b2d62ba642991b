package trust

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/internal/fsutil"
	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/plumbing"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/refs"
)

// PolicyFileName is the release policy's file in the project directory
// (the directory holding .tine): a reviewed, committed file.
const PolicyFileName = "tine-policy.json"

// MaxPolicyBytes bounds a policy file, checked before it is read whole.
const MaxPolicyBytes = 1 << 20

// PolicyVersion is the only policy schema version.
const PolicyVersion = 1

// ErrBadPolicy means the release policy file is missing or invalid; the
// error names the file and the JSON path (or line) at fault.
var ErrBadPolicy = errors.New("invalid release policy")

// Policy is a loaded release policy.
//
// The file is strict JSON (duplicate keys, unknown keys, wrong types and
// non-finite numbers are refused with the path at fault):
//
//	{"version": 1,
//	 "keys": {"<key name>": {
//	     "algorithm":       "ed25519" | "hmac-sha256",
//	     "fingerprint":     "<64 hex: sha256 of the public key or HMAC key>",
//	     "public_key_file": "<ed25519 only: path relative to the policy file>"}},
//	 "promotions": {"<name>": {
//	     "trusted_keys":     ["<key name>", ...],
//	     "signers":          ["<signer>", ...],   (optional: restrict signed signers)
//	     "unsigned_signers": ["<signer>", ...],   (optional: these count unsigned)
//	     "scores": {"<score>": {"min": <number>, "max": <number>}},
//	     "gates":  [{"contract": "<64 hex digest>", "contract_name": "<name>",
//	                 "phase": "<phase>",
//	                 "allow_waived": true}]}}}  (optional, default false)
//
// A promotion names at least one requirement, and trusts at least one key
// or unsigned signer; a score names min, max or both; a gate names contract
// or contract_name (or both); a gate passed by waiving a required
// constraint meets it only with "allow_waived": true. An HMAC key's secret is never in the file:
// `tine promote --key-file` supplies it and must match the fingerprint.
type Policy struct {
	// Path is the file it was read from; ID the blob oid of its bytes, so
	// the reflog can name the exact policy a promotion was checked under.
	Path string
	ID   objects.OID
	// Keys are the trusted keys by name; Rules the promotions by name.
	Keys  map[string]gate.TrustedKey
	Rules map[string]*gate.PromotionRule
}

// DefaultPolicyPath returns PolicyFileName in r's project directory.
func DefaultPolicyPath(r *plumbing.Repo) string {
	root := r.Root()
	if filepath.Base(root) == plumbing.DirName {
		root = filepath.Dir(root)
	}
	return filepath.Join(root, PolicyFileName)
}

// LoadPolicy reads and validates a policy file for a repository of hash a.
func LoadPolicy(path string, a objects.Algo) (*Policy, error) {
	data, err := fsutil.ReadFile(path, MaxPolicyBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("policy: %w: %w (write %s, or pass --policy FILE)", ErrBadPolicy, err, PolicyFileName)
	case errors.Is(err, fsutil.ErrTooLarge):
		return nil, fmt.Errorf("policy %s: over %d bytes: %w", path, MaxPolicyBytes, ErrBadPolicy)
	case err != nil:
		return nil, fmt.Errorf("policy: %w: %w", ErrBadPolicy, err)
	}
	p, err := ParsePolicy(data)
	if err != nil {
		return nil, fmt.Errorf("policy %s: %w", path, err)
	}
	p.Path, p.ID = path, objects.NewBlob(a, data).ID
	return p, nil
}

// ParsePolicy parses and validates policy text (see Policy for the schema).
func ParsePolicy(data []byte) (*Policy, error) {
	v, err := objects.ParseJSON(data, objects.ParseOptions{MaxIntDigits: 64})
	if err != nil {
		var pe *objects.ParseError
		if errors.As(err, &pe) {
			line, col := lineCol(data, pe.Offset)
			return nil, fmt.Errorf("line %d column %d: %s: %w", line, col, pe.Msg, ErrBadPolicy)
		}
		return nil, fmt.Errorf("%w: %w", ErrBadPolicy, err)
	}
	w := &pwalk{}
	p := &Policy{Keys: map[string]gate.TrustedKey{}, Rules: map[string]*gate.PromotionRule{}}
	top := w.object(v, "$", "version", "keys", "promotions")
	if ver, ok := top.Get("version"); !ok || ver.Kind != objects.KindInt || ver.Big != nil || ver.Int != PolicyVersion {
		w.fail("$.version", "must be %d", PolicyVersion)
	}
	for _, m := range w.member(top, "$", "keys").Object {
		p.Keys[m.Key] = w.key(m.Key, m.Value)
	}
	if _, ok := top.Get("promotions"); !ok {
		w.fail("$.promotions", "is required")
	}
	for _, m := range w.member(top, "$", "promotions").Object {
		p.Rules[m.Key] = w.rule(m.Key, m.Value, p.Keys)
	}
	if w.err != nil {
		return nil, w.err
	}
	return p, nil
}

// pwalk validates a policy tree, keeping the first error with its path.
type pwalk struct{ err error }

func (w *pwalk) fail(path, format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf("%s: %s: %w", path, fmt.Sprintf(format, args...), ErrBadPolicy)
	}
}

// member returns obj's member key as an object, empty when absent.
func (w *pwalk) member(obj objects.Value, path, key string) objects.Value {
	v, ok := obj.Get(key)
	if !ok {
		return objects.ObjectValue()
	}
	return w.object(v, path+"."+key)
}

// object checks v is an object whose keys are all in allowed (none
// given: any key).
func (w *pwalk) object(v objects.Value, path string, allowed ...string) objects.Value {
	if v.Kind != objects.KindObject {
		w.fail(path, "must be an object, not a JSON %s", v.Kind)
		return objects.ObjectValue()
	}
	if len(allowed) > 0 {
		for _, m := range v.Object {
			if !slices.Contains(allowed, m.Key) {
				w.fail(path+"."+m.Key, "unknown key (allowed: %s)", strings.Join(allowed, ", "))
			}
		}
	}
	return v
}

// str returns a non-empty string member, or "" (failing when required).
func (w *pwalk) str(obj objects.Value, path, key string, required bool) string {
	v, ok := obj.Get(key)
	switch {
	case !ok && required:
		w.fail(path+"."+key, "is required")
	case !ok:
	case v.Kind != objects.KindString || v.Str == "":
		w.fail(path+"."+key, "must be a non-empty string")
	default:
		return v.Str
	}
	return ""
}

// boolean returns a boolean member, false when absent.
func (w *pwalk) boolean(obj objects.Value, path, key string) bool {
	v, ok := obj.Get(key)
	if !ok {
		return false
	}
	if v.Kind != objects.KindBool {
		w.fail(path+"."+key, "must be true or false")
		return false
	}
	return v.Bool
}

// strings returns a list of non-empty, unique strings.
func (w *pwalk) strings(obj objects.Value, path, key string) []string {
	v, ok := obj.Get(key)
	if !ok {
		return nil
	}
	if v.Kind != objects.KindArray {
		w.fail(path+"."+key, "must be a list of strings")
		return nil
	}
	var out []string
	for i, e := range v.Array {
		if e.Kind != objects.KindString || e.Str == "" || slices.Contains(out, e.Str) {
			w.fail(fmt.Sprintf("%s.%s[%d]", path, key, i), "must be a non-empty string, listed once")
			continue
		}
		out = append(out, e.Str)
	}
	return out
}

// key validates one trusted key.
func (w *pwalk) key(name string, v objects.Value) gate.TrustedKey {
	path := "$.keys." + name
	obj := w.object(v, path, "algorithm", "fingerprint", "public_key_file")
	k := gate.TrustedKey{Name: name, Algorithm: w.str(obj, path, "algorithm", true),
		Fingerprint: w.str(obj, path, "fingerprint", true), PublicKeyFile: w.str(obj, path, "public_key_file", false)}
	if !isHex64(k.Fingerprint) {
		w.fail(path+".fingerprint", "must be 64 lowercase hex digits (tine keygen prints it)")
	}
	switch k.Algorithm {
	case objects.AlgEd25519:
		if k.PublicKeyFile == "" || !filepath.IsLocal(k.PublicKeyFile) {
			w.fail(path+".public_key_file", "an ed25519 key needs its public key file, a path inside the policy's directory")
		}
	case objects.AlgHMACSHA256:
		if k.PublicKeyFile != "" {
			w.fail(path+".public_key_file", "an HMAC key has no public half; its secret is given by tine promote --key-file")
		}
	default:
		w.fail(path+".algorithm", "must be %s or %s", objects.AlgEd25519, objects.AlgHMACSHA256)
	}
	return k
}

// rule validates one promotion.
func (w *pwalk) rule(name string, v objects.Value, keys map[string]gate.TrustedKey) *gate.PromotionRule {
	path := "$.promotions." + name
	if n, err := refs.NormalizeName("promotions/" + name); err != nil || n != "promotions/"+name {
		w.fail(path, "not a valid promotion name (a ref name under promotions/)")
	}
	obj := w.object(v, path, "trusted_keys", "signers", "unsigned_signers", "scores", "gates")
	rule := &gate.PromotionRule{Name: name, Signers: w.strings(obj, path, "signers"),
		UnsignedSigners: w.strings(obj, path, "unsigned_signers")}
	for i, k := range w.strings(obj, path, "trusted_keys") {
		tk, ok := keys[k]
		if !ok {
			w.fail(fmt.Sprintf("%s.trusted_keys[%d]", path, i), "names no key of $.keys: %q", k)
		}
		rule.TrustedKeys = append(rule.TrustedKeys, tk)
	}
	for _, m := range w.member(obj, path, "scores").Object {
		rule.Scores = append(rule.Scores, w.score(path+".scores."+m.Key, m.Key, m.Value))
	}
	if gates, ok := obj.Get("gates"); ok {
		if gates.Kind != objects.KindArray {
			w.fail(path+".gates", "must be a list")
		}
		for i, g := range gates.Array {
			rule.Gates = append(rule.Gates, w.gate(fmt.Sprintf("%s.gates[%d]", path, i), g))
		}
	}
	if len(rule.Scores) == 0 && len(rule.Gates) == 0 {
		w.fail(path, "names no requirement (scores or gates)")
	}
	if len(rule.TrustedKeys) == 0 && len(rule.UnsignedSigners) == 0 {
		w.fail(path, "trusts no key and allows no unsigned signer, so nothing could meet it")
	}
	return rule
}

// score validates one score requirement.
func (w *pwalk) score(path, name string, v objects.Value) gate.ScoreRequirement {
	if err := CheckScoreName(name); err != nil {
		w.fail(path, "%v", err)
	}
	obj := w.object(v, path, "min", "max")
	s := gate.ScoreRequirement{Name: name}
	for _, b := range []struct {
		key string
		dst **float64
	}{{"min", &s.Min}, {"max", &s.Max}} {
		if n, ok := obj.Get(b.key); ok {
			f, isNum := runs.Number(n)
			if !isNum {
				w.fail(path+"."+b.key, "must be a number")
				continue
			}
			*b.dst = &f
		}
	}
	switch {
	case s.Min == nil && s.Max == nil:
		w.fail(path, "names neither min nor max")
	case s.Min != nil && s.Max != nil && *s.Min > *s.Max:
		w.fail(path, "min is above max")
	}
	return s
}

// gate validates one gate requirement.
func (w *pwalk) gate(path string, v objects.Value) gate.GateRequirement {
	obj := w.object(v, path, "contract", "contract_name", "phase", "allow_waived")
	g := gate.GateRequirement{Contract: w.str(obj, path, "contract", false),
		ContractName: w.str(obj, path, "contract_name", false), Phase: w.str(obj, path, "phase", false),
		AllowWaived: w.boolean(obj, path, "allow_waived")}
	switch {
	case g.Contract == "" && g.ContractName == "":
		w.fail(path, "names neither contract nor contract_name")
	case g.Contract != "" && !isHex64(g.Contract):
		w.fail(path+".contract", "must be the contract digest: 64 lowercase hex digits")
	}
	return g
}

// isHex64 reports 64 lowercase hex digits.
func isHex64(s string) bool {
	return len(s) == 64 && strings.Trim(s, "0123456789abcdef") == ""
}

// lineCol converts a byte offset to a 1-based line and column.
func lineCol(data []byte, off int) (int, int) {
	off = min(max(off, 0), len(data))
	line := bytes.Count(data[:off], []byte{'\n'}) + 1
	return line, off - bytes.LastIndexByte(data[:off], '\n')
}
