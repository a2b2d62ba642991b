package objects

import (
	"errors"
	"strings"
	"testing"
)

func TestAnnotationChainEdges(t *testing.T) {
	root := mustObject(t, SHA256, TypeAnnotation, `{"target_id":"`+vR1+`","value":1}`)
	untargeted := mustObject(t, SHA256, TypeAnnotation, `{"value":1}`)
	nullTarget := mustObject(t, SHA256, TypeAnnotation, `{"target_id":null,"value":2}`)
	next := func(prev *Object, target string) *Object {
		body := `{"previous_id":"` + prev.ID.String() + `"`
		if target != "" {
			body += `,"target_id":` + target
		}
		return mustObject(t, SHA256, TypeAnnotation, body+`}`)
	}
	repo := newTestRepo(t, SHA256, nil, nil, [][]byte{root.Stored(), untargeted.Stored(), nullTarget.Stored()})
	cases := []struct {
		name string
		ann  *Object
		want string
	}{
		{"same target", next(root, `"`+vR1+`"`), ""},
		{"target dropped", next(root, ""), "chain.target-changed"},
		{"target retargeted", next(root, `"`+vR2+`"`), "chain.target-changed"},
		{"both untargeted", next(untargeted, ""), ""},
		{"absent equals null", next(nullTarget, ""), ""},
		{"target added", next(untargeted, `"`+vR1+`"`), "chain.target-changed"},
		{"no previous", root, ""},
		{"falsy previous", mustObject(t, SHA256, TypeAnnotation, `{"previous_id":null}`), ""},
		{"previous absent", mustObject(t, SHA256, TypeAnnotation, `{"previous_id":"`+vA1+`"}`), "chain.previous-unavailable"},
		{"previous not an annotation oid", mustObject(t, SHA256, TypeAnnotation, `{"previous_id":"`+vR1+`"}`), "link.annotation-previous-not-annotation"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckAnnotationChain(c.ann, repo)
			if c.want == "" {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			wantReason(t, err, c.want)
			if !strings.Contains(err.Error(), c.ann.ID.String()) {
				t.Fatalf("error %q does not name the annotation", err)
			}
		})
	}
}

func TestAnnotationChainUnreadablePredecessor(t *testing.T) {
	root := mustObject(t, SHA256, TypeAnnotation, `{"value":1}`)
	ann := mustObject(t, SHA256, TypeAnnotation, `{"previous_id":"`+root.ID.String()+`"}`)
	repo := newTestRepo(t, SHA256, nil, nil, [][]byte{root.Stored()})
	corrupt := Errorf(ReasonEnvelopeOidMismatch, "object %s: stored bytes hash elsewhere", root.ID)
	repo.fail[root.ID] = corrupt
	err := CheckAnnotationChain(ann, repo)
	wantReason(t, err, "chain.previous-unavailable")
	if !errors.Is(err, corrupt) {
		t.Fatalf("error %v does not keep the store's failure", err)
	}
}

func TestAnnotationChainIgnoresOtherTypes(t *testing.T) {
	o := mustObject(t, SHA256, TypeEvent, `{"previous_id":"`+vA1+`"}`)
	if err := CheckAnnotationChain(o, newTestRepo(t, SHA256, nil, nil, nil)); err != nil {
		t.Fatal(err)
	}
}
