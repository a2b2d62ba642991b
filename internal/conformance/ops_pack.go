package conformance

import (
	"context"
	"fmt"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/objects/memory"
)

// The TINEPACK3 ops (SPEC §2.8): inspecting a frame, installing it into a
// repository built from the args, and building a manifest.
func init() {
	register("pack.inspect", opPackInspect)
	register("pack.install", opPackInstall)
	register("pack.manifest", opPackManifest)
}

func opPackInspect(h *Handler, in Input, _ opArgs) (map[string]any, error) {
	frame, err := in.bytes()
	if err != nil {
		return nil, err
	}
	pf, err := objects.InspectPack(frame, h.Algo)
	if err != nil {
		return nil, err
	}
	return map[string]any{"pack_id": pf.ID, "objects": oidStrings(pf.ObjectIDs()), "shallow": oidStrings(pf.Shallow)}, nil
}

// opPackInstall installs the frame into a store holding args.objects, with
// args.shallow as the repository's existing shallow boundary.
func opPackInstall(h *Handler, in Input, args opArgs) (map[string]any, error) {
	frame, err := in.bytes()
	if err != nil {
		return nil, err
	}
	repo, err := newArgsRepo(h.Algo, args)
	if err != nil {
		return nil, err
	}
	store := memory.New(h.Algo)
	ctx := context.Background()
	for _, o := range repo.stored {
		if err := store.Put(ctx, o); err != nil {
			return nil, err
		}
	}
	pf, err := objects.InstallPack(ctx, frame, store, func(id objects.OID) bool { return repo.shallow[id] })
	if err != nil {
		return nil, err
	}
	return map[string]any{"pack_id": pf.ID, "objects": oidStrings(pf.ObjectIDs())}, nil
}

// opPackManifest builds the manifest of a list of base64 envelopes, in the
// order given.
func opPackManifest(h *Handler, in Input, _ opArgs) (map[string]any, error) {
	v, err := in.value()
	if err != nil {
		return nil, err
	}
	if v.Kind != objects.KindArray {
		return nil, fmt.Errorf("%w: pack.manifest input is a JSON %s, not a list of envelopes", errArgs, v.Kind)
	}
	envs := make([][]byte, 0, len(v.Array))
	for i, e := range v.Array {
		if e.Kind != objects.KindString {
			return nil, fmt.Errorf("%w: pack.manifest input[%d] is not a string", errArgs, i)
		}
		raw, err := decodeStrictBase64([]byte(e.Str))
		if err != nil {
			return nil, fmt.Errorf("pack.manifest input[%d]: %w", i, err)
		}
		envs = append(envs, raw)
	}
	body, id, err := objects.PackManifestFor(h.Algo, envs)
	if err != nil {
		return nil, err
	}
	return map[string]any{"manifest_body_b64": b64(body), "pack_id": id}, nil
}
