//go:build cgo

package main

// Linked in when built with cgo, so the benchmark also times a binary that
// starts like zsandbox (which needs cgo for libseccomp).
import _ "runtime/cgo"
