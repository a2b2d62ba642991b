package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tinehq/tine/porcelain/trust"
)

// printAssociations renders what points at a run (tine show RUN): its
// attestations, annotation values, tags, promotions and other refs.
func printAssociations(p *printer, a *trust.RunAssociations) {
	if len(a.Attestations) > 0 {
		p.printf("attestations:\n")
		printAttestations(p, "  ", a.Attestations)
	}
	if len(a.Annotations) > 0 || len(a.AnnotationTags) > 0 {
		keys := make([]string, 0, len(a.Annotations))
		for k := range a.Annotations {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, 0, len(keys)+1)
		for _, k := range keys {
			parts = append(parts, sanitize(k)+"="+sanitize(clip(a.Annotations[k], 60)))
		}
		if len(a.AnnotationTags) > 0 {
			parts = append(parts, "tags: "+sanitize(strings.Join(a.AnnotationTags, ", ")))
		}
		p.printf("annotations: %s\n", strings.Join(parts, "  "))
	}
	if t := a.Tags(); len(t) > 0 {
		p.printf("tags:        %s\n", strings.Join(t, ", "))
	}
	if pr := a.Promotions(); len(pr) > 0 {
		p.printf("promotions:  %s\n", p.good(strings.Join(pr, ", ")))
	}
	if len(a.Refs) > 0 {
		p.printf("refs:        %s\n", strings.Join(a.Refs, ", "))
	}
}

// printAttestations renders one line per attestation: kind, short oid,
// scores or decision, the claim's other fields, signer and signature.
func printAttestations(p *printer, prefix string, atts []trust.RunAttestation) {
	for _, a := range atts {
		var b strings.Builder
		kind := a.Kind
		if kind == "" {
			kind = "(no kind)"
		}
		fmt.Fprintf(&b, "%-10s %s", sanitize(kind), p.style(styleYellow, shortOID(a.OID)))
		names := make([]string, 0, len(a.Scores))
		for k := range a.Scores {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			fmt.Fprintf(&b, " %s=%g", sanitize(k), a.Scores[k])
		}
		if a.Decision != "" {
			d := "decision " + sanitize(a.Decision)
			if a.Decision != "pass" {
				d = p.bad(d)
			} else {
				d = p.good(d)
			}
			b.WriteString(" " + d)
		}
		fields := make([]string, 0, len(a.Fields))
		for k := range a.Fields {
			fields = append(fields, k)
		}
		sort.Strings(fields)
		if a.Kind == "gate" {
			// A gate's phase and contract say which gate; --json has the rest.
			fields = []string{"phase", "contract"}
		}
		for _, k := range fields {
			if v, ok := a.Fields[k]; ok {
				fmt.Fprintf(&b, " %s %s", sanitize(k), sanitize(clip(v, 16)))
			}
		}
		if a.Signer != "" {
			b.WriteString(" signer " + sanitize(clip(a.Signer, 40)))
		}
		b.WriteString(" " + signatureText(p, a))
		p.printf("%s%s\n", prefix, b.String())
	}
}

// Signature verdict states (SPEC §4.6), as objects.Verdict spells them.
const (
	stateUnsigned     = "unsigned"
	stateVerified     = "verified"
	stateVerifiedTOFU = "verified-tofu"
	stateNoKey        = "no-key"
)

// signatureText says in a few words what a run attestation's verdict
// means.
func signatureText(p *printer, a trust.RunAttestation) string {
	v := a.Signature
	alg := ""
	if v.Algorithm != nil {
		alg = *v.Algorithm
	}
	key := ""
	if len(v.Fingerprint) >= 16 {
		key = " key " + v.Fingerprint[:16]
	}
	switch v.State {
	case stateUnsigned:
		return p.dim("unsigned")
	case stateVerified:
		return p.good("signed " + alg + ", verified" + key)
	case stateVerifiedTOFU:
		return "signed " + alg + ", intact against its own embedded" + key + " (not checked against a trusted key)"
	case stateNoKey:
		return "signed " + alg + ", not checked (no key)"
	}
	return p.bad("signature " + v.State + ": " + sanitize(v.Reason))
}
