//go:build linux && cgo

package seccomp

import (
	"errors"
	"fmt"
	"io"
	"strings"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	libseccomp "github.com/seccomp/libseccomp-golang"
	"golang.org/x/sys/unix"
)

// actions and ops map the profile's names to libseccomp's. validate has
// checked every name; a missing one would map to libseccomp's "invalid"
// zero value, which libseccomp refuses.
var (
	actions = map[specs.LinuxSeccompAction]libseccomp.ScmpAction{
		specs.ActKill:        libseccomp.ActKillThread,
		specs.ActKillThread:  libseccomp.ActKillThread,
		specs.ActKillProcess: libseccomp.ActKillProcess,
		specs.ActTrap:        libseccomp.ActTrap,
		specs.ActErrno:       libseccomp.ActErrno,
		specs.ActTrace:       libseccomp.ActTrace,
		specs.ActLog:         libseccomp.ActLog,
		specs.ActAllow:       libseccomp.ActAllow,
	}
	ops = map[specs.LinuxSeccompOperator]libseccomp.ScmpCompareOp{
		specs.OpNotEqual:     libseccomp.CompareNotEqual,
		specs.OpLessThan:     libseccomp.CompareLess,
		specs.OpLessEqual:    libseccomp.CompareLessOrEqual,
		specs.OpEqualTo:      libseccomp.CompareEqual,
		specs.OpGreaterEqual: libseccomp.CompareGreaterEqual,
		specs.OpGreaterThan:  libseccomp.CompareGreater,
		specs.OpMaskedEqual:  libseccomp.CompareMaskedEqual,
	}
)

// Compile checks p and builds its filter as a BPF program (an array of
// struct sock_filter), ready for SealedFD and bwrap --seccomp.
//
// The filter covers the native ABI only. If p lists architectures, the
// native one must be among them (rules are written for an ABI's argument
// layout); the others are ignored. A syscall made through any other ABI
// (i386 or x32 on amd64, arm on arm64) kills the process: that is
// libseccomp's bad-architecture action, which on amd64 also catches x32
// syscall numbers (bit 30 set) under the native audit arch.
//
// Syscall names resolve against the native ABI. A name libseccomp knows
// that has no number there (socketcall on amd64) cannot be called, so it is
// skipped. A name libseccomp does not know at all is a *ProfileError in a
// rule that refuses the call, since that rule could not be enforced (a typo,
// or a syscall newer than this libseccomp); in a permissive rule (ALLOW,
// LOG) it is skipped, which leaves the syscall to the default action and
// never makes the filter more permissive.
func Compile(p *specs.LinuxSeccomp) ([]byte, error) {
	if p == nil {
		return nil, errors.New("seccomp: no profile")
	}
	if err := validate(p, ""); err != nil {
		return nil, err
	}
	f, err := newFilter(p)
	if err != nil {
		return nil, err
	}
	defer f.Release()
	for i := range p.Syscalls {
		if err := addRule(f, p.Syscalls[i], i); err != nil {
			return nil, err
		}
	}
	return export(f)
}

// newFilter creates the filter context. Load-time attributes (no_new_privs,
// TSYNC) are left alone: the filter is exported, not loaded here, and bwrap
// sets no_new_privs itself before it installs the program.
func newFilter(p *specs.LinuxSeccomp) (*libseccomp.ScmpFilter, error) {
	if err := checkNativeArch(p.Architectures); err != nil {
		return nil, err
	}
	f, err := libseccomp.NewFilter(action(p.DefaultAction, p.DefaultErrnoRet))
	if err != nil {
		return nil, fmt.Errorf("seccomp: defaultAction: %w", err)
	}
	if err := f.SetBadArchAction(libseccomp.ActKillProcess); err != nil {
		f.Release()
		return nil, fmt.Errorf("seccomp: bad-architecture action: %w", err)
	}
	return f, nil
}

