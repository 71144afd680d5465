package seccomp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/zsandbox/zsandbox/profiles"
)

// ProfileError reports a seccomp profile whose content is wrong: bad JSON, an
// unknown action, a rule zsandbox cannot enforce. The fault is in the profile,
// not the host, so the CLI treats it as a usage error.
type ProfileError struct {
	Name  string // the profile's name as given to Parse, usually its path; empty for profiles built in code
	Field string // the JSON field at fault, e.g. "syscalls[3].action"; empty when it is the document as a whole
	Err   error
}

func (e *ProfileError) Error() string {
	var b strings.Builder
	b.WriteString("seccomp profile")
	if e.Name != "" {
		fmt.Fprintf(&b, " %q", e.Name)
	}
	if e.Field != "" {
		b.WriteString(": " + e.Field)
	}
	b.WriteString(": " + e.Err.Error())
	return b.String()
}

func (e *ProfileError) Unwrap() error { return e.Err }

// ErrUnsupported is returned by Compile and SealedFD where seccomp is not
// available: any OS but Linux, or a build without cgo (libseccomp).
var ErrUnsupported = errors.New("seccomp: not supported on this platform/build (needs linux and cgo)")

// errnoEPERM is the errno of SCMP_ACT_ERRNO and SCMP_ACT_TRACE without an
// errnoRet, as the runtime spec says.
const errnoEPERM = 1

// maxErrno is the largest errno the kernel passes through (MAX_ERRNO).
const maxErrno = 4095

// maxArgs is the number of syscall arguments seccomp can inspect.
const maxArgs = 6

var (
	knownActions = set(specs.ActKill, specs.ActKillProcess, specs.ActKillThread, specs.ActTrap,
		specs.ActErrno, specs.ActTrace, specs.ActAllow, specs.ActLog, specs.ActNotify)
	knownOps = set(specs.OpNotEqual, specs.OpLessThan, specs.OpLessEqual, specs.OpEqualTo,
		specs.OpGreaterEqual, specs.OpGreaterThan, specs.OpMaskedEqual)
	knownArches = set(specs.ArchX86, specs.ArchX86_64, specs.ArchX32, specs.ArchARM, specs.ArchAARCH64,
		specs.ArchMIPS, specs.ArchMIPS64, specs.ArchMIPS64N32, specs.ArchMIPSEL, specs.ArchMIPSEL64,
		specs.ArchMIPSEL64N32, specs.ArchPPC, specs.ArchPPC64, specs.ArchPPC64LE, specs.ArchS390,
		specs.ArchS390X, specs.ArchPARISC, specs.ArchPARISC64, specs.ArchRISCV64, specs.ArchLOONGARCH64,
		specs.ArchM68K, specs.ArchSH, specs.ArchSHEB)
	knownFlags = set(specs.LinuxSeccompFlagLog, specs.LinuxSeccompFlagSpecAllow,
		specs.LinuxSeccompFlagWaitKillableRecv)
)

func set[T comparable](items ...T) map[T]bool {
	m := make(map[T]bool, len(items))
	for _, it := range items {
		m[it] = true
	}
	return m
}

// Parse decodes and checks a seccomp profile. name (usually the file's path)
// only labels errors. Unknown, misspelt-case and duplicate fields, trailing
// data and anything Compile could not enforce exactly are errors, all of
// type *ProfileError.
func Parse(data []byte, name string) (*specs.LinuxSeccomp, error) {
	// Keys first: checkKeys gives the path to an unknown field, which
	// encoding/json does not. Invalid JSON is left to decode to report.
	var pe *ProfileError
	if err := checkKeys(data, name); errors.As(err, &pe) {
		return nil, pe
	}
	p, err := decode(data, name)
	if err != nil {
		return nil, err
	}
	if err := validate(p, name); err != nil {
		return nil, err
	}
	return p, nil
}

func decode(data []byte, name string) (*specs.LinuxSeccomp, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p specs.LinuxSeccomp
	if err := dec.Decode(&p); err != nil {
		return nil, decodeError(name, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &ProfileError{Name: name, Err: errors.New("unexpected data after the profile object")}
	}
	return &p, nil
}

// decodeError turns an encoding/json error into a *ProfileError with the
// field or byte offset at fault.
func decodeError(name string, err error) *ProfileError {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return &ProfileError{Name: name, Err: errors.New("empty document")}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &ProfileError{Name: name, Err: errors.New("invalid JSON: unexpected end of document")}
	case errors.As(err, &syntax):
		return &ProfileError{Name: name, Err: fmt.Errorf("invalid JSON at byte %d: %s", syntax.Offset, syntax.Error())}
	case errors.As(err, &typ):
		return &ProfileError{Name: name, Field: typ.Field, Err: fmt.Errorf("cannot use JSON %s as %s", typ.Value, typ.Type)}
	}
	return &ProfileError{Name: name, Err: errors.New(strings.TrimPrefix(err.Error(), "json: "))}
}

