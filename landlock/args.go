package landlock

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Stage2Arg is the first argument that makes zsandbox run as stage 2.
const Stage2Arg = "__stage2"

// The stage-2 command line carries the Config as one KEY=VALUE argument per
// item, so no value is ever quoted or escaped: a path with spaces, "=" or
// "--" in it is still one argument, and none of them can equal the "--"
// that ends the list (every item starts with its key).
const (
	keyMode     = "landlock="
	keyABI      = "abi="
	keyNetwork  = "network="
	keyUnix     = "unix="
	keyWritable = "writable="
)

// maxABIDigits bounds abi= so that parsing it cannot overflow.
const maxABIDigits = 4

// Args encodes c for the stage-2 command line: the arguments between
// Stage2Arg and the "--" that precedes the command. Command builds the
// whole line.
func (c Config) Args() []string {
	args := make([]string, 0, 4+len(c.Writable))
	args = append(args, keyMode+string(c.Mode.orAuto()), keyABI+strconv.Itoa(c.ABI),
		keyNetwork+allowDeny(!c.NetworkDeny), keyUnix+allowDeny(c.UnixSockets))
	for _, w := range c.Writable {
		args = append(args, keyWritable+w)
	}
	return args
}

func allowDeny(allow bool) string {
	if allow {
		return "allow"
	}
	return "deny"
}

// Command returns the full stage-2 argv that runs argv under c: exe (how the
// runner names the zsandbox binary, e.g. /proc/self/fd/N), Stage2Arg,
// c.Args(), "--", argv.
func (c Config) Command(exe string, argv []string) []string {
	args := c.Args()
	out := make([]string, 0, len(args)+len(argv)+3)
	out = append(out, exe, Stage2Arg)
	out = append(out, args...)
	out = append(out, "--")
	return append(out, argv...)
}

// ParseArgs decodes the arguments after Stage2Arg: the Config, and the
// command after the first "--". Every key must appear as Args writes it:
// landlock, abi, network and unix exactly once, writable roots absolute. The C stage 2
// (stage2_linux.c) parses the same way; TestCStage2ParseArgs compares them.
func ParseArgs(args []string) (Config, []string, error) {
	var c Config
	var seen seenKeys
	for i, a := range args {
		if a == "--" {
			return finishArgs(c, seen, args[i+1:])
		}
		var err error
		switch {
		case strings.HasPrefix(a, keyMode):
			err = parseModeArg(&c, a[len(keyMode):])
		case strings.HasPrefix(a, keyABI):
			err = parseABIArg(&c, &seen.abi, a[len(keyABI):])
		case strings.HasPrefix(a, keyNetwork):
			err = parseAllowDeny(&c.NetworkDeny, true, &seen.network, "network=", a[len(keyNetwork):])
		case strings.HasPrefix(a, keyUnix):
			err = parseAllowDeny(&c.UnixSockets, false, &seen.unix, "unix=", a[len(keyUnix):])
		case strings.HasPrefix(a, keyWritable):
			err = parseWritableArg(&c, a[len(keyWritable):])
		default:
			err = errors.New("unknown argument " + quote(a))
		}
		if err != nil {
			return Config{}, nil, fmt.Errorf("stage 2: %w", err)
		}
	}
	return Config{}, nil, errors.New(`stage 2: no "--" before the command`)
}

// seenKeys are the keys that must appear exactly once, besides landlock=.
type seenKeys struct{ abi, network, unix bool }

func finishArgs(c Config, seen seenKeys, argv []string) (Config, []string, error) {
	switch {
	case c.Mode == "":
		return Config{}, nil, errors.New("stage 2: no landlock= argument")
	case !seen.abi:
		return Config{}, nil, errors.New("stage 2: no abi= argument")
	case !seen.network:
		return Config{}, nil, errors.New("stage 2: no network= argument")
	case !seen.unix:
		return Config{}, nil, errors.New("stage 2: no unix= argument")
	case len(argv) == 0:
		return Config{}, nil, errors.New("stage 2: no command")
	}
	return c, argv, nil
}

func parseModeArg(c *Config, v string) error {
	switch m := Mode(v); {
	case c.Mode != "":
		return errors.New("landlock= given twice")
	case v == "":
		return errors.New("landlock= is empty")
	case m != ModeAuto && m != ModeRequire && m != ModeOff:
		return errors.New("--landlock " + quote(v) + ": must be auto, require or off")
	default:
		c.Mode = m
		return nil
	}
}

// parseABIArg reads abi=: a decimal number of at most maxABIDigits digits.
func parseABIArg(c *Config, seen *bool, v string) error {
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
	c.ABI = n
	return nil
}

// parseAllowDeny reads the allow or deny of key into *flag: deny sets it to
// trueForDeny, allow to the opposite.
func parseAllowDeny(flag *bool, trueForDeny bool, seen *bool, key, v string) error {
	if *seen {
		return errors.New(key + " given twice")
	}
	*seen = true
	switch v {
	case "deny":
		*flag = trueForDeny
	case "allow":
		*flag = !trueForDeny
	default:
		return errors.New(key + quote(v) + ": must be allow or deny")
	}
	return nil
}

func parseWritableArg(c *Config, v string) error {
	if !strings.HasPrefix(v, "/") {
		return errors.New("writable root " + quote(v) + ": not an absolute path")
	}
	c.Writable = append(c.Writable, v)
	return nil
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
