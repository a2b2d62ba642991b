package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// BuildInput turns a case's input into the protocol input a runner sends:
// value and nest-value stay a tagged tree; bytes_b64, gen, blob and path
// become bytes, checked against input.sha256. compatRoot is the directory
// path inputs are relative to (OpenTine's repository root); "" means none is
// available, so every path input is ErrFixtureAbsent.
func (s *Suite) BuildInput(c Case, compatRoot string) (Input, error) {
	in := c.Input
	var raw []byte
	switch {
	case in.Value != nil:
		return ValueInput(in.Value), nil
	case in.Gen != nil && in.Gen.IsValue():
		v, err := in.Gen.AssembleValue()
		if err != nil {
			return Input{}, err
		}
		return ValueInput(v), nil
	case in.Gen != nil:
		b, err := in.Gen.AssembleBytes()
		if err != nil {
			return Input{}, err
		}
		raw = b
	case in.Blob != nil:
		p, err := s.file(*in.Blob)
		if err != nil {
			return Input{}, err
		}
		if raw, err = os.ReadFile(p); err != nil {
			return Input{}, fmt.Errorf("case %s: %w", c.ID, err)
		}
	case in.Path != nil:
		b, err := readFixture(compatRoot, *in.Path)
		if err != nil {
			return Input{}, fmt.Errorf("case %s: %w", c.ID, err)
		}
		raw = b
	case in.BytesB64 != nil:
		b, err := decodeStrictBase64([]byte(*in.BytesB64))
		if err != nil {
			return Input{}, fmt.Errorf("case %s: %w", c.ID, err)
		}
		raw = b
	default:
		return Input{}, fmt.Errorf("case %s: %w", c.ID, ErrCaseInput)
	}
	if in.SHA256 != "" {
		sum := sha256.Sum256(raw)
		if hex.EncodeToString(sum[:]) != in.SHA256 {
			return Input{}, fmt.Errorf("case %s: %w", c.ID, ErrInputDigest)
		}
	}
	return BytesInput(raw), nil
}

func readFixture(root, rel string) ([]byte, error) {
	if root == "" {
		return nil, fmt.Errorf("%s: %w", rel, ErrFixtureAbsent)
	}
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return nil, fmt.Errorf("compat path %q leaves the fixture root", rel)
	}
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", rel, ErrFixtureAbsent)
	}
	return b, err
}
