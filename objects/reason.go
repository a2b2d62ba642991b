package objects

import (
	"errors"
	"fmt"
)

// Reason is a stable reason code naming the format rule an input broke. The
// codes are OpenTine's conformance reason codes (conformance/REASON_CODES.md);
// tools and the conformance adapter branch on them, so they never change.
type Reason string

// The reason codes, one per rule.
const (
	ReasonArtifactDuplicateKey                Reason = "artifact.duplicate-key"                  // SPEC §3.7
	ReasonArtifactIntegerTooManyDigits        Reason = "artifact.integer-too-many-digits"        // SPEC §3.1
	ReasonArtifactLoneSurrogate               Reason = "artifact.lone-surrogate"                 // SPEC §3.7
	ReasonArtifactMalformedJson               Reason = "artifact.malformed-json"                 // SPEC §3.1
	ReasonArtifactNonFinite                   Reason = "artifact.non-finite"                     // SPEC §3.7
	ReasonArtifactNulByte                     Reason = "artifact.nul-byte"                       // SPEC §3.7
	ReasonArtifactStructureExcessive          Reason = "artifact.structure-excessive"            // SPEC §3.1
	ReasonCanonDepthExceeded                  Reason = "canon.depth-exceeded"                    // SPEC §0.2
	ReasonCanonIntegerOverflow                Reason = "canon.integer-overflow"                  // SPEC §0.2
	ReasonCanonNonFinite                      Reason = "canon.non-finite"                        // SPEC §0.2/0.3
	ReasonCanonUnencodableText                Reason = "canon.unencodable-text"                  // SPEC §0.2
	ReasonChainPreviousUnavailable            Reason = "chain.previous-unavailable"              // SPEC §1.5.5
	ReasonChainTargetChanged                  Reason = "chain.target-changed"                    // SPEC §1.5.5
	ReasonConfigIncompatible                  Reason = "config.incompatible"                     // SPEC §2.2
	ReasonConfigMalformed                     Reason = "config.malformed"                        // SPEC §2.2
	ReasonConfigOversized                     Reason = "config.oversized"                        // SPEC §2.2
	ReasonEnvelopeBodyMalformedJson           Reason = "envelope.body-malformed-json"            // SPEC §1.2
	ReasonEnvelopeBodyNonCanonical            Reason = "envelope.body-non-canonical"             // SPEC §1.2
	ReasonEnvelopeEncodingMismatch            Reason = "envelope.encoding-mismatch"              // SPEC §1.2
	ReasonEnvelopeHeaderKeyCount              Reason = "envelope.header-key-count"               // SPEC §1.2
	ReasonEnvelopeHeaderNonCanonical          Reason = "envelope.header-non-canonical"           // SPEC §1.2
	ReasonEnvelopeMalformed                   Reason = "envelope.malformed"                      // SPEC §1.2
	ReasonEnvelopeOidMismatch                 Reason = "envelope.oid-mismatch"                   // SPEC §1.3
	ReasonEnvelopeSchemaNotInteger            Reason = "envelope.schema-not-integer"             // SPEC §1.2
	ReasonEnvelopeSchemaOutOfRange            Reason = "envelope.schema-out-of-range"            // SPEC §1.2
	ReasonEnvelopeUnknownType                 Reason = "envelope.unknown-type"                   // SPEC §1.1
	ReasonGraphCausalOutsideGraph             Reason = "graph.causal-outside-graph"              // SPEC §1.5.3
	ReasonGraphLegacyRefsInvalid              Reason = "graph.legacy-refs-invalid"               // SPEC §1.5.3
	ReasonGraphOrderNotTopological            Reason = "graph.order-not-topological"             // SPEC §1.5.3
	ReasonGraphParentOutsideGraph             Reason = "graph.parent-outside-graph"              // SPEC §1.5.3
	ReasonGraphRootsMismatch                  Reason = "graph.roots-mismatch"                    // SPEC §1.5.3
	ReasonGraphStatusInvalid                  Reason = "graph.status-invalid"                    // SPEC §1.5.3
	ReasonGraphTipsMismatch                   Reason = "graph.tips-mismatch"                     // SPEC §1.5.3
	ReasonLinkAnnotationPreviousNotAnnotation Reason = "link.annotation-previous-not-annotation" // SPEC §1.5.5
	ReasonLinkAttestationTargetNotRun         Reason = "link.attestation-target-not-run"         // SPEC §1.5.4
	ReasonLinkEventBlobNotBlob                Reason = "link.event-blob-not-blob"                // SPEC §1.5.2
	ReasonLinkEvidenceNotList                 Reason = "link.evidence-not-list"                  // SPEC §1.5.4
	ReasonLinkMissingObject                   Reason = "link.missing-object"                     // SPEC §1.5.6
	ReasonLinkParentIdsDuplicate              Reason = "link.parent-ids-duplicate"               // SPEC §1.5.2
	ReasonLinkParentIdsNotEvents              Reason = "link.parent-ids-not-events"              // SPEC §1.5.2
	ReasonLinkRunBlobNotBlob                  Reason = "link.run-blob-not-blob"                  // SPEC §1.5.3
	ReasonLinkRunEventsInvalid                Reason = "link.run-events-invalid"                 // SPEC §1.5.3
	ReasonLinkRunManifestsNotObject           Reason = "link.run-manifests-not-object"           // SPEC §1.5.3
	ReasonLinkRunRootsTipsInvalid             Reason = "link.run-roots-tips-invalid"             // SPEC §1.5.3
	ReasonLinkRunRootsTipsNotSubset           Reason = "link.run-roots-tips-not-subset"          // SPEC §1.5.3
	ReasonMetricsMeterNotFinite               Reason = "metrics.meter-not-finite"                // SPEC §1.5.2
	ReasonMetricsMeterTooLong                 Reason = "metrics.meter-too-long"                  // SPEC §1.5.2
	ReasonMetricsTokenDimensionUnsafe         Reason = "metrics.token-dimension-unsafe"          // SPEC §1.5.2
	ReasonMetricsUsageNotObject               Reason = "metrics.usage-not-object"                // SPEC §1.5.2
	ReasonMetricsUsageValueNotNumeric         Reason = "metrics.usage-value-not-numeric"         // SPEC §1.5.2
	ReasonOidMalformed                        Reason = "oid.malformed"                           // SPEC §1.3
	ReasonPackArraysInvalid                   Reason = "pack.arrays-invalid"                     // SPEC §2.8
	ReasonPackBadMagic                        Reason = "pack.bad-magic"                          // SPEC §2.8
	ReasonPackChecksumMismatch                Reason = "pack.checksum-mismatch"                  // SPEC §2.8
	ReasonPackDuplicateIds                    Reason = "pack.duplicate-ids"                      // SPEC §2.8
	ReasonPackEntryBase64                     Reason = "pack.entry-base64"                       // SPEC §2.8
	ReasonPackEntryOidMismatch                Reason = "pack.entry-oid-mismatch"                 // SPEC §2.8
	ReasonPackEntryShape                      Reason = "pack.entry-shape"                        // SPEC §2.8
	ReasonPackInvalidCompression              Reason = "pack.invalid-compression"                // SPEC §2.8
	ReasonPackManifestKeySet                  Reason = "pack.manifest-key-set"                   // SPEC §2.8
	ReasonPackManifestMalformed               Reason = "pack.manifest-malformed"                 // SPEC §2.8
	ReasonPackManifestNonCanonical            Reason = "pack.manifest-non-canonical"             // SPEC §2.8
	ReasonPackOversized                       Reason = "pack.oversized"                          // SPEC §2.8
	ReasonPackShallowInvalidOid               Reason = "pack.shallow-invalid-oid"                // SPEC §2.8
	ReasonPackShallowNotLinkClosure           Reason = "pack.shallow-not-link-closure"           // SPEC §2.8
	ReasonPackShallowOverlapsObjects          Reason = "pack.shallow-overlaps-objects"           // SPEC §2.8
	ReasonPackTooManyObjects                  Reason = "pack.too-many-objects"                   // SPEC §2.8
	ReasonPackTruncatedOrTrailing             Reason = "pack.truncated-or-trailing"              // SPEC §2.8
	ReasonPackUnresolvedLink                  Reason = "pack.unresolved-link"                    // SPEC §2.8
	ReasonPackVersionUnsupported              Reason = "pack.version-unsupported"                // SPEC §2.8
	ReasonPathInvalidOid                      Reason = "path.invalid-oid"                        // SPEC §2.3
	ReasonRefAnnotationNameMismatch           Reason = "ref.annotation-name-mismatch"            // SPEC §2.5
	ReasonRefComponentReserved                Reason = "ref.component-reserved"                  // SPEC §2.4
	ReasonRefComponentTooLong                 Reason = "ref.component-too-long"                  // SPEC §2.4
	ReasonRefComponentWindowsDevice           Reason = "ref.component-windows-device"            // SPEC §2.4
	ReasonRefFileNotAscii                     Reason = "ref.file-not-ascii"                      // SPEC §2.4
	ReasonRefFileNotCanonical                 Reason = "ref.file-not-canonical"                  // SPEC §2.4
	ReasonRefFileOversized                    Reason = "ref.file-oversized"                      // SPEC §2.4
	ReasonRefNameCharset                      Reason = "ref.name-charset"                        // SPEC §2.4
	ReasonRefNameNamespace                    Reason = "ref.name-namespace"                      // SPEC §2.4
	ReasonRefNameNotCasefolded                Reason = "ref.name-not-casefolded"                 // SPEC §2.4
	ReasonRefNameTooLong                      Reason = "ref.name-too-long"                       // SPEC §2.4
	ReasonRefTargetType                       Reason = "ref.target-type"                         // SPEC §2.5
	ReasonReflogActorTooLong                  Reason = "reflog.actor-too-long"                   // SPEC §2.6
	ReasonReflogTimeNotString                 Reason = "reflog.time-not-string"                  // SPEC §2.6
	ReasonShallowCarriageReturn               Reason = "shallow.carriage-return"                 // SPEC §2.7
	ReasonShallowDuplicate                    Reason = "shallow.duplicate"                       // SPEC §2.7
	ReasonShallowEmptyLine                    Reason = "shallow.empty-line"                      // SPEC §2.7
	ReasonShallowNotAscii                     Reason = "shallow.not-ascii"                       // SPEC §2.7
	ReasonShallowOversized                    Reason = "shallow.oversized"                       // SPEC §2.7
	ReasonShallowTooMany                      Reason = "shallow.too-many"                        // SPEC §2.7
	ReasonShapeDepthExceeded                  Reason = "shape.depth-exceeded"                    // SPEC §0.5
	ReasonShapeTokensExceeded                 Reason = "shape.tokens-exceeded"                   // SPEC §0.5
	ReasonSigPayloadNotObject                 Reason = "sig.payload-not-object"                  // SPEC §4.2
	ReasonTextLoneSurrogate                   Reason = "text.lone-surrogate"                     // SPEC §0.1
)

// FormatError reports input that breaks a rule of the format. Callers that
// need the rule use ReasonOf.
type FormatError struct {
	Reason Reason
	Detail string
}

// Error returns "<detail> (<reason>)".
func (e *FormatError) Error() string {
	if e.Detail == "" {
		return string(e.Reason)
	}
	return e.Detail + " (" + string(e.Reason) + ")"
}

// Errorf returns a *FormatError with the given reason and a formatted detail.
func Errorf(r Reason, format string, args ...any) error {
	return &FormatError{Reason: r, Detail: fmt.Sprintf(format, args...)}
}

// ReasonOf returns the reason code of the first *FormatError in err's chain.
func ReasonOf(err error) (Reason, bool) {
	var fe *FormatError
	if errors.As(err, &fe) {
		return fe.Reason, true
	}
	return "", false
}

// HasReason reports whether err carries the reason r.
func HasReason(err error, r Reason) bool {
	got, ok := ReasonOf(err)
	return ok && got == r
}
