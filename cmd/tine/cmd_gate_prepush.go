package main

import "github.com/tinehq/tine/porcelain/gates"

// prePushRun prints the outcome of `tine gate setup --pre-push` or
// `tine gate uninstall --pre-push`.
func prePushRun(e *env, asJSON bool, res *gates.PrePushResult, err error) error {
	if err != nil {
		return err
	}
	return e.emit(asJSON, res, func(p *printer) {
		switch res.Action {
		case "foreign":
			p.printf("pre-push: %s was not written by tine; left as it is\n", res.Path)
		case "absent":
			p.printf("pre-push: no hook at %s\n", res.Path)
		default:
			p.printf("pre-push: %s (%s)\n", res.Path, res.Action)
		}
	})
}
