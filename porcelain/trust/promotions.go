package trust

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tinehq/tine/objects"
	"github.com/tinehq/tine/porcelain/runs"
	"github.com/tinehq/tine/refs"
)

// Promotion is one promotions/<name> ref with its history.
type Promotion struct {
	Name string `json:"name"`
	Ref  string `json:"ref"`
	Run  string `json:"run"`
	// History is the ref's reflog, newest first.
	History []PromotionEvent `json:"history"`
}

// PromotionEvent is one reflog row of a promotion ref. Who, Why and Policy
// are split out of the actor tine promote writes ("<who>: <why> [policy
// <oid>]"); a row written otherwise keeps its whole actor in Who.
type PromotionEvent struct {
	Time   string `json:"time"`
	Old    string `json:"old,omitempty"`
	New    string `json:"new"`
	Actor  string `json:"actor"`
	Who    string `json:"who"`
	Why    string `json:"why,omitempty"`
	Policy string `json:"policy,omitempty"`
}

// PromotionsResult is what `tine promotions` reports.
type PromotionsResult struct {
	Promotions []Promotion `json:"promotions"`
}

// RefHistory lists refs and reads their reflogs: all Promotions needs of a
// repository (*refs.Store is one).
type RefHistory interface {
	runs.RefLister
	runs.Reflogger
}

// Promotions lists every promotions/ ref, sorted by name, each with its
// reflog (who moved it, when, from what, and why).
func Promotions(ctx context.Context, rh RefHistory) (*PromotionsResult, error) {
	res := &PromotionsResult{Promotions: []Promotion{}}
	err := rh.List(ctx, "promotions/", func(name string, id objects.OID) error {
		p := Promotion{Name: strings.TrimPrefix(name, "promotions/"), Ref: name, Run: id.String(), History: []PromotionEvent{}}
		rows, err := rh.Reflog(name)
		if err != nil {
			return fmt.Errorf("reflog of %s: %w", name, err)
		}
		for i := len(rows) - 1; i >= 0; i-- {
			p.History = append(p.History, promotionEvent(rows[i]))
		}
		res.Promotions = append(res.Promotions, p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("promotions: %w", err)
	}
	return res, nil
}

// promotionEvent splits a reflog row's actor into who, why and policy.
func promotionEvent(e refs.ReflogEntry) PromotionEvent {
	ev := PromotionEvent{Time: e.Time().UTC().Format(time.RFC3339Nano), New: e.New.String(), Actor: e.Actor, Who: e.Actor}
	if !e.Old.IsZero() {
		ev.Old = e.Old.String()
	}
	who, rest, ok := strings.Cut(e.Actor, ": ")
	if !ok {
		return ev
	}
	ev.Who, ev.Why = who, rest
	if i := strings.LastIndex(rest, " [policy "); i >= 0 && strings.HasSuffix(rest, "]") {
		ev.Why, ev.Policy = rest[:i], rest[i+len(" [policy "):len(rest)-1]
	}
	return ev
}
