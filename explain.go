package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/zsandbox/zsandbox/bwrap"
	"github.com/zsandbox/zsandbox/landlock"
	"github.com/zsandbox/zsandbox/policy"
	"github.com/zsandbox/zsandbox/seatbelt"
)

func explainCommand() *cli.Command {
	return &cli.Command{
		Name:      "explain",
		Usage:     "print what a command would be allowed to do; runs nothing",
		ArgsUsage: "[-- COMMAND [ARG...]]",
		Description: `Examples:
   zsandbox explain
   zsandbox explain --writable ~/.cache/go-build --format json
   zsandbox explain --format bwrap -- go test ./...`,
		Flags: append(policyFlags(), &cli.StringFlag{
			Name: "format", Value: "text", Usage: "`text`, json, bwrap or seatbelt",
		}),
		OnUsageError: onUsageError,
		Action:       runExplain,
	}
}

func runExplain(c *cli.Context) error {
	argv := c.Args().Slice()
	if len(argv) == 0 {
		argv = []string{"COMMAND"}
	}
	p, rc, err := resolve(c)
	if err != nil {
		return err
	}
	rs, err := landlockPlan(p, rc)
	if err != nil {
		return err
	}
	w := c.App.Writer
	switch f := c.String("format"); f {
	case "text":
		explainText(w, p, rc, rs)
	case "json":
		return explainJSON(w, p, rc, rs, argv)
	case "bwrap":
		explainBwrap(w, p, rc, rs, argv)
	case "seatbelt":
		return explainSeatbelt(w, p)
	default:
		return usageErrorf("--format %q: must be text, json, bwrap or seatbelt", f)
	}
	return nil
}

// explanation is the JSON document; its fields use the policy's words.
type explanation struct {
	Schema    int                `json:"schema"`
	Backend   string             `json:"backend"`
	Cwd       string             `json:"cwd"`
	Writable  []policy.Root      `json:"writable"`
	Omitted   []policy.Omitted   `json:"omitted"`
	Hide      []policy.Hidden    `json:"hide"`
	Protected []policy.Protected `json:"protected"`
	Network   policy.Network     `json:"network"`
	Unix      unixExplanation    `json:"unixSockets"`
	Env       envExplanation     `json:"env"`
	Landlock  landlock.Ruleset   `json:"landlock"`
	Seccomp   seccompExplanation `json:"seccomp"`
	// Gaps are what the chosen backend cannot enforce (--backend landlock).
	Gaps    []string `json:"gaps"`
	Command []string `json:"command"`
}

// fifoGap is what a sandbox without Landlock cannot stop: a FIFO is
// opened for writing through a read-only mount, so one outside the
// writable roots (a named pipe some host program reads) is a channel out.
const fifoGap = "writes into FIFOs (named pipes) outside the writable roots: a read-only mount does not stop them, only Landlock does " +
	"(use --landlock auto on a kernel with Landlock, or --landlock require)"

// backendGaps are what the chosen backend cannot enforce with rs.
func backendGaps(rc runConfig, rs landlock.Ruleset) []string {
	switch {
	case rc.backend == "landlock":
		return landlock.AloneGaps()
	case rc.backend == "bwrap" && rs.Status != landlock.StatusEnforced && rs.Status != landlock.StatusRefused:
		return []string{fifoGap}
	}
	return []string{}
}

// unixExplanation says which unix sockets the command can reach, and what
// keeps the others out.
type unixExplanation struct {
	Allowed bool `json:"allowed"` // --allow-unix-sockets
	// Fence is what refuses the host's sockets: "landlock" (the command's
	// own still work), "seccomp" (socket(AF_UNIX) refused), "sandbox"
	// (Seatbelt), or "" when allowed.
	Fence string `json:"fence"`
}

func explainUnix(p *policy.Policy, rc runConfig, rs landlock.Ruleset) unixExplanation {
	switch {
	case p.UnixSockets:
		return unixExplanation{Allowed: true}
	case rc.backend == "seatbelt":
		return unixExplanation{Fence: "sandbox"}
	case rs.FencesUnixSockets():
		return unixExplanation{Fence: "landlock"}
	}
	return unixExplanation{Fence: "seccomp"}
}

// unixLine is explain's line about unix sockets.
func unixLine(p *policy.Policy, rc runConfig, u unixExplanation) string {
	switch u.Fence {
	case "":
		s := "unix sockets: allowed: " + unixSocketsWarning
		switch {
		case p.Network != policy.NetworkDeny:
		case rc.backend == "landlock":
			s += "; abstract ones of the host stay out of reach (Landlock scoping: this backend shares the host's network namespace)"
		default:
			s += "; abstract ones of the host stay out of reach (own network namespace)"
		}
		return s
	case "landlock":
		return "unix sockets: the command's own only: Landlock refuses connections to sockets made outside the sandbox " +
			"(pathname ones by ABI 9, abstract ones by scoping); --allow-unix-sockets opens the host's"
	case "sandbox":
		return "unix sockets: refused (Seatbelt denies connecting to any unix socket but mDNSResponder's, for DNS): it cannot tell " +
			"the command's own from the host's daemons'; --allow-unix-sockets allows them"
	}
	return "unix sockets: refused (seccomp refuses socket(AF_UNIX)): this kernel cannot tell the command's own pathname sockets " +
		"from the host's (that needs Landlock ABI 9), so the host's daemons (/run/docker.sock, D-Bus, tmux, X11, ssh-agent) stay " +
		"unreachable and the command cannot serve one either; socketpair stays for stream pairs; --allow-unix-sockets allows them"
}

