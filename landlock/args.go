package landlock

import (
	"errors"
	"fmt"
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
	keyNetwork  = "network="
	keyWritable = "writable="
)

// Args encodes c for the stage-2 command line: the arguments between
// Stage2Arg and the "--" that precedes the command. Command builds the
// whole line.
func (c Config) Args() []string {
	net := "allow"
	if c.NetworkDeny {
		net = "deny"
	}
	args := make([]string, 0, 2+len(c.Writable))
	args = append(args, keyMode+string(c.Mode.orAuto()), keyNetwork+net)
	for _, w := range c.Writable {
		args = append(args, keyWritable+w)
	}
	return args
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
// landlock and network exactly once, writable roots absolute. The C stage 2
// (stage2_linux.c) parses the same way; TestCStage2ParseArgs compares them.
func ParseArgs(args []string) (Config, []string, error) {
	var c Config
	var sawNetwork bool
	for i, a := range args {
		if a == "--" {
			return finishArgs(c, sawNetwork, args[i+1:])
		}
		var err error
		switch {
		case strings.HasPrefix(a, keyMode):
			err = parseModeArg(&c, a[len(keyMode):])
		case strings.HasPrefix(a, keyNetwork):
			err = parseNetworkArg(&c, &sawNetwork, a[len(keyNetwork):])
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

func finishArgs(c Config, sawNetwork bool, argv []string) (Config, []string, error) {
	switch {
	case c.Mode == "":
		return Config{}, nil, errors.New("stage 2: no landlock= argument")
	case !sawNetwork:
		return Config{}, nil, errors.New("stage 2: no network= argument")
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

func parseNetworkArg(c *Config, seen *bool, v string) error {
	if *seen {
		return errors.New("network= given twice")
	}
	*seen = true
	switch v {
	case "deny":
		c.NetworkDeny = true
	case "allow":
	default:
		return errors.New("network=" + quote(v) + ": must be allow or deny")
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
