package main

import (
	"runtime"

	"github.com/zsandbox/zsandbox/bwrap"
	"github.com/zsandbox/zsandbox/policy"
)

// backendName is the backend exec uses on this platform.
func backendName() string {
	switch runtime.GOOS {
	case "linux":
		return "bwrap"
	case "darwin":
		return "seatbelt"
	}
	return "none (" + runtime.GOOS + " is not supported)"
}

// execOptions are the bwrap plan options exec uses for p, shared with
// explain so that what explain prints is what exec runs.
func execOptions(_ *policy.Policy) bwrap.Options {
	return bwrap.Options{}
}
