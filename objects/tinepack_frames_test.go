package objects

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The two oids the conformance pack frames are built from.
const (
	packVecBlob  = "blob:sha256:c5251cf4c201ede74c8e3564dc6d02e597cbc20fbd91a84704a91179757bd008"
	packVecEvent = "event:sha256:caf08d2a763207de229c0791833cb7bd446ee3e2492dd390ec57456770db5361"
	packVecEmpty = "event:sha256:49501062e21825447aa20eef34bcb3ad391102db92d76f5631714813bf6c43a7"
)

// readPackFrame reads a conformance frame from the repository's copy of the
// suite, skipping the test when the copy is absent.
func readPackFrame(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "conformance", "frames", name))
	if os.IsNotExist(err) {
		t.Skipf("conformance frame %s is not in testdata/conformance/frames (copy the suite to run this test)", name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// oidStrings spells ids sorted, as the suite compares unordered arrays.
func oidStrings(ids []OID) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.String()
	}
	slices.Sort(out)
	return out
}

func TestInspectPackAcceptVectors(t *testing.T) {
	for _, tc := range []struct {
		id, frame, packID string
		objects, shallow  []string
	}{
		{"pack.inspect.empty", "ec48562a5ea8c3f044ffb43bc04a38fd86e63703d884a12d4347c8e144dac57d.pack",
			"sha256:a3ee6af344b90b0340dc27c8ce5ff99f8b83ac3244035fae1ac77fc69ecb3028", []string{}, []string{}},
		{"pack.inspect.objects-array-order-is-unconstrained", "27abf482ac4355bd6ddf97c5f7e0ed349741303ac09e7062161092a6102970a5.pack",
			"sha256:111ebbfaac36614849d6a23ed00c729882c1c21ad27fc2bf1a057e3ff3c2855d", []string{packVecBlob, packVecEvent}, []string{}},
		{"pack.inspect.one-object-one-boundary", "442aa9654d524e7f5a126361fae7e655e03a6f2a79dae292432b2927bd99f516.pack",
			"sha256:6e2d6ecfdbd0bdf80c4e7d323222720efa3cac545e28107b7a7de88bb61e01dc", []string{packVecEvent}, []string{packVecBlob}},
		{"pack.inspect.shallow-that-is-not-a-link", "b07314af0d7a0e748b59d5dc2cc847a4a8a30c95178947b716f1bcac3a394b24.pack",
			"sha256:f81f98906a4decb172f2e38c79184e6a5e78ac6ce02c24509f9049c855f2042f", []string{packVecEvent}, []string{packVecBlob, packVecEmpty}},
		{"pack.inspect.two-blobs", "9724cd40119a69e273f004b49750c92a081c9737df597557ecd598d14a84c42d.pack",
			"sha256:a4fc8b11d75d7dd380f7a25935fffed503b173c3ce1c357c863baf3ed6047d7d", []string{packVecBlob, packVecEmpty}, []string{}},
		{"pack.inspect.two-objects-sorted", "54ee043f9130d8279bb0f8cd55bbcbdaa0c81a738a36ac01e35dda98738cf395.pack",
			"sha256:57de764ac4ca287dfa27ee440a3b7e9c3d4e0c972da0b68565d387857ba581c7", []string{packVecBlob, packVecEvent}, []string{}},
	} {
		t.Run(tc.id, func(t *testing.T) {
			pf, err := InspectPack(readPackFrame(t, tc.frame), SHA256)
			if err != nil {
				t.Fatal(err)
			}
			if pf.ID != tc.packID {
				t.Errorf("pack id %s, want %s", pf.ID, tc.packID)
			}
			if got := oidStrings(pf.ObjectIDs()); !slices.Equal(got, tc.objects) {
				t.Errorf("objects %v, want %v", got, tc.objects)
			}
			if got := oidStrings(pf.Shallow); !slices.Equal(got, tc.shallow) {
				t.Errorf("shallow %v, want %v", got, tc.shallow)
			}
		})
	}
}

// TestInspectPackShallowBound runs the 16-bounds stress pair at the
// manifest count bound: 10000 boundary entries inspect, 10001 do not.
func TestInspectPackShallowBound(t *testing.T) {
	pf, err := InspectPack(readPackFrame(t, "1254a597c372e57fb8859f6e28765284e88f5b50dc94cee9d5d1a4ca1b010eb9.pack"), SHA256)
	if err != nil {
		t.Fatalf("bounds.pack.shallow-at-10000: %v", err)
	}
	// The suite compares this case by the sha256 of the sorted output
	// encoded with sorted keys and no spaces.
	out, err := json.Marshal(map[string]any{"objects": oidStrings(pf.ObjectIDs()), "pack_id": pf.ID, "shallow": oidStrings(pf.Shallow)})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(out)
	if got := hex.EncodeToString(sum[:]); got != "75a50a3296ab2d3f2a9b3cb1e0c095346b36cf1504499847f1c1ce06170ac41d" {
		t.Errorf("output sha256 %s (%d shallow entries)", got, len(pf.Shallow))
	}
	_, err = InspectPack(readPackFrame(t, "2c57261f4ca69bb1c862f777949cddee3af342f269732cf96aa466881a7c0521.pack"), SHA256)
	if !HasReason(err, ReasonPackTooManyObjects) {
		t.Fatalf("bounds.pack.shallow-at-10001: %v, want pack.too-many-objects", err)
	}
}

