package refs

import (
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

// Cases of conformance vectors 24-refs (ref.name) and 16-bounds, plus the
// orderings the SPEC leaves implicit.
func TestNormalizeName(t *testing.T) {
	a240 := strings.Repeat("a", 240)
	b := a240 + "/" + strings.Repeat("b", 24) // 5+1+240+1+240+1+24 = 512 bytes
	tests := []struct {
		id, in, want string
		reason       objects.Reason
	}{
		{"annotations-digest", "annotations/e88fa867238109c11d29405ab0f08617ac460b2c6a5e3b07d8eee65b0b0a45c6", "annotations/e88fa867238109c11d29405ab0f08617ac460b2c6a5e3b07d8eee65b0b0a45c6", ""},
		{"at-sign", "heads/a@b", "", objects.ReasonRefNameCharset},
		{"component-dot", "heads/./main", "", objects.ReasonRefComponentReserved},
		{"component-dotdot", "heads/../main", "", objects.ReasonRefComponentReserved},
		{"dots-and-dashes", "heads/feature.a-b", "heads/feature.a-b", ""},
		{"embedded-dotdot", "heads/a..b", "", objects.ReasonRefComponentReserved},
		{"experiments", "experiments/alpha", "experiments/alpha", ""},
		{"heads-main", "heads/main", "heads/main", ""},
		{"lock-suffix", "heads/main.lock", "", objects.ReasonRefComponentReserved},
		{"non-ascii", "heads/na\u00efve", "", objects.ReasonRefNameCharset},
		{"remotes", "remotes/origin/main", "remotes/origin/main", ""},
		{"space", "heads/my ref", "", objects.ReasonRefNameCharset},
		{"strips-refs-prefix", "refs/heads/main", "heads/main", ""},
		{"tags-nested", "tags/release/2026-09", "tags/release/2026-09", ""},
		{"trailing-dot", "heads/main.", "", objects.ReasonRefComponentReserved},
		{"trailing-space", "heads/main ", "", objects.ReasonRefNameCharset},
		{"unknown-namespace", "branches/main", "", objects.ReasonRefNameNamespace},
		{"uppercase-letter", "heads/Main", "", objects.ReasonRefNameNotCasefolded},
		{"windows-device-con", "heads/con", "", objects.ReasonRefComponentWindowsDevice},
		{"bounds.component-240", "heads/" + a240, "heads/" + a240, ""},
		{"bounds.component-241", "heads/" + a240 + "a", "", objects.ReasonRefComponentTooLong},
		{"bounds.name-512", "heads/" + a240 + "/" + b, "heads/" + a240 + "/" + b, ""},
		{"bounds.name-513", "heads/" + a240 + "/" + b + "b", "", objects.ReasonRefNameTooLong},
		{"bounds.empty-component", "heads//main", "", objects.ReasonRefComponentReserved},
		{"bounds.single-character", "heads/a", "heads/a", ""},
		// Orderings and edges.
		{"non-ascii-uppercase-is-charset", "heads/NA\u00cfVE", "", objects.ReasonRefNameCharset},
		{"uppercase-lock-is-casefold", "heads/main.LOCK", "", objects.ReasonRefNameNotCasefolded},
		{"namespace-only", "heads", "", objects.ReasonRefNameNamespace},
		{"namespace-slash", "heads/", "", objects.ReasonRefComponentReserved},
		{"uppercase-namespace", "Heads/main", "", objects.ReasonRefNameNamespace},
		{"double-refs", "refs/refs/heads/x", "", objects.ReasonRefNameNamespace},
		{"device-with-extension", "tags/lpt9.txt", "", objects.ReasonRefComponentWindowsDevice},
		{"device-prefix-only", "tags/console", "tags/console", ""},
		{"com0-not-a-device", "tags/com0", "tags/com0", ""},
		{"trailing-slash", "heads/main/", "", objects.ReasonRefComponentReserved},
		{"lock-inner-component", "heads/a.lock/b", "", objects.ReasonRefComponentReserved},
		{"all-namespaces", "promotions/prod", "promotions/prod", ""},
	}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			got, err := NormalizeName(tc.in)
			if tc.reason == "" {
				if err != nil || got != tc.want {
					t.Fatalf("NormalizeName(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
				}
				return
			}
			if r, _ := objects.ReasonOf(err); r != tc.reason {
				t.Fatalf("NormalizeName(%q) = %q, %v; want reason %s", tc.in, got, err, tc.reason)
			}
		})
	}
}

func TestNamespaceTargetType(t *testing.T) {
	for ns, want := range map[Namespace]objects.Type{
		NamespaceHeads: objects.TypeRun, NamespaceExperiments: objects.TypeRun,
		NamespacePromotions: objects.TypeRun, NamespaceAnnotations: objects.TypeAnnotation,
		NamespaceTags: "", NamespaceRemotes: "",
	} {
		got, typed := ns.TargetType()
		if got != want || typed != (want != "") {
			t.Errorf("%s.TargetType() = %q, %v", ns, got, typed)
		}
	}
	if NamespaceOf("refs/heads/a/b") != NamespaceHeads || Namespace("branches").Valid() {
		t.Error("NamespaceOf / Valid")
	}
}
