package conformance

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Manifest is the suite's MANIFEST.json, the fields a runner uses.
type Manifest struct {
	SuiteVersion int               `json:"suite_version"`
	SpecVersion  string            `json:"spec_version"`
	Families     []FamilyMeta      `json:"families"`
	Ops          map[string]OpMeta `json:"ops"`
	AliasGroups  [][]string        `json:"alias_groups"`
	Files        map[string]string `json:"files"`
}

// FamilyMeta describes one vector file.
type FamilyMeta struct {
	Name    string   `json:"name"`
	File    string   `json:"file"`
	Section string   `json:"section"`
	Count   int      `json:"count"`
	Ops     []string `json:"ops"`
}

// Key returns the family's file stem, "00-text" for vectors/00-text.json,
// the name reports and tests group by.
func (f FamilyMeta) Key() string { return strings.TrimSuffix(path.Base(f.File), ".json") }

// OpMeta is MANIFEST.ops.<op>.
type OpMeta struct {
	Profile   string   `json:"profile"`
	Input     []string `json:"input"`
	Args      []string `json:"args"`
	Output    []string `json:"output"`
	Unordered []string `json:"unordered"`
	Requires  []string `json:"requires"`
}

// Case is one vector.
type Case struct {
	ID           string          `json:"id"`
	Op           string          `json:"op"`
	Profile      string          `json:"profile"`
	Section      string          `json:"section"`
	Tier         string          `json:"tier"`
	Expect       string          `json:"expect"` // accept, reject or verdict
	Input        CaseInput       `json:"input"`
	Args         json.RawMessage `json:"args"`
	Output       json.RawMessage `json:"output"`
	OutputSHA256 string          `json:"output_sha256"`
	Reason       string          `json:"reason"`
	ReasonAny    []string        `json:"reason_any"`
	Twin         string          `json:"twin"`
	MustDiffer   *bool           `json:"must_differ"`
	Forbidden    json.RawMessage `json:"forbidden"`
	Requires     []string        `json:"requires"`
	// Family is the Key of the vector file the case came from.
	Family string `json:"-"`
}

// CaseInput is a case's input in one of its five spellings.
type CaseInput struct {
	BytesB64 *string         `json:"bytes_b64"`
	Value    json.RawMessage `json:"value"`
	Gen      *Gen            `json:"gen"`
	Blob     *string         `json:"blob"`
	Path     *string         `json:"path"`
	SHA256   string          `json:"sha256"`
}

// Suite is a loaded conformance suite.
type Suite struct {
	// Dir is the suite directory (MANIFEST.json, vectors/, frames/, blobs/).
	Dir      string
	Manifest Manifest
	// Cases lists every case in MANIFEST family order, file order within.
	Cases []Case
}

// LoadSuite reads MANIFEST.json and every vector file it lists from dir.
func LoadSuite(dir string) (*Suite, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "MANIFEST.json"))
	if err != nil {
		return nil, fmt.Errorf("conformance suite: %w", err)
	}
	s := &Suite{Dir: dir}
	if err := json.Unmarshal(raw, &s.Manifest); err != nil {
		return nil, fmt.Errorf("conformance suite: MANIFEST.json: %w", err)
	}
	for _, fam := range s.Manifest.Families {
		p, err := s.file(fam.File)
		if err != nil {
			return nil, err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("conformance suite: %w", err)
		}
		var vf struct {
			Cases []Case `json:"cases"`
		}
		if err := json.Unmarshal(data, &vf); err != nil {
			return nil, fmt.Errorf("conformance suite: %s: %w", fam.File, err)
		}
		if len(vf.Cases) != fam.Count {
			return nil, fmt.Errorf("conformance suite: %s holds %d cases, MANIFEST says %d", fam.File, len(vf.Cases), fam.Count)
		}
		for i := range vf.Cases {
			vf.Cases[i].Family = fam.Key()
		}
		s.Cases = append(s.Cases, vf.Cases...)
	}
	return s, nil
}

// file maps a suite-relative slash path to a file under Dir, refusing
// anything that would leave the directory.
func (s *Suite) file(rel string) (string, error) {
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", fmt.Errorf("conformance suite: path %q leaves the suite directory", rel)
	}
	return filepath.Join(s.Dir, filepath.FromSlash(rel)), nil
}

// DigestCheck is the outcome of checking MANIFEST.files against Dir.
type DigestCheck struct {
	Verified   []string // present and matching
	Missing    []string // listed but not present under Dir
	Mismatched []string // present with a different SHA-256
}

// VerifyDigests hashes every file MANIFEST.json lists that exists under Dir.
func (s *Suite) VerifyDigests() (DigestCheck, error) {
	var c DigestCheck
	for name, want := range s.Manifest.Files {
		p, err := s.file(name)
		if err != nil {
			return c, err
		}
		data, err := os.ReadFile(p)
		if os.IsNotExist(err) {
			c.Missing = append(c.Missing, name)
			continue
		}
		if err != nil {
			return c, fmt.Errorf("conformance suite: %w", err)
		}
		sum := sha256.Sum256(data)
		if hex.EncodeToString(sum[:]) != want {
			c.Mismatched = append(c.Mismatched, name)
			continue
		}
		c.Verified = append(c.Verified, name)
	}
	return c, nil
}
