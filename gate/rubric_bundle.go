package gate

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/tinehq/tine/objects"
)

// BundleSchemaVersion is the EvaluationBundle schema_version (SPEC §8).
const BundleSchemaVersion = 1

// Disclosable reports whether a file may be sent to an evaluator: secret
// files (.env and its variants except .env.example, credentials.json,
// secrets.env, and keys by suffix) never are (SPEC §8).
func Disclosable(rel string) bool {
	base := path.Base(rel)
	switch base {
	case ".env", ".env.local", ".env.production", "credentials.json", "secrets.env":
		return false
	}
	if strings.HasPrefix(base, ".env.") && base != ".env.example" {
		return false
	}
	for _, suf := range []string{".key", ".pem", ".p12", ".pfx"} {
		if strings.HasSuffix(base, suf) {
			return false
		}
	}
	return true
}

// Regexps here compile on first use (sync.OnceValue), not at every
// process start: most commands never match them (issue 13).

var tokenRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[a-z0-9]{3,}`) })

// bundleFile is one candidate file for a bundle.
type bundleFile struct {
	path      string
	relevance int
	changed   bool
	source    bool
}

// BuildBundle assembles the EvaluationBundle for rubric c as canonical
// JSON of at most Settings.EvaluationBundleLimit bytes (SPEC §8): the
// redacted diff (cut at a quarter of the limit), the redacted
// deterministic results so far (without timing, so the bundle is
// deterministic), and included, disclosable files by priority
// (relevance to the rubric, changed, under src/lib/app, then path),
// added while they fit. When the JSON is still too large, files are
// dropped last-first, then the diff, then the results are compacted.
func BuildBundle(c *Constraint, env ExecEnv, red *redactor) ([]byte, error) {
	limit := env.Contract.Settings.EvaluationBundleLimit
	diff := red.text(env.Diff)
	if len(diff) > limit/4 {
		diff = cutHead(diff, limit/4) + "\n[diff truncated]"
	}
	results := make([]objects.Value, 0, len(env.Prior))
	for _, p := range env.Prior {
		results = append(results, p.value(false))
	}
	paths, err := MatchingFiles(env.Root, c.Rubric.Include)
	if err != nil {
		return nil, err
	}
	var cands []bundleFile
	omitted := []string{}
	want := tokenSet(c.ID + " " + c.Rubric.Text + " " + env.Goal)
	for _, p := range paths {
		if !Disclosable(p) {
			omitted = append(omitted, p)
			continue
		}
		bf := bundleFile{path: p, changed: slices.Contains(env.Changed, p)}
		for t := range tokenSet(p) {
			if want[t] {
				bf.relevance++
			}
		}
		for _, part := range strings.Split(p, "/") {
			bf.source = bf.source || part == "src" || part == "lib" || part == "app"
		}
		cands = append(cands, bf)
	}
	slices.SortFunc(cands, func(a, b bundleFile) int {
		switch {
		case a.relevance != b.relevance:
			return b.relevance - a.relevance
		case a.changed != b.changed:
			return boolRank(b.changed) - boolRank(a.changed)
		case a.source != b.source:
			return boolRank(b.source) - boolRank(a.source)
		}
		return strings.Compare(a.path, b.path)
	})
	bundle := func(files []objects.Member, diff string, res []objects.Value) ([]byte, error) {
		goal := objects.Null()
		if env.Goal != "" {
			goal = objects.String(utf8Text(red.text(env.Goal)))
		}
		return objects.CanonV3(objects.ObjectValue(mem("schema_version", objects.Int(BundleSchemaVersion)),
			mem("constraint_id", objects.String(c.ID)), mem("rubric", objects.String(c.Rubric.Text)),
			mem("goal", goal), mem("diff", objects.String(utf8Text(diff))),
			mem("deterministic_results", objects.Array(res...)), mem("files", objects.ObjectValue(files...)),
			mem("omitted_files", strArray(omitted))))
	}
	base, err := bundle(nil, diff, results)
	if err != nil {
		return nil, fmt.Errorf("constraint %s: bundle: %w", c.ID, err)
	}
	budget := limit - len(base)
	var files []objects.Member
	for _, bf := range cands {
		if budget <= len(bf.path) {
			break
		}
		data, err := readConfined(env.Root, bf.path, int64(budget))
		if err != nil {
			continue // unreadable or larger than what is left: skip it
		}
		text := utf8Text(red.text(string(data)))
		if len(bf.path)+len(text) > budget {
			continue
		}
		budget -= len(bf.path) + len(text)
		files = append(files, mem(bf.path, objects.String(text)))
	}
	for {
		out, err := bundle(files, diff, results)
		if err != nil {
			return nil, fmt.Errorf("constraint %s: bundle: %w", c.ID, err)
		}
		switch {
		case len(out) <= limit:
			return out, nil
		case len(files) > 0:
			files = files[:len(files)-1]
		case diff != "[diff truncated]":
			diff = "[diff truncated]"
		case !compacted(results):
			results = compactResults(results)
		default:
			return nil, fmt.Errorf("constraint %s: evaluation bundle exceeds %d bytes", c.ID, limit)
		}
	}
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

func tokenSet(s string) map[string]bool {
	out := map[string]bool{}
	for _, t := range tokenRE().FindAllString(strings.ToLower(s), -1) {
		out[t] = true
	}
	return out
}

func cutHead(s string, n int) string {
	for n > 0 && n < len(s) && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n]
}

func compacted(rs []objects.Value) bool {
	for _, r := range rs {
		if _, ok := r.Get("output_tail"); ok {
			return false
		}
	}
	return true
}

// compactResults keeps only {constraint_id, kind, verdict, enforcement,
// message, cached} of each result (SPEC §8 shrink step 3).
func compactResults(rs []objects.Value) []objects.Value {
	out := make([]objects.Value, 0, len(rs))
	for _, r := range rs {
		var m []objects.Member
		for _, k := range []string{"constraint_id", "kind", "verdict", "enforcement", "message"} {
			v, _ := r.Get(k)
			m = append(m, mem(k, v))
		}
		out = append(out, objects.ObjectValue(append(m, mem("cached", objects.Bool(false)))...))
	}
	return out
}
