// The C stage 2 (stage2_linux.c) runs from a constructor and needs no
// declarations. These are its test hooks, called from Go through
// stage2_c_linux.go so that the tests can hold each piece against the Go
// code it mirrors.

#include <stddef.h>

// zs_stage2_active is 1 when the constructor takes over "__stage2" in this
// build (glibc on amd64 or arm64, not built with -tags zsandbox_gostage2).
int zs_stage2_active(void);

// The hooks below write their answer to a malloc'd buffer (*out, *outlen)
// that the caller frees.

// zs_test_quote quotes s as quote (args.go) does.
void zs_test_quote(const char *s, char **out, size_t *outlen);

// zs_test_errno spells errno e as errText (stage2_linux.go) does.
void zs_test_errno(int e, char **out, size_t *outlen);

// zs_test_parse parses the stage-2 arguments args[:n] (args[n] is NULL) and
// returns 1 and a description of the Ruleset (see describeParse), or 0 and
// the error message.
int zs_test_parse(int n, char **args, char **out, size_t *outlen);
