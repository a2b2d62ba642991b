package gates

import (
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/objects"
)

// GateProtectedNames lists the project-relative names an agent may not
// mutate through its tools (SPEC §7 protected mutation check): the contract
// files, the tine repository (which holds evidence, waivers, loop journals,
// leases and the hook tombstone), ConstraintLoop's state and baseline
// names, and each adapter's hook settings file, whose edit would unhook the
// gate. A directory ends in "/". Callers add custom ratchet baseline files
// and a repository kept outside ".tine".
func GateProtectedNames() []string {
	names := append([]string(nil), gate.ContractFileNames...)
	names = append(names, ".tine/", ".constraintloop/", "constraintloop-baselines.json")
	for _, a := range HookAdapters {
		rel, _ := HookSettingsPath(a)
		names = append(names, rel)
	}
	return names
}

// Regexps here compile on first use (sync.OnceValue), not at every
// process start: most commands never match them (issue 13).

var (
	// hookMutator finds a command that writes files: a mutating program
	// at the start or after ; & | (, or any output redirection.
	hookMutator = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(^|[;&|(]|\bsudo)\s*(rm|mv|cp|tee|touch|truncate|ln|install|dd|chmod|rsync|unlink)\b|\bsed\s+(-[A-Za-z]*i|--in-place)|\bperl\s+-[A-Za-z]*i|>`)
	})
	// hookWaive finds a waiver or hook removal issued by the agent.
	hookWaive = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\bgate\s+(waive|uninstall)\b|\bconstraintloop\s+(waive|uninstall)\b`)
	})
	// hookWeaken finds a ratchet baseline weakening.
	hookWeaken = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bbaseline\s+update\b[^;&|]*--allow-regression`) })
	// hookPatchHeader finds the file names of an apply_patch body.
	hookPatchHeader = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\*\*\* (?:Add File|Update File|Delete File|Move to): *(.+?) *$`)
	})
)

// ProtectedMutation decides the pre-tool check (SPEC §7): it returns a
// reason when the tool call would mutate a protected name or create a
// waiver, and "" when the call may proceed. Reads (cat, sed -n, grep) of
// protected files are allowed, and so is strengthening a baseline.
func ProtectedMutation(tool string, input objects.Value, protected []string) string {
	lower := strings.ToLower(tool)
	var strs []string
	collectStrings(input, &strs, 0)
	isPatch := strings.Contains(lower, "patch")
	for _, s := range strs {
		if strings.HasPrefix(strings.TrimSpace(s), "*** Begin Patch") {
			isPatch = true
		}
	}
	if isPatch {
		for _, s := range strs {
			for _, m := range hookPatchHeader().FindAllStringSubmatch(s, -1) {
				if name := protectedPath(m[1], protected); name != "" {
					return "the patch touches " + name + ", which the gate protects"
				}
			}
		}
	}
	for _, key := range []string{"cmd", "command"} {
		v, at := jdGet(input, key)
		if at < 0 {
			continue
		}
		var parts []string
		collectStrings(v, &parts, 0)
		// An argv list is checked whole and element by element, so
		// ["bash","-lc","cp x tine-gate.yml"] is read as the shell would.
		for _, cmd := range append(parts, strings.Join(parts, " ")) {
			if reason := commandMutation(cmd, protected); reason != "" {
				return reason
			}
		}
	}
	if strings.Contains(lower, "write") || strings.Contains(lower, "edit") || strings.Contains(lower, "delete") ||
		strings.Contains(lower, "move") || strings.Contains(lower, "replace") {
		for _, key := range []string{"path", "file_path", "filepath", "absolute_path", "notebook_path", "destination", "target"} {
			if v, at := jdGet(input, key); at >= 0 && v.Kind == objects.KindString {
				if name := protectedPath(v.Str, protected); name != "" {
					return tool + " would modify " + name + ", which the gate protects"
				}
			}
		}
	}
	return ""
}

// commandMutation checks one shell command line.
func commandMutation(cmd string, protected []string) string {
	switch {
	case hookWaive().MatchString(cmd):
		return "waivers and hook removal are for humans, not agents"
	case hookWeaken().MatchString(cmd):
		return "weakening a ratchet baseline needs a human"
	case hookMutator().MatchString(cmd):
		if name := protectedInCommand(cmd, protected); name != "" {
			return "the command may modify " + name + ", which the gate protects"
		}
	}
	return ""
}

// collectStrings gathers every string in v, depth-bounded.
func collectStrings(v objects.Value, out *[]string, depth int) {
	if depth > 64 {
		return
	}
	switch v.Kind {
	case objects.KindString:
		*out = append(*out, v.Str)
	case objects.KindArray:
		for _, e := range v.Array {
			collectStrings(e, out, depth+1)
		}
	case objects.KindObject:
		for _, m := range v.Object {
			collectStrings(m.Value, out, depth+1)
		}
	}
}

// protectedPath returns the protected name a file path designates, or "".
// The path may be absolute or relative; names match whole path components
// from the end (a file) or anywhere (a directory).
func protectedPath(p string, protected []string) string {
	p = path.Clean("/" + strings.ReplaceAll(strings.TrimSpace(p), `\`, "/"))
	for _, name := range protected {
		if dir, ok := strings.CutSuffix(name, "/"); ok {
			if strings.HasSuffix(p, "/"+dir) || strings.Contains(p, "/"+dir+"/") {
				return name
			}
			continue
		}
		if strings.HasSuffix(p, "/"+name) {
			return name
		}
	}
	return ""
}

// protectedInCommand returns a protected name that a shell command line
// mentions as a word or path, or "".
func protectedInCommand(cmd string, protected []string) string {
	for _, name := range protected {
		bare := strings.TrimSuffix(name, "/")
		re := regexp.MustCompile(`(^|[\s'"=/;&|<>(])` + regexp.QuoteMeta(bare) + `($|[\s'"/;&|<>)*])`)
		if re.MatchString(cmd) {
			return name
		}
	}
	return ""
}
