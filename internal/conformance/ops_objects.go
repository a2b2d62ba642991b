package conformance

import (
	"github.com/tinehq/tine/objects"
)

// The object ops: the envelope (SPEC §1.2, §1.3), the payload link rules
// (SPEC §1.5), event metrics (§1.5.2), the run graph (§1.5.3), the
// annotation chain (§1.5.5) and a full verified load.
func init() {
	register("envelope.decode", opEnvelopeDecode)
	register("envelope.encode", opEnvelopeEncode)
	register("links.extract", opLinksExtract)
	register("event.metrics", opEventMetrics)
	register("run.graph", opRunGraph)
	register("annotation.chain", opAnnotationChain)
	register("object.load", opObjectLoad)
}

// decodeInput decodes the input envelope, checking it against expected_oid
// when the args carry one.
func (h *Handler) decodeInput(in Input, args opArgs) (*objects.Object, error) {
	b, err := in.bytes()
	if err != nil {
		return nil, err
	}
	if args.ExpectedOID == nil {
		return objects.DecodeEnvelope(h.Algo, b)
	}
	want, perr := objects.ParseOIDFor(h.Algo, *args.ExpectedOID)
	if perr == nil {
		return objects.DecodeEnvelopeAs(want, b)
	}
	// An expected oid that does not parse names no object, so no stored
	// bytes can match it: decode (its own errors come first), then refuse.
	o, err := objects.DecodeEnvelope(h.Algo, b)
	if err != nil {
		return nil, err
	}
	return nil, objects.Errorf(objects.ReasonEnvelopeOidMismatch, "object %s was expected as %.80q", o.ID, *args.ExpectedOID)
}

func opEnvelopeDecode(h *Handler, in Input, args opArgs) (map[string]any, error) {
	o, err := h.decodeInput(in, args)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"oid":      o.ID.String(),
		"type":     string(o.Type),
		"schema":   o.Schema,
		"encoding": o.Encoding(),
		"body_b64": b64(o.Body),
	}, nil
}

// opEnvelopeEncode is the writer side: bytes are a body as stored (a blob's
// content), a value is a json payload to canonicalise.
func opEnvelopeEncode(h *Handler, in Input, args opArgs) (map[string]any, error) {
	if args.Header == nil {
		return nil, errArgs
	}
	schema, err := args.Header.schema()
	if err != nil {
		return nil, err
	}
	t := objects.Type(args.Header.Type)
	var o *objects.Object
	if in.Kind == InputBytes {
		o, err = objects.NewObjectFromBody(h.Algo, t, schema, in.Bytes)
	} else {
		var v objects.Value
		if v, err = in.value(); err == nil {
			o, err = objects.NewJSONObject(h.Algo, t, schema, v)
		}
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"bytes_b64": b64(o.Stored()), "oid": o.ID.String()}, nil
}

// objectLinks runs the link rules on o and, when the args say what exists,
// the existence check.
func objectLinks(o *objects.Object, repo *argsRepo, args opArgs) ([]objects.OID, error) {
	links, err := objects.Links(o)
	if err != nil {
		return nil, err
	}
	if checksExistence(args) {
		if err := objects.CheckLinksExist(links, repo); err != nil {
			return nil, err
		}
	}
	return links, nil
}

func opLinksExtract(h *Handler, in Input, args opArgs) (map[string]any, error) {
	o, err := h.decodeInput(in, opArgs{})
	if err != nil {
		return nil, err
	}
	repo, err := newArgsRepo(h.Algo, args)
	if err != nil {
		return nil, err
	}
	links, err := objectLinks(o, repo, args)
	if err != nil {
		return nil, err
	}
	return map[string]any{"links": oidStrings(links)}, nil
}

// opEventMetrics applies the metrics rules to an event; other types have
// no metrics.
func opEventMetrics(h *Handler, in Input, _ opArgs) (map[string]any, error) {
	o, err := h.decodeInput(in, opArgs{})
	if err != nil || o.Type != objects.TypeEvent {
		return nil, err
	}
	return nil, objects.CheckMetrics(o.Value)
}

func opRunGraph(h *Handler, in Input, args opArgs) (map[string]any, error) {
	return nil, h.checkWithArgs(in, args, objects.CheckRunGraph)
}

func opAnnotationChain(h *Handler, in Input, args opArgs) (map[string]any, error) {
	return nil, h.checkWithArgs(in, args, objects.CheckAnnotationChain)
}

// checkWithArgs decodes the input object and runs one existence-aware rule
// against the repository the args describe.
func (h *Handler) checkWithArgs(in Input, args opArgs, check func(*objects.Object, objects.Resolver) error) error {
	o, err := h.decodeInput(in, opArgs{})
	if err != nil {
		return err
	}
	repo, err := newArgsRepo(h.Algo, args)
	if err != nil {
		return err
	}
	return check(o, repo)
}

// opObjectLoad is one full local read: decode (against expected_oid), then
// objects.Validate — links with existence, metrics, graph, chain. Without
// any existence args the reference skips only the existence check, so the
// same steps run individually then.
func opObjectLoad(h *Handler, in Input, args opArgs) (map[string]any, error) {
	o, err := h.decodeInput(in, args)
	if err != nil {
		return nil, err
	}
	repo, err := newArgsRepo(h.Algo, args)
	if err != nil {
		return nil, err
	}
	var links []objects.OID
	if checksExistence(args) {
		links, err = objects.Validate(o, repo)
	} else if links, err = objects.Links(o); err == nil {
		if err = objects.CheckRunGraph(o, repo); err == nil {
			err = objects.CheckAnnotationChain(o, repo)
		}
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"oid": o.ID.String(), "links": oidStrings(links)}, nil
}
