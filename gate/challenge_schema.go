package gate

import (
	"errors"
	"fmt"
	"os"
	"strings"
)

// ChallengeSubmissionSchema returns the JSON Schema of a submission for a
// challenge block, which `tine gate challenge show` prints so the agent
// can write a valid file. The rules it cannot express (uniqueness across
// rounds, distinct perspectives, cited files, request and snapshot
// matching) are checked by ApplySubmission.
func ChallengeSubmissionSchema(cfg *Challenge) string {
	text := fmt.Sprintf(`{"type":"string","minLength":1,"maxLength":%d}`, MaxChallengeText)
	refs := fmt.Sprintf(`{"type":"array","minItems":1,"maxItems":%d,"items":{"type":"string"}}`, MaxChallengeSourceRefs)
	r := strings.NewReplacer("TEXT", text, "REFS", refs, "COUNT", fmt.Sprint(cfg.Count), "IDRE", strings.ReplaceAll(challengeIDRE().String(), `\`, `\\`))
	return r.Replace(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "additionalProperties": false,
  "required": ["request_id", "input_snapshot"],
  "properties": {
    "request_id": {"type": "string"},
    "input_snapshot": {"type": "string"},
    "domain_briefs": {"type": "array", "items": {"type": "object", "additionalProperties": false,
      "required": ["topic", "summary", "domain_sources"],
      "properties": {"topic": TEXT, "summary": TEXT, "domain_sources": REFS}}},
    "challenges": {"type": "array", "minItems": COUNT, "maxItems": COUNT, "items": {"type": "object", "additionalProperties": false,
      "required": ["id", "perspective", "assumption", "scenario", "expected_behavior", "verification_plan", "source_refs"],
      "properties": {"id": {"type": "string", "pattern": "IDRE"}, "perspective": TEXT, "assumption": TEXT, "scenario": TEXT,
        "expected_behavior": TEXT, "verification_plan": TEXT, "source_refs": REFS}}},
    "resolutions": {"type": "array", "minItems": 1, "items": {"type": "object", "additionalProperties": false,
      "required": ["challenge_id", "outcome", "evidence"],
      "properties": {"challenge_id": {"type": "string"}, "outcome": {"enum": ["verified", "defect", "rejected", "unresolved"]},
        "evidence": TEXT, "constraint_ids": {"type": "array", "items": {"type": "string"}}}}},
    "followup_needed": {"type": "boolean"}
  },
  "oneOf": [{"required": ["challenges"], "not": {"required": ["resolutions"]}}, {"required": ["resolutions"], "not": {"required": ["challenges"]}}]
}
`)
}

// ChallengeSourceFile checks that rel names a regular file inside the
// project at root, following links only within it: a challenge cites
// files that exist.
func ChallengeSourceFile(root, rel string) error {
	p, err := confined(root, rel)
	if errors.Is(err, os.ErrNotExist) {
		return errors.New("no such file")
	}
	if err != nil {
		return err
	}
	info, err := os.Stat(p)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return errors.New("not a regular file")
	}
	return nil
}