func lstatKind(path string) (isDir, ok bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return false, false
	}
	return fi.IsDir(), fi.Mode()&os.ModeSymlink == 0
}

func readDirNames(dir string) []string {
	ents, _ := os.ReadDir(dir)
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	return names
}

type seccompExplanation struct {
	Profile     string `json:"profile"` // "built-in" or the user's file
	NetworkDeny bool   `json:"networkDeny"`
	UnixDeny    bool   `json:"unixDeny"` // socket(AF_UNIX) refused
}

func explainSeccomp(p *policy.Policy, rc runConfig, rs landlock.Ruleset) seccompExplanation {
	s := socketRules(p, rs)
	e := seccompExplanation{Profile: "built-in", NetworkDeny: s.Network, UnixDeny: s.Unix}
	if rc.seccompProfile != "" {
		e.Profile = rc.seccompProfile
	}
	return e
}

// socketsText describes the socket rules of the filter.
func (e seccompExplanation) socketsText() string {
	switch {
	case e.NetworkDeny && e.UnixDeny:
		return " + --network deny: socket() refused, socketpair only AF_UNIX stream/seqpacket, io_uring refused"
	case e.NetworkDeny:
		return " + --network deny: socket() refused but for AF_UNIX (--allow-unix-sockets), io_uring refused"
	case e.UnixDeny:
		return " + unix sockets off: socket(AF_UNIX) refused, socketpair only AF_UNIX stream/seqpacket, io_uring refused"
	}
	return ""
}

type envExplanation struct {
	Dropped []string `json:"dropped"`
}

func explainJSON(w io.Writer, p *policy.Policy, rc runConfig, rs landlock.Ruleset, argv []string) error {
	doc := explanation{
		Landlock: rs, Gaps: backendGaps(rc, rs),
		Seccomp: explainSeccomp(p, rc, rs),
		Schema:  1, Backend: rc.backend, Cwd: p.Cwd,
		Writable: p.Writable, Omitted: nonNil(p.Omitted), Hide: p.Hidden,
		Protected: nonNil(p.Protected), Network: p.Network, Unix: explainUnix(p, rc, rs),
		Env: envExplanation{Dropped: nonNil(p.DroppedEnv)}, Command: argv,
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func explainText(w io.Writer, p *policy.Policy, rc runConfig, rs landlock.Ruleset) {
	fmt.Fprintf(w, "backend: %s\n", rc.backend)
	fmt.Fprintf(w, "cwd: %s\n", p.Cwd)
	fmt.Fprintln(w, "writable:")
	for _, r := range p.Writable {
		fmt.Fprintf(w, "  %s  (%s)\n", r.Path, r.Source)
	}
	for _, o := range p.Omitted {
		fmt.Fprintf(w, "  left out: %s  (%s: %s)\n", o.Path, o.Source, o.Reason)
	}
	fmt.Fprintln(w, "hide (unreadable and unwritable):")
	for _, h := range p.Hidden {
		state := "exists"
		if !h.Exists {
			state = "does not exist"
		}
		if h.Source != "" {
			state += "; from " + string(h.Source)
		}
		fmt.Fprintf(w, "  %s  (%s)\n", h.Path, state)
	}
	fmt.Fprintln(w, "protected (read-only inside writable roots):")
	for _, pr := range p.Protected {
		state := ""
		if !pr.Exists {
			state = "; does not exist, cannot be created"
		}
		fmt.Fprintf(w, "  %s  (%s, in %s%s)\n", pr.Path, pr.Source, pr.Root, state)
	}
	fmt.Fprintf(w, "network: %s\n", p.Network)
	fmt.Fprintln(w, unixLine(p, rc, explainUnix(p, rc, rs)))
	fmt.Fprintf(w, "env dropped: %s\n", orNone(strings.Join(p.DroppedEnv, " ")))
	for _, l := range rs.Lines() {
		fmt.Fprintln(w, l)
	}
	for _, g := range backendGaps(rc, rs) {
		fmt.Fprintf(w, "not enforced: %s\n", g)
	}
	sc := explainSeccomp(p, rc, rs)
	fmt.Fprintf(w, "seccomp: %s profile%s\n", sc.Profile, sc.socketsText())
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// explainBwrap prints the exact command line, one argument per line; the
// options reach bwrap through --args, the command after "--".
func explainBwrap(w io.Writer, p *policy.Policy, rc runConfig, rs landlock.Ruleset, argv []string) {
	bin, err := bwrap.Find(os.Getenv("PATH"), p.SystemBinary)
	if err != nil {
		bin = bwrap.SystemPath
	}
	plan := bwrap.Args(p, sandboxCommand(p, rc, rs, argv), execOptions())
	fmt.Fprintln(w, bin)
	for _, a := range plan.Args {
		fmt.Fprintln(w, a)
	}
	fmt.Fprintln(w, "--")
	for _, a := range plan.Command {
		fmt.Fprintln(w, a)
	}
}

// explainSeatbelt prints the macOS profile's parameters, then its text.
func explainSeatbelt(w io.Writer, p *policy.Policy) error {
	prof, err := seatbelt.Render(p, p.ProtectedPaths())
	if err != nil {
		return sandboxError(err.Error())
	}
	for _, pa := range prof.Params {
		fmt.Fprintf(w, "-D %s=%s\n", pa.Name, pa.Value)
	}
	fmt.Fprint(w, prof.Text)
	return nil
}

func envValue(env []string, name string) string {
	return policy.Host{Env: env}.Getenv(name)
}
