package view

import (
	"context"
	"net/http"

	"github.com/tinehq/tine/porcelain/compare"
)

// handleTable is /api/table: the runs table of tine runs (every run a
// heads/, experiments/ or promotions/ ref names, with its meters, scores,
// gate, promotions and parameters), in ref order; the page sorts it.
func (s *Server) handleTable(ctx context.Context, _ *http.Request) (any, error) {
	return compare.BuildTable(ctx, s.r, compare.TableOptions{})
}
