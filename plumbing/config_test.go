package plumbing

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/tinehq/tine/objects"
)

func TestConfigBytesMatchOpenTine(t *testing.T) {
	sum := sha256.Sum256(ConfigBytes(objects.SHA256))
	if got := hex.EncodeToString(sum[:]); got != "900d885beae3e00efb34eb452f0b83ade965ef6d87cbe5b87e2f5755a2b5cc42" {
		t.Fatalf("sha256 of the sha256 config = %s", got)
	}
	if got := string(ConfigBytes(objects.BLAKE3)); got != `{"format":3,"object_hash":"blake3","repository":"opentine","version":1}`+"\n" {
		t.Fatalf("blake3 config = %q", got)
	}
}

func TestValidateConfig(t *testing.T) {
	pad := func(prefix, unit, suffix string, n int) string {
		return prefix + strings.Repeat(unit, n) + suffix
	}
	cases := []struct {
		name   string
		in     string
		algo   objects.Algo
		reason objects.Reason
	}{
		{"canonical", `{"format":3,"object_hash":"sha256","repository":"opentine","version":1}` + "\n", objects.SHA256, ""},
		{"blake3", `{"format":3,"object_hash":"blake3","repository":"opentine","version":1}`, objects.BLAKE3, ""},
		{"formatting", "{\n  \"repository\": \"opentine\",\n  \"format\": 3,\n  \"version\": 1,\n  \"object_hash\": \"sha256\"\n}", objects.SHA256, ""},
		{"unknown key", `{"format":3,"future":true,"object_hash":"sha256","repository":"opentine","version":1}`, objects.SHA256, ""},
		// tine fails closed: the required pairs hold exactly these JSON
		// values, not values a lenient reader would call equal.
		{"format 3.0", `{"format":3.0,"object_hash":"sha256","repository":"opentine","version":1}`, "", objects.ReasonConfigIncompatible},
		{"format 3e0", `{"format":3e0,"object_hash":"sha256","repository":"opentine","version":1}`, "", objects.ReasonConfigIncompatible},
		{"format 30e-1", `{"format":30e-1,"object_hash":"sha256","repository":"opentine","version":1}`, "", objects.ReasonConfigIncompatible},
		{"format true", `{"format":true,"object_hash":"sha256","repository":"opentine","version":1}`, "", objects.ReasonConfigIncompatible},
		{"format null", `{"format":null,"object_hash":"sha256","repository":"opentine","version":1}`, "", objects.ReasonConfigIncompatible},
		{"format huge", `{"format":300000000000000000000000000,"object_hash":"sha256","repository":"opentine","version":1}`, "", objects.ReasonConfigIncompatible},
		{"version 1.0", `{"format":3,"object_hash":"sha256","repository":"opentine","version":1.0}`, "", objects.ReasonConfigIncompatible},
		{"version true", `{"format":3,"object_hash":"sha256","repository":"opentine","version":true}`, "", objects.ReasonConfigIncompatible},
		{"version string", `{"format":3,"object_hash":"sha256","repository":"opentine","version":"1"}`, "", objects.ReasonConfigIncompatible},
		{"version 2", `{"format":3,"object_hash":"sha256","repository":"opentine","version":2}`, "", objects.ReasonConfigIncompatible},
		{"missing version", `{"format":3,"object_hash":"sha256","repository":"opentine"}`, "", objects.ReasonConfigIncompatible},
		{"missing format", `{"object_hash":"sha256","repository":"opentine","version":1}`, "", objects.ReasonConfigIncompatible},
		{"format NaN", `{"format":NaN,"object_hash":"sha256","repository":"opentine","version":1}`, "", objects.ReasonConfigIncompatible},
		{"NaN in an extra key", `{"extra":NaN,"format":3,"object_hash":"sha256","repository":"opentine","version":1}`, objects.SHA256, ""},
		{"hash upper case", `{"format":3,"object_hash":"SHA256","repository":"opentine","version":1}`, "", objects.ReasonConfigIncompatible},
		{"hash with space", `{"format":3,"object_hash":"blake3 ","repository":"opentine","version":1}`, "", objects.ReasonConfigIncompatible},
		{"hash escaped", `{"format":3,"object_hash":"sha\u0032\u00356","repository":"opentine","version":1}`, objects.SHA256, ""},
		{"hash not a string", `{"format":3,"object_hash":256,"repository":"opentine","version":1}`, "", objects.ReasonConfigIncompatible},
		{"repository case", `{"format":3,"object_hash":"sha256","repository":"OpenTine","version":1}`, "", objects.ReasonConfigIncompatible},
		{"repository array", `{"format":3,"object_hash":"sha256","repository":["opentine"],"version":1}`, "", objects.ReasonConfigIncompatible},
		{"duplicate format", `{"format":3,"format":3,"object_hash":"sha256","repository":"opentine","version":1}`, "", objects.ReasonConfigMalformed},
		{"format 2", `{"format":2,"object_hash":"sha256","repository":"opentine","version":1}`, "", objects.ReasonConfigIncompatible},
		{"format string", `{"format":"3","object_hash":"sha256","repository":"opentine","version":1}`, "", objects.ReasonConfigIncompatible},
		{"missing hash", `{"format":3,"repository":"opentine","version":1}`, "", objects.ReasonConfigIncompatible},
		{"other hash", `{"format":3,"object_hash":"sha1","repository":"opentine","version":1}`, "", objects.ReasonConfigIncompatible},
		{"other repository", `{"format":3,"object_hash":"sha256","repository":"git","version":1}`, "", objects.ReasonConfigIncompatible},
		{"array", `[3,"sha256"]`, "", objects.ReasonConfigIncompatible},
		{"not json", "repository = opentine\n", "", objects.ReasonConfigMalformed},
		{"empty", "", "", objects.ReasonConfigMalformed},
		{"at 65536 bytes", pad(`{"format":3,"object_hash":"sha256","pad":"`, "x", `","repository":"opentine","version":1}`, 65456), objects.SHA256, ""},
		{"at 65537 bytes", pad(`{"format":3,"object_hash":"sha256","pad":"`, "x", `","repository":"opentine","version":1}`, 65457), "", objects.ReasonConfigOversized},
		{"tokens under budget", pad(`{"format":3,"object_hash":"sha256","pad":[`, "[],", `[]],"repository":"opentine","version":1}`, 3000), objects.SHA256, ""},
		{"tokens over budget", pad(`{"format":3,"object_hash":"sha256","pad":[`, "[],", `[]],"repository":"opentine","version":1}`, 3400), "", objects.ReasonShapeTokensExceeded},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := ValidateConfig([]byte(c.in))
			if c.reason == "" {
				if err != nil || a != c.algo {
					t.Fatalf("got %q, %v; want %q", a, err, c.algo)
				}
				return
			}
			if !objects.HasReason(err, c.reason) {
				t.Fatalf("got %q, %v; want reason %s", a, err, c.reason)
			}
		})
	}
}
