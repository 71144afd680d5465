//go:build linux && cgo

package landlock

// In a cgo build, stage 2 runs in C: stage2_linux.c holds a constructor that
// takes over when argv[1] is Stage2Arg, before the Go runtime starts, and
// never returns. Stage2 (Go) is what builds without cgo run, and what runs
// where the C mirror is not exact (not glibc, not amd64 or arm64) or when
// built with -tags zsandbox_gostage2. This file only exposes the C code's
// test hooks to the tests.

/*
#cgo zsandbox_gostage2 CFLAGS: -DZS_GO_STAGE2
#include <stdlib.h>
#include "stage2_linux.h"
*/
import "C"

import "unsafe"

// cStage2 reports whether the C stage 2 takes over Stage2Arg in this binary.
func cStage2() bool { return C.zs_stage2_active() != 0 }

// takeC copies and frees a hook's answer.
func takeC(p *C.char, n C.size_t) string {
	defer C.free(unsafe.Pointer(p))
	return C.GoStringN(p, C.int(n))
}

// cQuote is the C stage 2's quote. s must not contain NUL.
func cQuote(s string) string {
	var p *C.char
	var n C.size_t
	cs := C.CString(s)
	defer C.free(unsafe.Pointer(cs))
	C.zs_test_quote(cs, &p, &n)
	return takeC(p, n)
}

// cErrno is the C stage 2's text for errno e.
func cErrno(e int) string {
	var p *C.char
	var n C.size_t
	C.zs_test_errno(C.int(e), &p, &n)
	return takeC(p, n)
}

// withCArgs calls f with args as a NULL-terminated C array. The strings
// must not contain NUL (argv strings cannot).
func withCArgs(args []string, f func(n C.int, argv **C.char)) {
	argv := make([]*C.char, len(args)+1)
	for i, a := range args {
		argv[i] = C.CString(a)
	}
	defer func() {
		for _, p := range argv[:len(args)] {
			C.free(unsafe.Pointer(p))
		}
	}()
	// The array holds C pointers only, so C may read it.
	cArgv := (**C.char)(C.malloc(C.size_t(len(argv)) * C.size_t(unsafe.Sizeof(argv[0]))))
	defer C.free(unsafe.Pointer(cArgv))
	copy(unsafe.Slice(cArgv, len(argv)), argv)
	f(C.int(len(args)), cArgv)
}

// cParseArgs is the C stage 2's ParseArgs on the arguments after
// Stage2Arg: a description of the Ruleset (see describeParse), or the
// error message.
func cParseArgs(args []string) (desc string, ok bool) {
	withCArgs(args, func(n C.int, argv **C.char) {
		var p *C.char
		var l C.size_t
		ok = C.zs_test_parse(n, argv, &p, &l) != 0
		desc = takeC(p, l)
	})
	return desc, ok
}
