package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/zsandbox/zsandbox/contexts"
)

// list is a repeatable string flag.
type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(s string) error { *l = append(*l, s); return nil }

// flags are every flag of zctx; each subcommand registers the ones it takes.
type flags struct {
	context   string
	cwd       string
	env       list
	passEnv   list
	timeout   time.Duration
	network   string
	writable  list
	hide      list
	isolation string
	zsandbox  string
	image     string
	mounts    list
	publish   list
	user      string
	memory    int64
	cpus      float64
	pids      int64
	host      string
	extra     map[string]*string // e2b/daytona flags, passed as Options.Extra
	set       map[string]bool    // flags given on the command line
}

// extraFlags belong to the remote contexts (issue 18); other contexts warn.
var extraFlags = []string{"pregame", "sandbox", "sandbox-on-destroy", "repo", "repo-branch"}

// storeGitToken is the one boolean remote flag: the clone's token is left
// in the sandbox only when it is given.
const storeGitToken = "store-git-token"

// optionOf maps a flag to the option name a factory's Applies lists.
var optionOf = map[string]string{
	"network": contexts.OptNetwork, "writable": contexts.OptWritable, "hide": contexts.OptHide,
	"isolation": contexts.OptIsolation, "zsandbox": contexts.OptZsandbox, "image": contexts.OptImage,
	"mount": contexts.OptMount, "publish": contexts.OptPort, "user": contexts.OptUser, "memory": contexts.OptLimits,
	"cpus": contexts.OptLimits, "pids": contexts.OptLimits, "docker-host": contexts.OptHost,
	"pregame": "pregame", "sandbox": "sandbox", "sandbox-on-destroy": "sandbox-on-destroy",
	"repo": "repo", "repo-branch": "repo-branch", storeGitToken: storeGitToken,
}

func newFlagSet(name string, f *flags, spawn, command bool) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if spawn {
		fs.StringVar(&f.context, "context", "process", "process, docker, apple or local")
		fs.StringVar(&f.network, "network", "", "allow or deny (default deny)")
		fs.Var(&f.writable, "writable", "process: extra writable root")
		fs.Var(&f.hide, "hide", "process: extra hidden path; docker, apple, local: no mount may expose it")
		fs.StringVar(&f.isolation, "isolation", "", "process: on (default) or off")
		fs.StringVar(&f.zsandbox, "zsandbox", "", "process: path of the zsandbox binary")
		fs.StringVar(&f.image, "image", "", "docker, apple, local: image")
		fs.Var(&f.mounts, "mount", "docker, apple, local: HOST:CONTAINER[:ro]")
		fs.Var(&f.publish, "publish", "docker, apple, local: [IP:]HOSTPORT:PORT[/PROTO]")
		fs.StringVar(&f.user, "user", "", "docker, apple: run user uid:gid")
		fs.Int64Var(&f.memory, "memory", 0, "docker, apple: memory limit in MiB")
		fs.Float64Var(&f.cpus, "cpus", 0, "docker, apple: CPU limit")
		fs.Int64Var(&f.pids, "pids", 0, "docker: process limit")
		fs.StringVar(&f.host, "docker-host", "", "docker: daemon address")
		f.extra = map[string]*string{}
		for _, n := range extraFlags {
			f.extra[n] = fs.String(n, "", "e2b, daytona")
		}
		stored := new(string)
		f.extra[storeGitToken] = stored
		fs.BoolFunc(storeGitToken, "e2b, daytona: leave --repo's token in the sandbox (~/.git-credentials) for git push; the agent can read it", func(v string) error {
			if v != "true" && v != "false" {
				return fmt.Errorf("want true or false")
			}
			*stored = v
			return nil
		})
	}
	if command || spawn {
		fs.StringVar(&f.cwd, "cwd", "", "working directory")
		fs.Var(&f.env, "env", "KEY=VALUE (repeatable)")
		fs.Var(&f.passEnv, "pass-env", "NAME (repeatable)")
	}
	if command {
		fs.DurationVar(&f.timeout, "timeout", 0, "kill the command after this long (exit 124)")
	}
	return fs
}