func checkNativeArch(arches []specs.Arch) error {
	if len(arches) == 0 {
		return nil
	}
	native, err := libseccomp.GetNativeArch()
	if err != nil {
		return fmt.Errorf("seccomp: native architecture: %w", err)
	}
	for _, a := range arches {
		got, err := libseccomp.GetArchFromString(strings.TrimPrefix(string(a), "SCMP_ARCH_"))
		if err == nil && got == native {
			return nil
		}
	}
	return &ProfileError{Field: "architectures", Err: fmt.Errorf("does not list this machine's architecture (%s); the filter covers the native ABI only", native)}
}

func action(a specs.LinuxSeccompAction, errno *uint) libseccomp.ScmpAction {
	act := actions[a]
	if a == specs.ActErrno || a == specs.ActTrace {
		n := uint(errnoEPERM)
		if errno != nil {
			n = *errno // validate bounds it by maxErrno
		}
		act = act.SetReturnCode(int16(n))
	}
	return act
}

func addRule(f *libseccomp.ScmpFilter, r specs.LinuxSyscall, i int) error {
	conds, err := conditions(r.Args)
	if err != nil {
		return fmt.Errorf("seccomp: syscalls[%d].args: %w", i, err)
	}
	act := action(r.Action, r.ErrnoRet)
	for j, name := range r.Names {
		nr, ok, err := resolve(name, r.Action, fmt.Sprintf("syscalls[%d].names[%d]", i, j))
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if len(conds) == 0 {
			err = f.AddRule(nr, act)
		} else {
			err = f.AddRuleConditional(nr, act, conds)
		}
		if err != nil {
			return fmt.Errorf("seccomp: syscalls[%d] %q: %w", i, name, err)
		}
	}
	return nil
}

// resolve returns the native syscall number of name, or ok == false when the
// name is to be skipped (see Compile).
func resolve(name string, a specs.LinuxSeccompAction, field string) (nr libseccomp.ScmpSyscall, ok bool, err error) {
	nr, err = libseccomp.GetSyscallFromName(name)
	switch {
	case err != nil && permissive(a):
		return 0, false, nil
	case err != nil:
		major, minor, micro := libseccomp.GetLibraryVersion()
		return 0, false, &ProfileError{Field: field, Err: fmt.Errorf(
			"syscall %q is unknown to libseccomp %d.%d.%d (a typo, or newer than this libseccomp), so the rule cannot be enforced",
			name, major, minor, micro)}
	case nr < 0: // a pseudo number: the syscall exists on other ABIs only
		return 0, false, nil
	}
	return nr, true, nil
}

func conditions(args []specs.LinuxSeccompArg) ([]libseccomp.ScmpCondition, error) {
	var conds []libseccomp.ScmpCondition
	for _, a := range args {
		// For MASKED_EQ, OCI's value is the mask and valueTwo the expected
		// value, the same order as libseccomp's datum_a and datum_b.
		c, err := libseccomp.MakeCondition(a.Index, ops[a.Op], a.Value, a.ValueTwo)
		if err != nil {
			return nil, err
		}
		conds = append(conds, c)
	}
	return conds, nil
}

// export writes the BPF program through a scratch memfd: libseccomp before
// 2.6 can only export to a file descriptor.
func export(f *libseccomp.ScmpFilter) ([]byte, error) {
	scratch, err := memfd("zsandbox-seccomp-export", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	defer scratch.Close()
	if err := f.ExportBPF(scratch); err != nil {
		return nil, fmt.Errorf("seccomp: export BPF: %w", err)
	}
	if _, err := scratch.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("seccomp: export BPF: %w", err)
	}
	bpf, err := io.ReadAll(scratch)
	if err != nil {
		return nil, fmt.Errorf("seccomp: export BPF: %w", err)
	}
	if err := checkProgram(bpf); err != nil {
		return nil, err
	}
	return bpf, nil
}