// Default returns zsandbox's default profile (profiles/seccomp.json), freshly
// decoded, so the caller may change it. It runs on every exec, so it skips
// Parse's key-by-key walk, which a test runs on the embedded profile instead.
func Default() *specs.LinuxSeccomp {
	const name = "profiles/seccomp.json"
	p, err := decode(profiles.Seccomp(), name)
	if err == nil {
		err = validate(p, name)
	}
	if err != nil {
		panic(err) // the embedded profile is tested; this is a build defect
	}
	return p
}

// validate checks what JSON decoding cannot: known names, argument
// comparisons libseccomp can build, and nothing bwrap could not apply.
// Compile runs it too, for profiles built in code, so it is kept cheap: the
// checks below return the field at fault and build its path only on failure.
func validate(p *specs.LinuxSeccomp, name string) error {
	if field, err := check(p); err != nil {
		return &ProfileError{Name: name, Field: field, Err: err}
	}
	return nil
}

func check(p *specs.LinuxSeccomp) (field string, err error) {
	if err := checkAction(p.DefaultAction); err != nil {
		return "defaultAction", err
	}
	if err := checkErrnoRet(p.DefaultAction, p.DefaultErrnoRet); err != nil {
		return "defaultErrnoRet", err
	}
	for i, arch := range p.Architectures {
		if !knownArches[arch] {
			return fmt.Sprintf("architectures[%d]", i), fmt.Errorf("unknown architecture %q", arch)
		}
	}
	if field, err := checkLoadable(p); err != nil {
		return field, err
	}
	def := verdictOf(p.DefaultAction, p.DefaultErrnoRet)
	for i, r := range p.Syscalls {
		if field, err := checkRule(r, def); err != nil {
			return fmt.Sprintf("syscalls[%d]", i) + field, err
		}
	}
	return checkOverlap(p)
}

// checkLoadable refuses what bwrap cannot do: it installs the filter with
// prctl(PR_SET_SECCOMP), which takes no seccomp(2) flags, and it has no
// notification listener to hand over. Dropping these silently would enforce
// something other than what the profile says.
func checkLoadable(p *specs.LinuxSeccomp) (field string, err error) {
	switch {
	case len(p.Flags) > 0 && !knownFlags[p.Flags[0]]:
		return "flags[0]", fmt.Errorf("unknown flag %q", p.Flags[0])
	case len(p.Flags) > 0:
		return "flags[0]", fmt.Errorf("flag %q is not supported: bwrap installs the filter without seccomp(2) flags", p.Flags[0])
	case p.ListenerPath != "":
		return "listenerPath", errors.New("not supported: bwrap has no seccomp notification listener")
	case p.ListenerMetadata != "":
		return "listenerMetadata", errors.New("not supported: bwrap has no seccomp notification listener")
	}
	return "", nil
}

func checkAction(a specs.LinuxSeccompAction) error {
	switch {
	case a == "":
		return errMissing
	case !knownActions[a]:
		return fmt.Errorf("unknown action %q", a)
	case a == specs.ActNotify:
		return fmt.Errorf("action %q is not supported: bwrap has no seccomp notification listener", a)
	}
	return nil
}

var errMissing = errors.New("missing")

func checkErrnoRet(a specs.LinuxSeccompAction, errno *uint) error {
	switch {
	case errno == nil:
		return nil
	case a != specs.ActErrno && a != specs.ActTrace:
		return fmt.Errorf("only used with %s and %s, not %s", specs.ActErrno, specs.ActTrace, a)
	case *errno > maxErrno:
		return fmt.Errorf("errno %d is out of range (at most %d)", *errno, maxErrno)
	}
	return nil
}

// checkRule checks one rule; field is relative to it (".action").
func checkRule(r specs.LinuxSyscall, def verdict) (field string, err error) {
	if len(r.Names) == 0 {
		return ".names", errMissing
	}
	for j, n := range r.Names {
		if err := checkName(n); err != nil {
			return fmt.Sprintf(".names[%d]", j), err
		}
	}
	if err := checkAction(r.Action); err != nil {
		return ".action", err
	}
	if err := checkErrnoRet(r.Action, r.ErrnoRet); err != nil {
		return ".errnoRet", err
	}
	if verdictOf(r.Action, r.ErrnoRet) == def {
		// libseccomp refuses such a rule; it could only matter by overriding
		// another rule for the same syscall, which libseccomp does not do.
		return ".action", errors.New("same as defaultAction, so the rule has no effect")
	}
	return checkArgs(r.Args)
}

