//go:build !unix

package policy

// creatable: without a way to ask, every missing protected path is taken
// as one the command could create.
func creatable(string) (string, bool) { return "", true }
