package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/zsandbox/zsandbox/alone"
	"github.com/zsandbox/zsandbox/exit"
	"github.com/zsandbox/zsandbox/landlock"
	"github.com/zsandbox/zsandbox/plan"
	"github.com/zsandbox/zsandbox/policy"
)

// policyFlags are the flags every policy-taking command shares. Precedence:
// flag > environment variable > settings file > default; lists add up.
// Path lists also come from ZSANDBOX_WRITABLE / ZSANDBOX_HIDE /
// ZSANDBOX_PROTECT (":"-separated,
// like PATH): they are read in request, not by the flag library, which
// would split on commas.
func policyFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "cwd", Usage: "run the command in `DIR` (default: the current directory)", EnvVars: []string{"ZSANDBOX_CWD"}},
		&cli.StringSliceFlag{Name: "writable", Usage: "also allow writes under `PATH` (repeatable; env ZSANDBOX_WRITABLE, \":\"-separated)"},
		&cli.StringSliceFlag{Name: "hide", Usage: "also hide `PATH` from the command (repeatable; env ZSANDBOX_HIDE, \":\"-separated)"},
		&cli.StringSliceFlag{Name: "protect", Usage: "also keep `PATH` read-only inside the writable roots, even if it does not exist (repeatable; env ZSANDBOX_PROTECT, \":\"-separated); --writable PATH still wins"},
		&cli.StringFlag{Name: "network", Usage: "`allow` or deny network access (default: deny; allowlist with --allow-domain)", EnvVars: []string{"ZSANDBOX_NETWORK"}},
		&cli.StringSliceFlag{Name: "allow-domain", Usage: "let the command reach `HOST` through zsandbox's proxy (host, *.name for subdomains, IP, [v6], each with an optional :PORT; repeatable; env ZSANDBOX_ALLOW_DOMAINS, \",\"-separated)"},
		&cli.StringSliceFlag{Name: "deny-domain", Usage: "refuse `HOST` even when an --allow-domain matches it (repeatable; env ZSANDBOX_DENY_DOMAINS)"},
		&cli.BoolFlag{Name: "allow-unix-sockets", Usage: "let the command connect to the host's unix sockets: its daemons (docker.sock, D-Bus, tmux, X11, ssh-agent) become reachable; off by default in every network mode", EnvVars: []string{"ZSANDBOX_ALLOW_UNIX_SOCKETS"}},
		&cli.StringSliceFlag{Name: "env", Usage: "set `KEY=VALUE` in the command's environment (repeatable)"},
		&cli.StringSliceFlag{Name: "pass-env", Usage: "pass variable `NAME` even if it looks like a credential (repeatable; env ZSANDBOX_PASS_ENV, \",\"-separated)"},
		&cli.StringFlag{Name: "backend", Usage: "`auto` (bwrap on Linux, seatbelt on macOS), bwrap, landlock (Linux without namespaces: weaker, see explain) or seatbelt", EnvVars: []string{"ZSANDBOX_BACKEND"}},
		&cli.BoolFlag{Name: "no-warning", Usage: "do not print the warning lines of --backend landlock and --allow-unix-sockets", EnvVars: []string{"ZSANDBOX_NO_WARNING"}},
		&cli.StringFlag{Name: "landlock", Usage: "`auto` adds Landlock as a second fence when the kernel has it; require refuses to run without it; off", EnvVars: []string{"ZSANDBOX_LANDLOCK"}},
		&cli.StringFlag{Name: "seccomp-profile", Usage: "replace the built-in seccomp base list with the OCI/Docker profile in `FILE` (--network deny additions still apply)", EnvVars: []string{"ZSANDBOX_SECCOMP_PROFILE"}},
		&cli.StringFlag{Name: "hint", Usage: "`auto` prints one hint line when the sandbox refused something; off stays silent", EnvVars: []string{"ZSANDBOX_HINT"}},
		&cli.StringFlag{Name: "settings", Usage: "read settings from `FILE` (default: $XDG_CONFIG_HOME/zsandbox/settings.json)", EnvVars: []string{"ZSANDBOX_SETTINGS"}},
	}
}

// runConfig is how exec runs, beyond the policy: the plan's options, and
// whether to print denial hints.
type runConfig struct {
	plan.Options
	hints bool
}

// resolve reads host facts and settings and resolves the policy.
func resolve(c *cli.Context) (*policy.Policy, runConfig, error) {
	host, err := hostFacts()
	if err != nil {
		return nil, runConfig{}, err
	}
	set, err := loadSettings(c, host)
	if err != nil {
		return nil, runConfig{}, err
	}
	rc, err := runSettings(c, set, host)
	if err != nil {
		return nil, rc, err
	}
	p, err := policy.Resolve(request(c, host, set), host)
	if err != nil {
		return nil, rc, err
	}
	return p, rc, checkInputs(p, c, set, &rc)
}

