package conformance

import "github.com/tinehq/tine/plumbing"

// The repository descriptor (SPEC §2.2): size, shape and compatibility.
func init() { register("config.validate", opConfigValidate) }

func opConfigValidate(h *Handler, in Input, _ opArgs) (map[string]any, error) {
	b, err := in.bytes()
	if err != nil {
		return nil, err
	}
	_, err = plumbing.ValidateConfig(b)
	return nil, err
}