// parse parses args, allowing flags before and after positional
// arguments; everything after the first "--" is the command, untouched.
func parse(fs *flag.FlagSet, args []string) (pos, rest []string, err error) {
	for i, a := range args {
		if a == "--" {
			args, rest = args[:i], args[i+1:]
			break
		}
	}
	for {
		if err := fs.Parse(args); err != nil {
			return nil, nil, usagef("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, rest, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// options turns the spawn flags into the context's Options and warns
// about every flag the chosen context does not read.
func (f *flags) options(fs *flag.FlagSet, applies []string, warn io.Writer) (contexts.Options, error) {
	fs.Visit(func(fl *flag.Flag) {
		opt, ok := optionOf[fl.Name]
		if ok && !contains(applies, opt) {
			fmt.Fprintf(warn, "zctx: warning: --%s does not apply to the %s context; ignored\n", fl.Name, f.context)
		}
	})
	o := contexts.Options{Network: contexts.Network(f.network), Writable: f.writable, Hide: f.hide,
		Isolation: f.isolation, Zsandbox: f.zsandbox, Image: f.image, User: f.user, Host: f.host,
		Limits: contexts.Limits{MemoryMiB: f.memory, CPUs: f.cpus, Pids: f.pids}}
	for _, m := range f.mounts {
		mt, err := parseMount(m)
		if err != nil {
			return o, err
		}
		// --mount .:/workspace means this directory; the daemon needs
		// an absolute path.
		if mt.Source, err = filepath.Abs(mt.Source); err != nil {
			return o, usagef("--mount %q: %v", m, err)
		}
		o.Mounts = append(o.Mounts, mt)
	}
	for _, p := range f.publish {
		pt, err := parsePort(p)
		if err != nil {
			return o, err
		}
		o.Ports = append(o.Ports, pt)
	}
	for n, v := range f.extra {
		if *v != "" {
			if o.Extra == nil {
				o.Extra = map[string]string{}
			}
			o.Extra[n] = *v
		}
	}
	return o, nil
}

func parseMount(s string) (contexts.Mount, error) {
	parts := strings.Split(s, ":")
	m := contexts.Mount{}
	switch {
	case len(parts) == 2:
	case len(parts) == 3 && (parts[2] == "ro" || parts[2] == "rw"):
		m.ReadOnly = parts[2] == "ro"
	default:
		return m, usagef("--mount %q: want HOST:CONTAINER or HOST:CONTAINER:ro", s)
	}
	m.Source, m.Target = parts[0], parts[1]
	if m.Source == "" || !strings.HasPrefix(m.Target, "/") {
		return m, usagef("--mount %q: the host path must be set and the container path absolute", s)
	}
	return m, nil
}

// parsePort reads [IP:]HOSTPORT:PORT[/PROTO].
func parsePort(s string) (contexts.Port, error) {
	bad := usagef("--publish %q: want [IP:]HOSTPORT:PORT[/tcp|udp]", s)
	spec, proto, _ := strings.Cut(s, "/")
	if proto != "" && proto != "tcp" && proto != "udp" {
		return contexts.Port{}, bad
	}
	parts := strings.Split(spec, ":")
	p := contexts.Port{Proto: proto}
	if len(parts) == 3 {
		p.HostIP, parts = parts[0], parts[1:]
	}
	if len(parts) != 2 {
		return p, bad
	}
	host, err1 := strconv.ParseUint(parts[0], 10, 16)
	ctr, err2 := strconv.ParseUint(parts[1], 10, 16)
	if err1 != nil || err2 != nil || ctr == 0 {
		return p, bad
	}
	p.HostPort, p.ContainerPort = uint16(host), uint16(ctr)
	return p, nil
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func usagef(format string, args ...any) error {
	return contexts.Errorf(contexts.ErrUsage, format, args...)
}
