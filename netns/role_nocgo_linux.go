//go:build linux && !cgo

package netns

// cRole: without cgo the Go role runs.
func cRole() bool { return false }
