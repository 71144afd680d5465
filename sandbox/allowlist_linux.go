package sandbox

import (
	"os/exec"

	"github.com/zsandbox/zsandbox/netns"
)

// wrap starts bwrap through the namespace role and serves the listener it
// sends back; nil when there is no allowlist.
func (a *allowlistRun) wrap() func(*exec.Cmd) (func() error, error) {
	if a == nil {
		return nil
	}
	return func(cmd *exec.Cmd) (func() error, error) {
		s, err := netns.Wrap(cmd)
		if err != nil {
			return nil, err
		}
		return func() error {
			l, err := s.Listener()
			if err != nil {
				return err
			}
			a.serve(l)
			return nil
		}, nil
	}
}
