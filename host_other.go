//go:build !linux

package main

// overflowUID: no user namespaces here.
func overflowUID() int { return -1 }
