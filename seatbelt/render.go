// Package seatbelt renders a policy.Policy as a macOS Seatbelt profile (SBPL)
// and runs a command under it with /usr/bin/sandbox-exec.
//
// Render is pure and carries no build tag, so the profile is golden-tested on
// every OS. Every path enters the profile as a sandbox-exec parameter
// (-D NAME=VALUE, read in the text as (param "NAME")), never by string
// interpolation: a path holding quotes, parentheses or newlines cannot change
// the rules. Paths are canonicalised the way the macOS kernel reports them
// (/tmp, /var and /etc live under /private), because Seatbelt matches the
// resolved path.
//
// Only exec_darwin.go touches the OS; exec_other.go is a stub that returns a
// *SetupError.
package seatbelt

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zsandbox/zsandbox/policy"
)

// Param is one sandbox-exec parameter: the profile reads Value as
// (param "Name").
type Param struct {
	Name  string
	Value string
}

// Profile is a rendered Seatbelt profile: SBPL text that names no path, and
// the parameters that carry every path.
type Profile struct {
	Text   string
	Params []Param
}

// Args returns the sandbox-exec arguments that apply the profile, in order:
// -p TEXT, then -D NAME=VALUE for each parameter. The caller appends
// "--" and the command.
func (p Profile) Args() []string {
	args := make([]string, 0, 2+2*len(p.Params))
	args = append(args, "-p", p.Text)
	for _, prm := range p.Params {
		args = append(args, "-D", prm.Name+"="+prm.Value)
	}
	return args
}

// Render turns a policy into a Seatbelt profile. protected lists the paths
// that stay read-only inside writable roots (whether or not they exist);
// every path in the policy and in protected must be absolute.
func Render(p *policy.Policy, protected []string) (Profile, error) {
	if p == nil {
		return Profile{}, fmt.Errorf("no policy to render")
	}
	if p.Network != policy.NetworkDeny && p.Network != policy.NetworkAllow && p.Network != policy.NetworkAllowlist {
		return Profile{}, fmt.Errorf("network %q: must be allow, deny or allowlist", p.Network)
	}
	s, err := collect(p, protected)
	if err != nil {
		return Profile{}, err
	}
	// Order is security: Seatbelt applies the last rule that matches, so
	// every deny comes after the allows it must beat (see rules.go).
	var r renderer
	r.text(baseRules)
	r.pathRule(writableRules, "allow file-write*", "WRITABLE_ROOT", s.roots, "subpath")
	r.pathRule(protectedRules, "deny file-write*", "PROTECTED", s.protected, "literal", "subpath")
	r.pathRule(ancestorRules, "deny file-write-unlink file-write-create", "ANCESTOR", s.ancestors, "literal")
	hidden := r.pathRule(hiddenRules, "deny file-read* file-write*", "HIDDEN", s.hidden, "literal", "subpath")
	r.text(linkRules)
	switch {
	case p.Network == policy.NetworkAllow:
		r.text(networkAllowRules)
		if !p.UnixSockets {
			r.text(unixSocketDenyRules)
		}
	case p.Network == policy.NetworkAllowlist:
		r.text(networkDenyRules)
		r.text(networkAllowlistRules)
		if p.UnixSockets {
			r.text(unixSocketAllowRules)
		}
	default:
		r.text(networkDenyRules)
		if p.UnixSockets {
			r.text(unixSocketAllowRules)
		}
	}
	if p.Network == policy.NetworkAllow || p.UnixSockets {
		r.reuseRule(hiddenSocketRules, "deny network*", hidden, "literal", "subpath")
	}
	return Profile{Text: r.b.String(), Params: r.params}, nil
}

// proxyPortToken stands for the proxy's port in the allowlist's rule until
// the proxy listens (WithProxyPort): the port is ephemeral, chosen at
// start. sandbox-exec refuses a profile that still holds it, so a run that
// forgets to fill it in fails closed.
const proxyPortToken = "ZSANDBOX_PROXY_PORT"

// WithProxyPort returns the profile with the allowlist's rule naming the
// proxy's loopback port. The port is a number, formatted here, so it cannot
// change the rules.
func (p Profile) WithProxyPort(port int) (Profile, error) {
	if port <= 0 || port > 65535 || !strings.Contains(p.Text, proxyPortToken) {
		return Profile{}, fmt.Errorf("the profile has no allowlist rule to take proxy port %d", port)
	}
	p.Text = strings.ReplaceAll(p.Text, `"localhost:`+proxyPortToken+`"`, `"localhost:`+strconv.Itoa(port)+`"`)
	return p, nil
}

// renderer accumulates the profile text and its parameters.
type renderer struct {
	b       strings.Builder
	params  []Param
	scratch []byte // reused by reuseRule to quote a parameter name
}

func (r *renderer) text(s string) {
	r.b.WriteString(s)
}

// pathRule writes one rule with a filter per (path, kind) pair, each path
// read from a new parameter named PREFIX_i, and returns those parameter
// names. With no paths it writes nothing: a rule without filters would
// match every path.
func (r *renderer) pathRule(comment, head, prefix string, paths []string, kinds ...string) []string {
	names := make([]string, len(paths))
	for i, v := range paths {
		names[i] = prefix + "_" + strconv.Itoa(i)
		r.params = append(r.params, Param{Name: names[i], Value: v})
	}
	r.reuseRule(comment, head, names, kinds...)
	return names
}

// reuseRule writes one rule over parameters that already exist: one filter
// per line, and the zsandbox tag last on a deny.
func (r *renderer) reuseRule(comment, head string, names []string, kinds ...string) {
	if len(names) == 0 {
		return
	}
	r.text(comment)
	r.text("(")
	r.text(head)
	for _, n := range names {
		r.scratch = strconv.AppendQuote(r.scratch[:0], n) // as %q
		for _, k := range kinds {
			r.text("\n  (")
			r.text(k)
			r.text(" (param ")
			r.b.Write(r.scratch)
			r.text("))")
		}
	}
	if strings.HasPrefix(head, "deny ") {
		r.text("\n  ")
		r.text(tag)
	}
	r.text(")\n")
}
