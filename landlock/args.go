package landlock

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Stage2Arg is the first argument that makes zsandbox run as stage 2.
const Stage2Arg = "__stage2"

// The stage-2 command line carries the Ruleset the parent planned, as
// exact numbers: the ABI it was planned for, the handled rights and
// scopes, and one rule= argument per path rule, so the stage 2 derives
// nothing and only applies it. Each item is one KEY=VALUE argument, so no
// value is ever quoted or escaped: a path with spaces, "=", "," or "--" in
// it is still one argument, and none of them can equal the "--" that ends
// the list (every item starts with its key).
const (
	keyABI   = "abi="
	keyFS    = "fs="
	keyNet   = "net="
	keyScope = "scope="
	keyRule  = "rule=" // rule=ACCESS,FLAGS,PATH: ACCESS in hex, FLAGS from "ein"
	keyPort  = "port=" // port=ACCESS,PORT: network rights in hex, PORT in decimal
)

// The rule flags, in the order they are written.
const (
	flagExact    = 'e'
	flagIfExists = 'i'
	flagNoFollow = 'n'
)

// maxABIDigits bounds abi=, maxHexDigits the rights and maxPortDigits a
// port, so that parsing cannot overflow.
const (
	maxABIDigits  = 4
	maxHexDigits  = 16
	maxPortDigits = 5
)

// refusedArg is what a refused ruleset encodes to: no stage 2 accepts it,
// so a refused plan that reached bubblewrap by mistake still runs nothing.
const refusedArg = "refused"

// Args encodes rs for the stage-2 command line: the arguments between
// Stage2Arg and the "--" that precedes the command. A ruleset that is not
// enforced (off, unavailable) is abi=0: the stage 2 applies nothing.
func (rs Ruleset) Args() []string {
	if rs.Status == StatusRefused {
		return []string{refusedArg}
	}
	if rs.Status != StatusEnforced {
		return []string{keyABI + "0", keyFS + "0", keyNet + "0", keyScope + "0"}
	}
	args := make([]string, 0, 4+len(rs.Paths))
	args = append(args, keyABI+strconv.Itoa(rs.ABI), keyFS+hexText(uint64(rs.HandledFS)),
		keyNet+hexText(uint64(rs.HandledNet)), keyScope+hexText(uint64(rs.Scoped)))
	for _, p := range rs.Paths {
		args = append(args, keyRule+hexText(uint64(p.Access))+","+p.flags()+","+p.Path)
	}
	for _, p := range rs.Ports {
		args = append(args, keyPort+hexText(uint64(p.Access))+","+strconv.Itoa(int(p.Port)))
	}
	return args
}

func hexText(v uint64) string { return strconv.FormatUint(v, 16) }

// flags spells the rule's conditions for rule=.
func (p PathRule) flags() string {
	var b []byte
	if p.Exact {
		b = append(b, flagExact)
	}
	if p.IfExists {
		b = append(b, flagIfExists)
	}
	if p.NoFollow {
		b = append(b, flagNoFollow)
	}
	return string(b)
}

// Command returns the full stage-2 argv that runs argv under rs: exe (how
// the runner names the zsandbox binary, e.g. /proc/self/fd/N), Stage2Arg,
// rs.Args(), "--", argv.
func (rs Ruleset) Command(exe string, argv []string) []string {
	args := rs.Args()
	out := make([]string, 0, len(args)+len(argv)+3)
	out = append(out, exe, Stage2Arg)
	out = append(out, args...)
	out = append(out, "--")
	return append(out, argv...)
}

// Command is the stage-2 argv for the fence planned for c: Rules(c, c.ABI).
func (c Config) Command(exe string, argv []string) []string {
	return Rules(c, c.ABI).Command(exe, argv)
}

// ParseArgs decodes the arguments after Stage2Arg: the Ruleset (enforced
// when abi is not 0, with the rights and rules given; off otherwise), and
// the command after the first "--". abi, fs, net and scope must appear
// exactly once, every rule's path be absolute. The C stage 2
// (stage2_linux.c) parses the same way; TestCStage2ParseArgs compares them.
func ParseArgs(args []string) (Ruleset, []string, error) {
	var rs Ruleset
	var seen seenKeys
	for i, a := range args {
		if a == "--" {
			return finishArgs(rs, seen, args[i+1:])
		}
		var err error
		switch {
		case strings.HasPrefix(a, keyABI):
			err = parseABIArg(&rs.ABI, &seen.abi, a[len(keyABI):])
		case strings.HasPrefix(a, keyFS):
			err = parseHexArg((*uint64)(&rs.HandledFS), &seen.fs, keyFS, a[len(keyFS):])
		case strings.HasPrefix(a, keyNet):
			err = parseHexArg((*uint64)(&rs.HandledNet), &seen.net, keyNet, a[len(keyNet):])
		case strings.HasPrefix(a, keyScope):
			err = parseHexArg((*uint64)(&rs.Scoped), &seen.scope, keyScope, a[len(keyScope):])
		case strings.HasPrefix(a, keyRule):
			var p PathRule
			if p, err = parseRuleArg(a[len(keyRule):]); err == nil {
				rs.Paths = append(rs.Paths, p)
			}
		case strings.HasPrefix(a, keyPort):
			var p PortRule
			if p, err = parsePortArg(a[len(keyPort):]); err == nil {
				rs.Ports = append(rs.Ports, p)
			}
		default:
			err = errors.New("unknown argument " + quote(a))
		}
		if err != nil {
			return Ruleset{}, nil, fmt.Errorf("stage 2: %w", err)
		}
	}
	return Ruleset{}, nil, errors.New(`stage 2: no "--" before the command`)
}

