package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/zsandbox/zsandbox/landlock"
	"github.com/zsandbox/zsandbox/policy"
)

// explanation is explain's JSON document; its fields use the policy's words.
type explanation struct {
	Schema    int                `json:"schema"`
	Backend   string             `json:"backend"`
	Cwd       string             `json:"cwd"`
	Writable  []policy.Root      `json:"writable"`
	Omitted   []policy.Omitted   `json:"omitted"`
	Hide      []policy.Hidden    `json:"hide"`
	Protected []policy.Protected `json:"protected"`
	Network   policy.Network     `json:"network"`
	Allowlist *Allowlist         `json:"allowlist,omitempty"`
	Unix      Unix               `json:"unixSockets"`
	Env       envExplanation     `json:"env"`
	Landlock  landlock.Ruleset   `json:"landlock"`
	Seccomp   seccompExplanation `json:"seccomp"`
	// Gaps are what the chosen backend cannot enforce (--backend landlock).
	Gaps    []string `json:"gaps"`
	Command []string `json:"command"`
}

type envExplanation struct {
	Dropped []string `json:"dropped"`
}

type seccompExplanation struct {
	Profile     string `json:"profile"` // "built-in" or the user's file
	NetworkDeny bool   `json:"networkDeny"`
	UnixDeny    bool   `json:"unixDeny"` // socket(AF_UNIX) refused
	// InetOnly: only AF_UNIX, AF_INET, AF_INET6, AF_NETLINK (the allowlist).
	InetOnly bool `json:"inetOnly,omitempty"`
}

// JSON writes the plan as explain's JSON document.
func (pl Plan) JSON(w io.Writer) error {
	p := pl.Policy
	doc := explanation{
		Landlock: pl.Landlock, Gaps: pl.Gaps,
		Seccomp: seccompExplanation{Profile: pl.Seccomp.Profile, NetworkDeny: pl.Seccomp.Sockets.Network, UnixDeny: pl.Seccomp.Sockets.Unix, InetOnly: pl.Seccomp.Sockets.Inet},
		Schema:  1, Backend: pl.Backend, Cwd: p.Cwd,
		Writable: p.Writable, Omitted: nonNil(p.Omitted), Hide: p.Hidden,
		Protected: nonNil(p.Protected), Network: p.Network, Allowlist: pl.Allowlist, Unix: pl.Unix,
		Env: envExplanation{Dropped: nonNil(p.DroppedEnv)}, Command: pl.Argv,
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

// Text writes the plan as explain's text, one fact per line.
func (pl Plan) Text(w io.Writer) {
	p := pl.Policy
	fmt.Fprintf(w, "backend: %s\n", pl.Backend)
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
		switch {
		case pr.Anchor != "":
			state = fmt.Sprintf("; does not exist; the caller cannot create it in %s, which is pinned in place", pr.Anchor)
		case !pr.Exists:
			state = "; does not exist; a placeholder keeps it from being created"
		}
		fmt.Fprintf(w, "  %s  (%s, in %s%s)\n", pr.Path, pr.Source, pr.Root, state)
	}
	fmt.Fprintf(w, "network: %s\n", p.Network)
	for _, l := range pl.Allowlist.lines() {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w, pl.unixLine())
	fmt.Fprintf(w, "env dropped: %s\n", orNone(strings.Join(p.DroppedEnv, " ")))
	for _, l := range pl.Landlock.Lines() {
		fmt.Fprintln(w, l)
	}
	for _, g := range pl.Gaps {
		fmt.Fprintf(w, "not enforced: %s\n", g)
	}
	fmt.Fprintf(w, "seccomp: %s profile%s\n", pl.Seccomp.Profile, pl.Seccomp.socketsText())
	if msg := pl.Bwrap.TooLarge(); pl.Backend == Bwrap && msg != "" {
		fmt.Fprintf(w, "not run: %s; exec refuses it (exit 2)\n", msg)
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// unixLine is explain's line about unix sockets.
func (pl Plan) unixLine() string {
	switch pl.Unix.Fence {
	case "":
		s := "unix sockets: allowed: " + UnixSocketsWarning
		switch {
		case !pl.NetworkDeny:
		case pl.Backend == Landlock:
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

// socketsText describes the socket rules of the filter.
func (s Seccomp) socketsText() string {
	switch n, u := s.Sockets.Network, s.Sockets.Unix; {
	case s.Sockets.Inet && u:
		return " + allowlist: socket() only AF_INET, AF_INET6, AF_NETLINK; socket(AF_UNIX) refused, socketpair only AF_UNIX stream/seqpacket, io_uring refused"
	case s.Sockets.Inet:
		return " + allowlist: socket() only AF_UNIX (--allow-unix-sockets), AF_INET, AF_INET6, AF_NETLINK; io_uring refused"
	case n && u:
		return " + --network deny: socket() refused, socketpair only AF_UNIX stream/seqpacket, io_uring refused"
	case n:
		return " + --network deny: socket() refused but for AF_UNIX (--allow-unix-sockets), io_uring refused"
	case u:
		return " + unix sockets off: socket(AF_UNIX) refused, socketpair only AF_UNIX stream/seqpacket, io_uring refused"
	}
	return ""
}

// BwrapText writes the exact command line, one argument per line: bin,
// the options (they reach bwrap through --args), "--" and the command.
func (pl Plan) BwrapText(w io.Writer, bin string) {
	fmt.Fprintln(w, bin)
	for _, a := range pl.Bwrap.Args {
		fmt.Fprintln(w, a)
	}
	fmt.Fprintln(w, "--")
	for _, a := range pl.Bwrap.Command {
		fmt.Fprintln(w, a)
	}
}

// SeatbeltText writes the macOS profile's parameters, then its text.
func (pl Plan) SeatbeltText(w io.Writer) error {
	if pl.SeatbeltErr != nil {
		return pl.SeatbeltErr
	}
	for _, pa := range pl.Seatbelt.Params {
		fmt.Fprintf(w, "-D %s=%s\n", pa.Name, pa.Value)
	}
	fmt.Fprint(w, pl.Seatbelt.Text)
	return nil
}
