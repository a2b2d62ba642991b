package gates

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/internal/fsutil"
)

// GateInitOptions configures GateInit.
type GateInitOptions struct {
	// Root is the project directory ("" is the current one).
	Root string
}

// GateInitResult names the contract written and what was detected.
type GateInitResult struct {
	Path        string   `json:"path"`
	Detected    []string `json:"detected"`
	Constraints []string `json:"constraints"`
}

// gateProposal is one proposed constraint, already in YAML.
type gateProposal struct{ id, comment, yaml string }

// GateInit detects the project's tooling (Go: go.mod; Python: pyproject.toml,
// setup.py or requirements.txt; Node: package.json) and writes a
// reviewable contract, gate.ContractFileNames[0], with a comment on every
// constraint (SPEC §9 init). It installs nothing and proposes only checks
// the detected tools already provide. It refuses to overwrite any contract
// (ErrGateContractExists) and writes nothing when no tooling is found
// (ErrGateNoTooling). The text is validated by gate.LoadContract before it
// is written.
func GateInit(opt GateInitOptions) (*GateInitResult, error) {
	root, err := absRoot(opt.Root)
	if err != nil {
		return nil, err
	}
	for _, n := range gate.ContractFileNames {
		if _, err := os.Lstat(filepath.Join(root, n)); err == nil {
			return nil, fmt.Errorf("%s: %w; edit it, or remove it first", n, ErrGateContractExists)
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
	}
	res := &GateInitResult{Path: gate.ContractFileNames[0], Detected: []string{}, Constraints: []string{}}
	var props []gateProposal
	if exists(root, "go.mod") {
		res.Detected = append(res.Detected, "go")
		props = append(props, goProposals()...)
	}
	if exists(root, "pyproject.toml") || exists(root, "setup.py") || exists(root, "requirements.txt") {
		res.Detected = append(res.Detected, "python")
		props = append(props, pythonProposals(root)...)
	}
	if exists(root, "package.json") {
		res.Detected = append(res.Detected, "node")
		p, err := nodeProposals(root)
		if err != nil {
			return nil, err
		}
		props = append(props, p...)
	}
	if len(props) == 0 {
		return nil, fmt.Errorf("%w in %s: write %s by hand", ErrGateNoTooling, root, res.Path)
	}
	var b strings.Builder
	b.WriteString("# tine gate contract (ConstraintLoop schema version 1), written by tine gate init.\n")
	b.WriteString("# Review every constraint before committing: tine installs nothing and\n")
	b.WriteString("# proposes only checks your tools already provide.\n")
	b.WriteString("version: 1\n")
	b.WriteString("# name: ci   # optional (tine only): gate attestations carry it as contract_name,\n")
	b.WriteString("#            # which a release policy can require; ConstraintLoop refuses the key.\n")
	b.WriteString("constraints:\n")
	for _, p := range props {
		fmt.Fprintf(&b, "  # %s\n  %s:\n%s", p.comment, p.id, p.yaml)
		res.Constraints = append(res.Constraints, p.id)
	}
	text := []byte(b.String())
	if _, err := gate.LoadContract(text); err != nil {
		return nil, fmt.Errorf("generated contract is invalid: %w", err)
	}
	if err := fsutil.WriteFileAtomic(filepath.Join(root, res.Path), text, 0o644); err != nil {
		return nil, err
	}
	return res, nil
}

func exists(root, name string) bool {
	fi, err := os.Stat(filepath.Join(root, name))
	return err == nil && fi.Mode().IsRegular()
}

func goProposals() []gateProposal {
	watch := "    watch: [\"**/*.go\", go.mod, go.sum]\n"
	return []gateProposal{
		{"go_vet", "Go: go vet reports suspicious constructs.", "    kind: command\n    command: [go, vet, ./...]\n" + watch},
		{"go_test", "Go: every package's tests pass.", "    kind: command\n    command: [go, test, ./...]\n" + watch + "    needs: [go_vet]\n"},
	}
}

func pythonProposals(root string) []gateProposal {
	py := "python3"
	if exists(root, filepath.Join(".venv", "bin", "python")) {
		py = ".venv/bin/python"
	}
	watch := "    watch: [\"**/*.py\", pyproject.toml, setup.py, requirements.txt]\n"
	out := []gateProposal{{"python_syntax", "Python: every module compiles.", "    kind: command\n    command: [" + py + ", -m, compileall, -q, .]\n" + watch}}
	if exists(root, "pytest.ini") || exists(root, "conftest.py") || dirExists(root, "tests") {
		out = append(out, gateProposal{"python_tests", "Python: the pytest suite passes (pytest must already be installed).",
			"    kind: command\n    command: [" + py + ", -m, pytest, -q]\n" + watch + "    needs: [python_syntax]\n"})
	}
	return out
}

func dirExists(root, name string) bool {
	fi, err := os.Stat(filepath.Join(root, name))
	return err == nil && fi.IsDir()
}

// nodeProposals proposes npm scripts the package already defines.
func nodeProposals(root string) ([]gateProposal, error) {
	data, err := readBounded(filepath.Join(root, "package.json"), 4<<20)
	if err != nil {
		return nil, fmt.Errorf("package.json: %w", err)
	}
	var pkg struct {
		Scripts map[string]any `json:"scripts"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return nil, fmt.Errorf("package.json: %w", err)
	}
	watch := "    watch: [\"**/*.js\", \"**/*.ts\", \"**/*.jsx\", \"**/*.tsx\", package.json]\n"
	var out []gateProposal
	for _, s := range []struct{ script, id, comment string }{
		{"lint", "node_lint", "Node: the package's lint script passes."},
		{"test", "node_test", "Node: the package's test script passes."},
	} {
		if _, ok := pkg.Scripts[s.script]; ok {
			out = append(out, gateProposal{s.id, s.comment, "    kind: command\n    command: [npm, run, --silent, " + s.script + "]\n" + watch})
		}
	}
	return out, nil
}