// seenKeys are the keys that must appear exactly once.
type seenKeys struct{ abi, fs, net, scope bool }

func finishArgs(rs Ruleset, seen seenKeys, argv []string) (Ruleset, []string, error) {
	switch {
	case !seen.abi:
		return Ruleset{}, nil, errors.New("stage 2: no abi= argument")
	case !seen.fs:
		return Ruleset{}, nil, errors.New("stage 2: no fs= argument")
	case !seen.net:
		return Ruleset{}, nil, errors.New("stage 2: no net= argument")
	case !seen.scope:
		return Ruleset{}, nil, errors.New("stage 2: no scope= argument")
	case len(argv) == 0:
		return Ruleset{}, nil, errors.New("stage 2: no command")
	case rs.ABI == 0 && (rs.HandledFS != 0 || rs.HandledNet != 0 || rs.Scoped != 0 || len(rs.Paths) != 0 || len(rs.Ports) != 0):
		return Ruleset{}, nil, errors.New("stage 2: abi=0 with rights or rules")
	}
	rs.Status = StatusOff
	if rs.ABI > 0 {
		rs.Status = StatusEnforced
	}
	return rs, argv, nil
}

// parseABIArg reads abi=: a decimal number of at most maxABIDigits digits.
func parseABIArg(abi *int, seen *bool, v string) error {
	if *seen {
		return errors.New("abi= given twice")
	}
	*seen = true
	n := 0
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' || i >= maxABIDigits {
			n = -1
			break
		}
		n = n*10 + int(v[i]-'0')
	}
	if v == "" || n < 0 {
		return errors.New("abi=" + quote(v) + ": must be a Landlock ABI version")
	}
	*abi = n
	return nil
}

// parseHexArg reads key's value into *dst: 1 to maxHexDigits lowercase
// hexadecimal digits, as Args writes them.
func parseHexArg(dst *uint64, seen *bool, key, v string) error {
	if *seen {
		return errors.New(key + " given twice")
	}
	*seen = true
	n, ok := parseHex(v)
	if !ok {
		return errors.New(key + quote(v) + ": must be a hexadecimal number")
	}
	*dst = n
	return nil
}

func parseHex(v string) (uint64, bool) {
	if v == "" || len(v) > maxHexDigits {
		return 0, false
	}
	var n uint64
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c >= '0' && c <= '9':
			n = n<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			n = n<<4 | uint64(c-'a'+10)
		default:
			return 0, false
		}
	}
	return n, true
}

// parseRuleArg reads rule=ACCESS,FLAGS,PATH.
func parseRuleArg(v string) (PathRule, error) {
	bad := errors.New("rule=" + quote(v) + ": must be ACCESS,FLAGS,/PATH")
	access, rest, ok := strings.Cut(v, ",")
	flags, path, ok2 := strings.Cut(rest, ",")
	n, ok3 := parseHex(access)
	if !ok || !ok2 || !ok3 || !strings.HasPrefix(path, "/") {
		return PathRule{}, bad
	}
	p := PathRule{Path: path, Access: AccessFS(n)}
	for _, f := range []struct {
		c   byte
		set *bool
	}{{flagExact, &p.Exact}, {flagIfExists, &p.IfExists}, {flagNoFollow, &p.NoFollow}} {
		if strings.HasPrefix(flags, string(f.c)) {
			*f.set, flags = true, flags[1:]
		}
	}
	if flags != "" {
		return PathRule{}, bad
	}
	return p, nil
}

// parsePortArg reads port=ACCESS,PORT: PORT is 1 to maxPortDigits decimal
// digits, 1 to 65535.
func parsePortArg(v string) (PortRule, error) {
	bad := errors.New("port=" + quote(v) + ": must be ACCESS,PORT")
	access, port, ok := strings.Cut(v, ",")
	n, ok2 := parseHex(access)
	if !ok || !ok2 || port == "" || len(port) > maxPortDigits {
		return PortRule{}, bad
	}
	p := 0
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return PortRule{}, bad
		}
		p = p*10 + int(port[i]-'0')
	}
	if p < 1 || p > 65535 {
		return PortRule{}, bad
	}
	return PortRule{Port: uint16(p), Access: AccessNet(n)}, nil
}

// quote is how stage 2's messages show a path or argument, in both stage
// 2s (stage2_linux.c has its twin): in double quotes, printable ASCII as
// is but for \" and \\, every other byte as \xNN. Unlike %q it needs no
// UTF-8 or Unicode tables, and it never writes a control byte.
func quote(s string) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c >= 0x20 && c < 0x7f:
			b = append(b, c)
		default:
			b = append(b, '\\', 'x', hex[c>>4], hex[c&0xf])
		}
	}
	return string(append(b, '"'))
}
