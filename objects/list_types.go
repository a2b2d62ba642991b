package objects

import (
	"context"
	"errors"
	"slices"
)

// TypeLister is implemented by stores that can enumerate the objects of
// some types without listing the others: a reader that wants the few
// attestations and annotations of a repository (the catalog, gc's
// reachability) need not list, or sort, its hundreds of thousands of events
// and blobs. Loose objects live in one directory per type (SPEC §2.1) and
// every storage-pack index key carries its type, so each store can skip the
// types not asked for.
type TypeLister interface {
	// ListTypes calls fn for every object id whose type is one of types, in
	// enumeration order (SPEC §2.1: by type, then by hex digest), each id
	// once, as List would with the other types left out. The order and
	// repetitions of types do not matter; a string that is not an object
	// type lists nothing. It stops at and returns the first error fn
	// returns.
	ListTypes(ctx context.Context, types []Type, fn func(OID) error) error
}

// Lister enumerates a store's ids in enumeration order (Store.List).
type Lister interface {
	List(ctx context.Context, fn func(OID) error) error
}

// errPastTypes ends ListTypes' fallback listing once it is past the last
// type asked for.
var errPastTypes = errors.New("listing past the types asked for")

// ListTypes calls fn for the ids of l whose type is one of types, in
// enumeration order: through l's own ListTypes when l is a TypeLister,
// else by filtering l.List, which it stops after the last type asked for
// (enumeration is by type first).
func ListTypes(ctx context.Context, l Lister, types []Type, fn func(OID) error) error {
	if tl, ok := l.(TypeLister); ok {
		return tl.ListTypes(ctx, types, fn)
	}
	want := TypesInOrder(types)
	if len(want) == 0 {
		return ctx.Err()
	}
	last := want[len(want)-1]
	err := l.List(ctx, func(id OID) error {
		switch {
		case id.Type > last:
			return errPastTypes
		case !slices.Contains(want, id.Type):
			return nil
		}
		return fn(id)
	})
	if errors.Is(err, errPastTypes) {
		return nil
	}
	return err
}

// TypesInOrder returns the object types among types, each once, in
// enumeration order (Types); strings that are not object types are left
// out. A TypeLister lists its types in this order.
func TypesInOrder(types []Type) []Type {
	out := make([]Type, 0, len(Types))
	for _, t := range Types {
		if slices.Contains(types, t) {
			out = append(out, t)
		}
	}
	return out
}
