package gate

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/tinehq/tine/objects"
)

// runArtifact validates an artifact file (SPEC §2 artifact runner): a path
// escaping the project is ERROR; a missing file, an empty one when
// non_empty, or one that does not parse as its format is FAIL.
func runArtifact(c *Constraint, env ExecEnv, ev *Evidence) {
	a := c.Artifact
	p, err := confined(env.Root, a.Path)
	if errors.Is(err, errOutsideRoot) {
		setResult(ev, Error, CategoryEnvironment, "Artifact path escapes the project root")
		return
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		setResult(ev, Fail, CategoryConstraint, "Artifact is unreadable: "+stableError(err))
		return
	}
	info, err := os.Stat(p)
	if err != nil || !info.Mode().IsRegular() {
		setResult(ev, Fail, CategoryConstraint, "Artifact is missing: "+a.Path)
		return
	}
	data, err := readConfined(env.Root, a.Path, MaxCollectedOutput)
	if err != nil {
		setResult(ev, Fail, CategoryConstraint, "Artifact is invalid: "+stableError(err))
		return
	}
	if a.NonEmpty && len(data) == 0 {
		setResult(ev, Fail, CategoryConstraint, "Artifact is empty: "+a.Path)
		return
	}
	switch a.Format {
	case "json":
		v, err := objects.ParseJSON(data, objects.ParseOptions{MaxDepth: maxMetricJSONDepth, DemoteBigInts: true, MaxIntDigits: 400})
		if err != nil {
			setResult(ev, Fail, CategoryConstraint, "Artifact is invalid: not valid JSON")
			return
		}
		if !artifactEvidence(a, v, ev) {
			return
		}
	case "junit":
		if err := wellFormedXML(data); err != nil {
			setResult(ev, Fail, CategoryConstraint, "Artifact is invalid: "+err.Error())
			return
		}
	}
	setResult(ev, Pass, "", "Artifact is valid: "+a.Path)
}

// artifactEvidence resolves each evidence path into ev.Details as
// canonical, redacted JSON text; a missing path fails the artifact.
func artifactEvidence(a *ArtifactSpec, v objects.Value, ev *Evidence) bool {
	for _, np := range a.Evidence {
		got, err := JSONPath(v, np.Path)
		if err != nil {
			setResult(ev, Fail, CategoryConstraint, "Artifact is invalid: evidence "+np.Name+": "+err.Error())
			return false
		}
		red, _ := objects.RedactValue(got)
		text, err := objects.CanonV3(red)
		if err != nil {
			setResult(ev, Fail, CategoryConstraint, "Artifact is invalid: evidence "+np.Name+" is not representable")
			return false
		}
		if ev.Details == nil {
			ev.Details = map[string]string{}
		}
		ev.Details[np.Name] = string(text)
	}
	return true
}

// maxXMLDepth bounds element nesting in a JUnit artifact.
const maxXMLDepth = 256

// wellFormedXML checks that data is one well-formed XML document with a
// single root element (ElementTree.parse's acceptance; no JUnit semantics).
func wellFormedXML(data []byte) error {
	d := xml.NewDecoder(bytes.NewReader(data))
	depth, roots := 0, 0
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return errors.New("not well-formed XML")
		}
		switch tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
			}
			depth++
			if depth > maxXMLDepth || roots > 1 {
				return errors.New("XML nests too deeply or has several roots")
			}
		case xml.EndElement:
			depth--
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(tok.(xml.CharData))) > 0 {
				return errors.New("text outside the XML root element")
			}
		}
	}
	if roots != 1 || depth != 0 {
		return errors.New("XML has no single root element")
	}
	return nil
}