func TestInstallPackVectors(t *testing.T) {
	for _, tc := range []struct {
		id, frame string
		reasons   []Reason // empty: accept
		packID    string
		objects   []string
	}{
		{id: "pack.install.self-contained", frame: "54ee043f9130d8279bb0f8cd55bbcbdaa0c81a738a36ac01e35dda98738cf395.pack",
			packID: "sha256:57de764ac4ca287dfa27ee440a3b7e9c3d4e0c972da0b68565d387857ba581c7", objects: []string{packVecBlob, packVecEvent}},
		{id: "pack.install.simple", frame: "442aa9654d524e7f5a126361fae7e655e03a6f2a79dae292432b2927bd99f516.pack",
			packID: "sha256:6e2d6ecfdbd0bdf80c4e7d323222720efa3cac545e28107b7a7de88bb61e01dc", objects: []string{packVecEvent}},
		{id: "pack.install.shallow-is-not-the-link-closure", frame: "b07314af0d7a0e748b59d5dc2cc847a4a8a30c95178947b716f1bcac3a394b24.pack",
			reasons: []Reason{ReasonPackShallowNotLinkClosure}},
		{id: "pack.install.unresolved-link", frame: "bca7cf35d45163e85c12dfc9a12bd68eba2e38ed64e9c9fdc53a491c4d1963a1.pack",
			reasons: []Reason{ReasonPackUnresolvedLink, ReasonPackShallowNotLinkClosure}},
	} {
		t.Run(tc.id, func(t *testing.T) {
			s := newMapStore(SHA256)
			pf, err := InstallPack(context.Background(), readPackFrame(t, tc.frame), s, nil)
			if len(tc.reasons) > 0 {
				got, _ := ReasonOf(err)
				if err == nil || !slices.Contains(tc.reasons, got) {
					t.Fatalf("error %v (reason %q), want one of %v", err, got, tc.reasons)
				}
				if s.Len() != 0 {
					t.Fatalf("a refused pack left %d objects in the store", s.Len())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if pf.ID != tc.packID {
				t.Errorf("pack id %s, want %s", pf.ID, tc.packID)
			}
			if got := oidStrings(pf.ObjectIDs()); !slices.Equal(got, tc.objects) {
				t.Errorf("objects %v, want %v", got, tc.objects)
			}
			if s.Len() != len(tc.objects) {
				t.Errorf("store holds %d objects, want %d", s.Len(), len(tc.objects))
			}
			for _, o := range pf.Objects {
				if _, err := s.Get(context.Background(), o.ID); err != nil {
					t.Errorf("installed object: %v", err)
				}
			}
			if got, want := oidStrings(pf.Boundary), oidStrings(pf.Shallow); !slices.Equal(got, want) {
				t.Errorf("boundary to record %v, want the declared %v (the store is empty)", got, want)
			}
		})
	}
}

// packManifestVectors are the pack.manifest cases of 28-pack: stored
// envelopes in, the manifest body and pack id out.
var packManifestVectors = []struct {
	id        string
	envelopes []string
	body      string
	packID    string
}{
	{
		id: "pack.manifest.one-object",
		envelopes: []string{
			"eyJlbmNvZGluZyI6Impzb24iLCJzY2hlbWEiOjEsInR5cGUiOiJldmVudCJ9CnsiY29zdCI6MCwiaW5wdXRfYmxvYiI6ImJs" +
				"b2I6c2hhMjU2OmM1MjUxY2Y0YzIwMWVkZTc0YzhlMzU2NGRjNmQwMmU1OTdjYmMyMGZiZDkxYTg0NzA0YTkxMTc5NzU3YmQw" +
				"MDgiLCJraW5kIjoibW9kZWwiLCJvdXRwdXRfYmxvYiI6ImJsb2I6c2hhMjU2OmM1MjUxY2Y0YzIwMWVkZTc0YzhlMzU2NGRj" +
				"NmQwMmU1OTdjYmMyMGZiZDkxYTg0NzA0YTkxMTc5NzU3YmQwMDgiLCJwYXJlbnRfaWRzIjpbXX0=",
		},
		body: "eyJvYmplY3RzIjpbeyJkYXRhIjoiZXlKbGJtTnZaR2x1WnlJNkltcHpiMjRpTENKelkyaGxiV0VpT2pFc0luUjVjR1VpT2lK" +
			"bGRtVnVkQ0o5Q25zaVkyOXpkQ0k2TUN3aWFXNXdkWFJmWW14dllpSTZJbUpzYjJJNmMyaGhNalUyT21NMU1qVXhZMlkwWXpJ" +
			"d01XVmtaVGMwWXpobE16VTJOR1JqTm1Rd01tVTFPVGRqWW1NeU1HWmlaRGt4WVRnME56QTBZVGt4TVRjNU56VTNZbVF3TURn" +
			"aUxDSnJhVzVrSWpvaWJXOWtaV3dpTENKdmRYUndkWFJmWW14dllpSTZJbUpzYjJJNmMyaGhNalUyT21NMU1qVXhZMlkwWXpJ" +
			"d01XVmtaVGMwWXpobE16VTJOR1JqTm1Rd01tVTFPVGRqWW1NeU1HWmlaRGt4WVRnME56QTBZVGt4TVRjNU56VTNZbVF3TURn" +
			"aUxDSndZWEpsYm5SZmFXUnpJanBiWFgwPSIsImlkIjoiZXZlbnQ6c2hhMjU2OmNhZjA4ZDJhNzYzMjA3ZGUyMjljMDc5MTgz" +
			"M2NiN2JkNDQ2ZWUzZTI0OTJkZDM5MGVjNTc0NTY3NzBkYjUzNjEifV0sInNoYWxsb3ciOlsiYmxvYjpzaGEyNTY6YzUyNTFj" +
			"ZjRjMjAxZWRlNzRjOGUzNTY0ZGM2ZDAyZTU5N2NiYzIwZmJkOTFhODQ3MDRhOTExNzk3NTdiZDAwOCJdLCJ2ZXJzaW9uIjox" +
			"fQ==",
		packID: "sha256:6e2d6ecfdbd0bdf80c4e7d323222720efa3cac545e28107b7a7de88bb61e01dc",
	},
	{
		id: "pack.manifest.self-contained",
		envelopes: []string{
			"eyJlbmNvZGluZyI6InJhdyIsInNjaGVtYSI6MSwidHlwZSI6ImJsb2IifQpoZWxsbwo=",
			"eyJlbmNvZGluZyI6Impzb24iLCJzY2hlbWEiOjEsInR5cGUiOiJldmVudCJ9CnsiY29zdCI6MCwiaW5wdXRfYmxvYiI6ImJs" +
				"b2I6c2hhMjU2OmM1MjUxY2Y0YzIwMWVkZTc0YzhlMzU2NGRjNmQwMmU1OTdjYmMyMGZiZDkxYTg0NzA0YTkxMTc5NzU3YmQw" +
				"MDgiLCJraW5kIjoibW9kZWwiLCJvdXRwdXRfYmxvYiI6ImJsb2I6c2hhMjU2OmM1MjUxY2Y0YzIwMWVkZTc0YzhlMzU2NGRj" +
				"NmQwMmU1OTdjYmMyMGZiZDkxYTg0NzA0YTkxMTc5NzU3YmQwMDgiLCJwYXJlbnRfaWRzIjpbXX0=",
		},
		body: "eyJvYmplY3RzIjpbeyJkYXRhIjoiZXlKbGJtTnZaR2x1WnlJNkluSmhkeUlzSW5OamFHVnRZU0k2TVN3aWRIbHdaU0k2SW1K" +
			"c2IySWlmUXBvWld4c2J3bz0iLCJpZCI6ImJsb2I6c2hhMjU2OmM1MjUxY2Y0YzIwMWVkZTc0YzhlMzU2NGRjNmQwMmU1OTdj" +
			"YmMyMGZiZDkxYTg0NzA0YTkxMTc5NzU3YmQwMDgifSx7ImRhdGEiOiJleUpsYm1OdlpHbHVaeUk2SW1wemIyNGlMQ0p6WTJo" +
			"bGJXRWlPakVzSW5SNWNHVWlPaUpsZG1WdWRDSjlDbnNpWTI5emRDSTZNQ3dpYVc1d2RYUmZZbXh2WWlJNkltSnNiMkk2YzJo" +
			"aE1qVTJPbU0xTWpVeFkyWTBZekl3TVdWa1pUYzBZemhsTXpVMk5HUmpObVF3TW1VMU9UZGpZbU15TUdaaVpEa3hZVGcwTnpB" +
			"MFlUa3hNVGM1TnpVM1ltUXdNRGdpTENKcmFXNWtJam9pYlc5a1pXd2lMQ0p2ZFhSd2RYUmZZbXh2WWlJNkltSnNiMkk2YzJo" +
			"aE1qVTJPbU0xTWpVeFkyWTBZekl3TVdWa1pUYzBZemhsTXpVMk5HUmpObVF3TW1VMU9UZGpZbU15TUdaaVpEa3hZVGcwTnpB" +
			"MFlUa3hNVGM1TnpVM1ltUXdNRGdpTENKd1lYSmxiblJmYVdSeklqcGJYWDA9IiwiaWQiOiJldmVudDpzaGEyNTY6Y2FmMDhk" +
			"MmE3NjMyMDdkZTIyOWMwNzkxODMzY2I3YmQ0NDZlZTNlMjQ5MmRkMzkwZWM1NzQ1Njc3MGRiNTM2MSJ9XSwic2hhbGxvdyI6" +
			"W10sInZlcnNpb24iOjF9",
		packID: "sha256:57de764ac4ca287dfa27ee440a3b7e9c3d4e0c972da0b68565d387857ba581c7",
	},
	{
		id: "pack.manifest.shallow-is-the-link-closure",
		envelopes: []string{
			"eyJlbmNvZGluZyI6Impzb24iLCJzY2hlbWEiOjEsInR5cGUiOiJldmVudCJ9CnsiY29zdCI6MCwiaW5wdXRfYmxvYiI6ImJs" +
				"b2I6c2hhMjU2OmM1MjUxY2Y0YzIwMWVkZTc0YzhlMzU2NGRjNmQwMmU1OTdjYmMyMGZiZDkxYTg0NzA0YTkxMTc5NzU3YmQw" +
				"MDgiLCJraW5kIjoibW9kZWwiLCJvdXRwdXRfYmxvYiI6ImJsb2I6c2hhMjU2OmM1MjUxY2Y0YzIwMWVkZTc0YzhlMzU2NGRj" +
				"NmQwMmU1OTdjYmMyMGZiZDkxYTg0NzA0YTkxMTc5NzU3YmQwMDgiLCJwYXJlbnRfaWRzIjpbXX0=",
		},
		body: "eyJvYmplY3RzIjpbeyJkYXRhIjoiZXlKbGJtTnZaR2x1WnlJNkltcHpiMjRpTENKelkyaGxiV0VpT2pFc0luUjVjR1VpT2lK" +
			"bGRtVnVkQ0o5Q25zaVkyOXpkQ0k2TUN3aWFXNXdkWFJmWW14dllpSTZJbUpzYjJJNmMyaGhNalUyT21NMU1qVXhZMlkwWXpJ" +
			"d01XVmtaVGMwWXpobE16VTJOR1JqTm1Rd01tVTFPVGRqWW1NeU1HWmlaRGt4WVRnME56QTBZVGt4TVRjNU56VTNZbVF3TURn" +
			"aUxDSnJhVzVrSWpvaWJXOWtaV3dpTENKdmRYUndkWFJmWW14dllpSTZJbUpzYjJJNmMyaGhNalUyT21NMU1qVXhZMlkwWXpJ" +
			"d01XVmtaVGMwWXpobE16VTJOR1JqTm1Rd01tVTFPVGRqWW1NeU1HWmlaRGt4WVRnME56QTBZVGt4TVRjNU56VTNZbVF3TURn" +
			"aUxDSndZWEpsYm5SZmFXUnpJanBiWFgwPSIsImlkIjoiZXZlbnQ6c2hhMjU2OmNhZjA4ZDJhNzYzMjA3ZGUyMjljMDc5MTgz" +
			"M2NiN2JkNDQ2ZWUzZTI0OTJkZDM5MGVjNTc0NTY3NzBkYjUzNjEifV0sInNoYWxsb3ciOlsiYmxvYjpzaGEyNTY6YzUyNTFj" +
			"ZjRjMjAxZWRlNzRjOGUzNTY0ZGM2ZDAyZTU5N2NiYzIwZmJkOTFhODQ3MDRhOTExNzk3NTdiZDAwOCJdLCJ2ZXJzaW9uIjox" +
			"fQ==",
		packID: "sha256:6e2d6ecfdbd0bdf80c4e7d323222720efa3cac545e28107b7a7de88bb61e01dc",
	},
}

func TestPackManifestVectors(t *testing.T) {
	for _, tc := range packManifestVectors {
		t.Run(tc.id, func(t *testing.T) {
			envs := make([][]byte, len(tc.envelopes))
			for i, e := range tc.envelopes {
				var err error
				if envs[i], err = base64.StdEncoding.DecodeString(e); err != nil {
					t.Fatal(err)
				}
			}
			body, id, err := PackManifestFor(SHA256, envs)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := base64.StdEncoding.DecodeString(tc.body)
			if !bytes.Equal(body, want) {
				t.Errorf("manifest body\n got %s\nwant %s", body, want)
			}
			if id != tc.packID {
				t.Errorf("pack id %s, want %s", id, tc.packID)
			}
		})
	}
}