// checkInputs refuses the files zsandbox read (settings) or will read
// (a seccomp profile) and obeys when a sandboxed command could have
// written them. The default settings file may lie in a writable root
// (cwd = $HOME): every run hides it and protects it from creation.
func checkInputs(p *policy.Policy, c *cli.Context, set policy.Settings, rc *runConfig) error {
	err := p.CheckInput("the settings file", set.Path, c.String("settings") == "")
	if err != nil {
		return err
	}
	if rc.SeccompProfile == "" {
		return nil
	}
	if err := p.CheckInput("the seccomp profile", rc.SeccompProfile, false); err != nil {
		return err
	}
	rc.UserSeccomp, err = userProfile(rc.SeccompProfile)
	return err
}

func runSettings(c *cli.Context, set policy.Settings, host policy.Host) (runConfig, error) {
	var rc runConfig
	var err error
	switch h := pick(c, "hint", set.Hint); h {
	case "", "auto":
		rc.hints = true
	case "off":
	default:
		return rc, exit.Usagef("--hint %q: must be auto or off", h)
	}
	if rc.Backend, err = parseBackend(pick(c, "backend", set.Backend)); err != nil {
		return rc, err
	}
	rc.Warn = !c.Bool("no-warning")
	mode, err := landlock.ParseMode(pick(c, "landlock", set.Landlock))
	if err != nil {
		return rc, exit.Usagef("%v", err)
	}
	rc.Landlock = mode
	rc.LandlockABI = landlock.ABI()
	rc.Exe = host.Exe
	rc.FS = plan.FS{Kind: alone.Kind, List: alone.List}
	if f := pick(c, "seccomp-profile", set.SeccompProfile); f != "" {
		if rc.SeccompProfile, err = policy.Expand(f, host.Home, host.Cwd); err != nil {
			return rc, exit.Usagef("--seccomp-profile: %v", err)
		}
	}
	return rc, nil
}

func loadSettings(c *cli.Context, host policy.Host) (policy.Settings, error) {
	explicit := c.String("settings")
	return policy.LoadSettings(policy.SettingsPath(explicit, host), explicit != "")
}

// request merges settings, environment variables and flags.
func request(c *cli.Context, host policy.Host, set policy.Settings) policy.Request {
	req := policy.Request{
		Cwd:         c.String("cwd"),
		Network:     pick(c, "network", set.Network),
		UnixSockets: pickBool(c, "allow-unix-sockets", set.AllowUnixSockets),
		Hide:        concat(set.Hide, splitList(host.Getenv("ZSANDBOX_HIDE"), ":"), c.StringSlice("hide")),
		SetEnv:      concat(set.Env, c.StringSlice("env")),
		PassEnv:     concat(set.PassEnv, splitList(host.Getenv("ZSANDBOX_PASS_ENV"), ","), c.StringSlice("pass-env")),
	}
	req.AllowDomains, req.DenyDomains = domains(c, host, set)
	// The settings file is hidden, so no command can widen its next
	// sandbox: the one in use and the default one a later run would read.
	req.Hide = append(req.Hide, set.Path, policy.SettingsPath("", host))
	req.Writable = sourced(req.Writable, set.Writable, policy.SourceSettings)
	req.Writable = sourced(req.Writable, splitList(host.Getenv("ZSANDBOX_WRITABLE"), ":"), policy.SourceEnv)
	req.Writable = sourced(req.Writable, c.StringSlice("writable"), policy.SourceFlag)
	req.Protect = sourced(req.Protect, set.Protect, policy.SourceSettings)
	req.Protect = sourced(req.Protect, splitList(host.Getenv("ZSANDBOX_PROTECT"), ":"), policy.SourceProtectEnv)
	req.Protect = sourced(req.Protect, c.StringSlice("protect"), policy.SourceProtectFlag)
	return req
}

// domains are the --allow-domain / --deny-domain lists. A --network given
// as a flag or variable overrides the settings' lists as it overrides the
// settings' network: only lists given the same way can conflict with it.
func domains(c *cli.Context, host policy.Host, set policy.Settings) (allow, deny []string) {
	if c.IsSet("network") {
		set.AllowDomains, set.DenyDomains = nil, nil
	}
	allow = concat(set.AllowDomains, splitList(host.Getenv("ZSANDBOX_ALLOW_DOMAINS"), ","), c.StringSlice("allow-domain"))
	deny = concat(set.DenyDomains, splitList(host.Getenv("ZSANDBOX_DENY_DOMAINS"), ","), c.StringSlice("deny-domain"))
	return allow, deny
}

// sourced appends paths to list, each with where it was written.
func sourced(list []policy.Path, paths []string, src policy.Source) []policy.Path {
	for _, p := range paths {
		list = append(list, policy.Path{Path: p, Source: src})
	}
	return list
}

// pick returns the flag (or its environment variable) when given, else the
// settings value.
func pick(c *cli.Context, flag, setting string) string {
	if c.IsSet(flag) {
		return c.String(flag)
	}
	return setting
}

// pickBool is pick for a boolean flag; a setting the file leaves out is false.
func pickBool(c *cli.Context, flag string, setting *bool) bool {
	if c.IsSet(flag) || setting == nil {
		return c.Bool(flag)
	}
	return *setting
}

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

func splitList(s, sep string) []string {
	var out []string
	for _, f := range strings.Split(s, sep) {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}