// checkName accepts what syscall names look like: lower case letters,
// digits and underscores, starting with a letter.
func checkName(n string) error {
	if n == "" {
		return errMissing
	}
	for i, c := range []byte(n) {
		if !(c >= 'a' && c <= 'z' || i > 0 && (c >= '0' && c <= '9' || c == '_')) {
			return fmt.Errorf("invalid syscall name %q", n)
		}
	}
	return nil
}

// checkArgs also refuses what libseccomp would reject or silently never match:
// two comparisons on one argument, and a MASKED_EQ value with bits outside
// its mask. (OCI's MASKED_EQ: value is the mask, valueTwo the expected value.)
func checkArgs(args []specs.LinuxSeccompArg) (field string, err error) {
	var seen [maxArgs]bool
	for k, a := range args {
		if field, err := checkArg(a, seen); err != nil {
			return fmt.Sprintf(".args[%d]", k) + field, err
		}
		seen[a.Index] = true
	}
	return "", nil
}

func checkArg(a specs.LinuxSeccompArg, seen [maxArgs]bool) (field string, err error) {
	switch {
	case a.Index >= maxArgs:
		return ".index", fmt.Errorf("%d is out of range (0 to %d)", a.Index, maxArgs-1)
	case seen[a.Index]:
		return ".index", fmt.Errorf("argument %d is compared twice in one rule; use one rule per comparison", a.Index)
	case a.Op == "":
		return ".op", errMissing
	case !knownOps[a.Op]:
		return ".op", fmt.Errorf("unknown operator %q", a.Op)
	case a.Op != specs.OpMaskedEqual && a.ValueTwo != 0:
		return ".valueTwo", fmt.Errorf("only used with %s", specs.OpMaskedEqual)
	case a.Op == specs.OpMaskedEqual && a.ValueTwo&^a.Value != 0:
		return ".valueTwo", fmt.Errorf("%#x has bits outside the mask %#x, so the rule never matches", a.ValueTwo, a.Value)
	}
	return "", nil
}

// checkOverlap refuses rule combinations that libseccomp resolves silently
// in a way the profile does not say: when a syscall has an unconditional rule,
// libseccomp drops every conditional rule for it, so a conditional rule with
// another action would never apply.
func checkOverlap(p *specs.LinuxSeccomp) (field string, err error) {
	uncond := map[string]int{} // syscall name -> index of its first unconditional rule
	for i, r := range p.Syscalls {
		for _, n := range r.Names {
			if _, ok := uncond[n]; !ok && len(r.Args) == 0 {
				uncond[n] = i
			}
		}
	}
	for i, r := range p.Syscalls {
		for _, n := range r.Names {
			j, ok := uncond[n]
			switch {
			case !ok || i == j || sameAction(p.Syscalls[j], r):
			case len(r.Args) == 0:
				return fmt.Sprintf("syscalls[%d]", i), fmt.Errorf("%q already has an unconditional rule with another action in syscalls[%d]", n, j)
			default:
				return fmt.Sprintf("syscalls[%d]", i), fmt.Errorf("%q has an unconditional rule with another action in syscalls[%d], which would override this conditional rule", n, j)
			}
		}
	}
	return "", nil
}

func sameAction(a, b specs.LinuxSyscall) bool {
	return verdictOf(a.Action, a.ErrnoRet) == verdictOf(b.Action, b.ErrnoRet)
}

// verdict is an action with its errno, which is EPERM when unset, and zero
// for actions that return none.
type verdict struct {
	action specs.LinuxSeccompAction
	errno  uint
}

func verdictOf(a specs.LinuxSeccompAction, errno *uint) verdict {
	switch {
	case a != specs.ActErrno && a != specs.ActTrace:
		return verdict{action: a}
	case errno == nil:
		return verdict{a, errnoEPERM}
	}
	return verdict{a, *errno}
}

// Allows reports whether p lets the system call name run whatever its
// arguments: no restrictive rule names it, and an unconditional permissive
// rule does or the default action is permissive.
func Allows(p *specs.LinuxSeccomp, name string) bool {
	allowed := permissive(p.DefaultAction)
	for _, r := range p.Syscalls {
		if !slices.Contains(r.Names, name) {
			continue
		}
		if !permissive(r.Action) {
			return false
		}
		allowed = allowed || len(r.Args) == 0
	}
	return allowed
}

// permissive reports whether an action lets the syscall run.
func permissive(a specs.LinuxSeccompAction) bool {
	return a == specs.ActAllow || a == specs.ActLog
}
