package gates

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tinehq/tine/gate"
	"github.com/tinehq/tine/internal/fsutil"
)

// GateProject is a project directory with its loaded contract and the
// checkout identity evidence is produced in.
type GateProject struct {
	// Root is the absolute project directory.
	Root string
	// ContractPath is the contract's file name relative to Root (one of
	// gate.ContractFileNames).
	ContractPath string
	// Contract is the validated contract.
	Contract *gate.Contract
	// Checkout identifies the working copy (see GateCheckout).
	Checkout gate.Checkout
}

// LoadGateProject finds and validates the contract in root ("" is the
// current directory): the first of gate.ContractFileNames that exists wins.
// The file must be a regular file (a symlink could point outside the
// project) of at most gate.MaxContractBytes.
func LoadGateProject(root string) (*GateProject, error) {
	abs, err := absRoot(root)
	if err != nil {
		return nil, err
	}
	name, err := findContract(abs)
	if err != nil {
		return nil, err
	}
	data, err := readBounded(filepath.Join(abs, name), gate.MaxContractBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c, err := gate.LoadContract(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	co, err := GateCheckout(abs)
	if err != nil {
		return nil, err
	}
	return &GateProject{Root: abs, ContractPath: name, Contract: c, Checkout: co}, nil
}

// findContract returns the first contract file name present in root.
func findContract(root string) (string, error) {
	for _, n := range gate.ContractFileNames {
		fi, err := os.Lstat(filepath.Join(root, n))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", n, err)
		}
		if !fi.Mode().IsRegular() {
			return "", fmt.Errorf("%s: %w: not a regular file", n, gate.ErrContract)
		}
		return n, nil
	}
	return "", fmt.Errorf("%w in %s (looked for %v; tine gate init writes one)", gate.ErrNoContract, root, gate.ContractFileNames)
}

// readBounded reads a regular file of at most max bytes; the bound is
// checked before the bytes are allocated, and a FIFO or device is refused
// rather than read (fsutil.ReadFile).
func readBounded(path string, max int64) ([]byte, error) {
	return fsutil.ReadFile(path, max)
}
