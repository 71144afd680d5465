package bwrap

import "strings"

// loaderVars are the variables, besides LD_*, that glibc drops for a
// setuid program because they make it load code or data from where they
// point (iconv modules, locales, resolver files). bwrap runs outside the
// sandbox with the caller's rights, and a path they name (a project's lib/,
// a cache) may be one an earlier sandboxed run wrote: bwrap runs without
// them, and the command gets them back through --setenv.
var loaderVars = map[string]bool{
	"GCONV_PATH": true, "GETCONF_DIR": true, "HOSTALIASES": true, "LOCALDOMAIN": true,
	"LOCPATH": true, "MALLOC_TRACE": true, "NIS_PATH": true, "NLSPATH": true,
	"RESOLV_HOST_CONF": true, "RES_OPTIONS": true, "TZDIR": true,
}

func isLoaderVar(name string) bool {
	return strings.HasPrefix(name, "LD_") || loaderVars[name]
}

// HostEnv is env without the loader variables: the environment bwrap
// itself runs with.
func HostEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); !isLoaderVar(k) {
			out = append(out, kv)
		}
	}
	return out
}

// loaderEnv returns the loader variables of env as --setenv arguments.
func loaderEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); isLoaderVar(k) {
			out = append(out, "--setenv", k, v)
		}
	}
	return out
}
