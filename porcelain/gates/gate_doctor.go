package gates

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/internal/llm"
	"github.com/tinehq/tine/plumbing"
)

// Doctor check states.
const (
	GateCheckOK   = "ok"
	GateCheckWarn = "warn"
	GateCheckFail = "fail"
)

// GateCheck is one doctor finding.
type GateCheck struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
}

// GateDoctorResult lists the findings; OK is false when any failed.
type GateDoctorResult struct {
	OK     bool         `json:"ok"`
	Checks []*GateCheck `json:"checks"`
}

// GateDoctor checks what a gate run needs without running any constraint:
// the contract loads; each command's program and each command evaluator is
// on PATH (or a project file); each cwd exists; each ratchet baseline file
// exists; each watch glob matches something (warn only); the repository
// (r may be nil) is writable and has no stale ref guards.
func GateDoctor(ctx context.Context, r *plumbing.Repo, root string) (*GateDoctorResult, error) {
	res := &GateDoctorResult{OK: true, Checks: []*GateCheck{}}
	add := func(name, status, format string, args ...any) {
		res.Checks = append(res.Checks, &GateCheck{Name: name, Status: status, Detail: fmt.Sprintf(format, args...)})
		if status == GateCheckFail {
			res.OK = false
		}
	}
	proj, err := LoadGateProject(root)
	if err != nil {
		add("contract", GateCheckFail, "%v", err)
		return res, nil
	}
	add("contract", GateCheckOK, "%s: %d constraints, digest %s", proj.ContractPath, len(proj.Contract.Constraints), proj.Contract.Digest[:12])
	for _, c := range proj.Contract.Constraints {
		if !c.Enabled {
			continue
		}
		if c.Command != nil {
			checkProgram(proj.Root, "constraint "+c.ID, c.Command.Argv, c.Command.Shell, add)
			if fi, err := os.Stat(filepath.Join(proj.Root, filepath.FromSlash(c.Command.Cwd))); err != nil || !fi.IsDir() {
				add("constraint "+c.ID, GateCheckFail, "cwd %s does not exist", c.Command.Cwd)
			}
		}
		if c.Ratchet != nil && !exists(proj.Root, filepath.FromSlash(c.Ratchet.BaselineFile)) {
			add("constraint "+c.ID, GateCheckFail, "ratchet baseline %s is missing", c.Ratchet.BaselineFile)
		}
		files, err := gate.MatchingFiles(proj.Root, c.Watch)
		switch {
		case err != nil:
			add("constraint "+c.ID, GateCheckFail, "watch: %v", err)
		case len(files) == 0:
			add("constraint "+c.ID, GateCheckWarn, "watch globs %v match no file: its evidence never goes stale on edits", c.Watch)
		}
	}
	for _, ev := range proj.Contract.Evaluators {
		if ev.Type == "command" {
			checkProgram(proj.Root, "evaluator "+ev.ID, ev.Argv, ev.Shell, add)
		} else if _, err := llm.LookupKey(nil, ev.APIKeyEnv); err != nil {
			add("evaluator "+ev.ID, GateCheckWarn, "type %s: %v; its rubrics evaluate as uncertain", ev.Type, err)
		} else {
			add("evaluator "+ev.ID, GateCheckOK, "type %s, model %s at %s, key in %s", ev.Type, ev.Model, ev.Endpoint(), ev.APIKeyEnv)
		}
	}
	if r == nil {
		add("repository", GateCheckFail, "no tine repository: gate run records evidence there (tine init)")
		return res, nil
	}
	if f, err := os.CreateTemp(r.Root(), ".doctor-*"); err != nil {
		add("repository", GateCheckFail, "not writable: %v", err)
	} else {
		name := f.Name()
		f.Close()
		os.Remove(name)
		add("repository", GateCheckOK, "writable")
	}
	guards, err := r.Refs().StaleGuards(ctx)
	switch {
	case err != nil:
		add("ref guards", GateCheckFail, "%v", err)
	case len(guards) > 0:
		add("ref guards", GateCheckWarn, "%d stale ref guards; tine fsck --remove-stale removes them", len(guards))
	default:
		add("ref guards", GateCheckOK, "none stale")
	}
	return res, nil
}

// checkProgram reports whether a command's program can be found: an argv's
// first word on PATH or as a project file; a shell command needs sh.
func checkProgram(root, name string, argv []string, shell bool, add func(string, string, string, ...any)) {
	prog := "sh"
	if !shell && len(argv) > 0 {
		prog = argv[0]
	}
	if filepath.Base(prog) != prog {
		p := prog
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, filepath.FromSlash(p))
		}
		if fi, err := os.Stat(p); err != nil || fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
			add(name, GateCheckFail, "%s is not an executable file", prog)
			return
		}
		add(name, GateCheckOK, "%s found", prog)
		return
	}
	if _, err := exec.LookPath(prog); err != nil {
		add(name, GateCheckFail, "%s is not on PATH", prog)
		return
	}
	add(name, GateCheckOK, "%s on PATH", prog)
}
