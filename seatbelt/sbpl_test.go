package seatbelt_test

// An independent checker for the SBPL subset the renderer may emit. It
// parses the text, rejects anything outside an explicit vocabulary
// (operations, filters, modifiers, constant strings), checks every
// (param "NAME") against the parameters, and evaluates decisions the way
// Seatbelt does: for an operation, the last matching rule wins; nothing
// matching means the (deny default) decision.
//
// The vocabulary here is written independently of rules.go on purpose: a new
// Mach service, device path or operation in the profile fails these tests
// until someone decides, here, that it is acceptable.

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/zsandbox/zsandbox/seatbelt"
)

// --- vocabulary ----------------------------------------------------------------

// opFilters lists the operations the profile may name and, for each, the
// filter categories it may use. Request-only operations (file-write-data,
// network-outbound, ...) are matched through the wildcards.
var opFilters = map[string][]string{
	"default":              nil,
	"file-read*":           {"path", "extension"},
	"file-read-data":       {"path", "extension"},
	"file-write*":          {"path", "extension"},
	"file-write-unlink":    {"path"},
	"file-write-create":    {"path"},
	"file-ioctl":           {"path"},
	"file-link":            {"path"},
	"file-clone":           {"path"},
	"process-exec":         {"path"},
	"process-fork":         nil,
	"process-info*":        {"target"},
	"signal":               {"target"},
	"sysctl-read":          {"sysctl"},
	"mach-lookup":          {"mach"},
	"ipc-posix-sem":        {"ipc"},
	"ipc-posix-shm-read*":  {"ipc"},
	"user-preference-read": nil,
	"pseudo-tty":           nil,
	"network*":             {"path", "remote"},
	"network-outbound":     {"path", "remote"},
}

// filterCategory maps each filter to its category; "meta" combines filters.
var filterCategory = map[string]string{
	"literal": "path", "subpath": "path", "prefix": "path", "regex": "path",
	"extension":   "extension",
	"global-name": "mach",
	"target":      "target",
	"sysctl-name": "sysctl", "sysctl-name-prefix": "sysctl",
	"ipc-posix-name": "ipc", "ipc-posix-name-prefix": "ipc",
	"remote":      "remote",
	"require-all": "meta", "require-any": "meta", "require-not": "meta",
}

// constants are the only strings (other than parameter names) the profile
// may contain, by filter. A path in a policy can therefore only reach the
// profile through a parameter.
var constants = map[string][]string{
	"literal": {"/dev/null", "/dev/zero", "/dev/tty", "/dev/stdout", "/dev/stderr",
		"/dev/dtracehelper", "/dev/ptmx", "/private/var/run/mDNSResponder"},
	"regex":     {"^/dev/ttys[0-9]+$", "^/dev/fd/[0-9]+$", "^/"},
	"extension": {"com.apple.sandbox.pty"},
	"global-name": {
		"com.apple.system.opendirectoryd.libinfo",
		"com.apple.system.opendirectoryd.membership",
		"com.apple.system.notification_center",
		"com.apple.logd", "com.apple.diagnosticd", "com.apple.system.logger",
		"com.apple.cfprefsd.daemon", "com.apple.cfprefsd.agent",
		// network allow only (checked by the decision table)
		"com.apple.trustd", "com.apple.trustd.agent",
		"com.apple.SystemConfiguration.DNSConfiguration",
		"com.apple.SystemConfiguration.configd",
	},
	"sysctl-name-prefix":    {"kern.procargs"},
	"ipc-posix-name":        {"apple.shm.notification_center"},
	"ipc-posix-name-prefix": {"apple.cfprefs."},
	"target":                {"same-sandbox"},
}

// --- the checked profile --------------------------------------------------------

type sbRule struct {
	allow   bool
	ops     []string
	filters []*node
	message string
	line    int
}

type sbProfile struct {
	rules  []sbRule
	params map[string]string
	used   map[string]bool
}

// checkProfile parses and validates prof against the vocabulary.
func checkProfile(prof seatbelt.Profile) (*sbProfile, error) {
	forms, err := parseSBPL(prof.Text)
	if err != nil {
		return nil, err
	}
	sp := &sbProfile{params: map[string]string{}, used: map[string]bool{}}
	if err := sp.setParams(prof.Params); err != nil {
		return nil, err
	}
	if len(forms) == 0 || !isVersion1(forms[0]) {
		return nil, fmt.Errorf("the profile must start with (version 1)")
	}
	for _, f := range forms[1:] {
		r, err := sp.rule(f)
		if err != nil {
			return nil, err
		}
		sp.rules = append(sp.rules, r)
	}
	return sp, sp.finish()
}

func (sp *sbProfile) setParams(params []seatbelt.Param) error {
	for _, prm := range params {
		if _, dup := sp.params[prm.Name]; dup {
			return fmt.Errorf("parameter %s given twice", prm.Name)
		}
		if !regexp.MustCompile(`^[A-Z]+(_[A-Z]+)*_[0-9]+$`).MatchString(prm.Name) {
			return fmt.Errorf("parameter name %q is not NAME_i", prm.Name)
		}
		if !strings.HasPrefix(prm.Value, "/") || strings.ContainsRune(prm.Value, 0) {
			return fmt.Errorf("parameter %s=%q is not an absolute path", prm.Name, prm.Value)
		}
		sp.params[prm.Name] = prm.Value
	}
	return nil
}

// finish checks the whole-profile invariants.
func (sp *sbProfile) finish() error {
	for name := range sp.params {
		if !sp.used[name] {
			return fmt.Errorf("parameter %s is never used", name)
		}
	}
	if len(sp.rules) == 0 || sp.rules[0].allow || sp.rules[0].ops[0] != "default" {
		return fmt.Errorf("the first rule must be (deny default)")
	}
	return nil
}

func isVersion1(n *node) bool {
	return n.kind == nList && len(n.items) == 2 && isSym(n.items[0], "version") &&
		n.items[1].kind == nSymbol && n.items[1].text == "1"
}

func isSym(n *node, name string) bool { return n.kind == nSymbol && n.text == name }

// rule validates one (allow|deny OP... FILTER... (with message "...")) form.
func (sp *sbProfile) rule(f *node) (sbRule, error) {
	if f.kind != nList || len(f.items) < 2 || !(isSym(f.items[0], "allow") || isSym(f.items[0], "deny")) {
		return sbRule{}, fmt.Errorf("line %d: only (allow ...) and (deny ...) may follow (version 1)", f.line)
	}
	r := sbRule{allow: f.items[0].text == "allow", line: f.line}
	rest := f.items[1:]
	for len(rest) > 0 && rest[0].kind == nSymbol {
		if _, ok := opFilters[rest[0].text]; !ok {
			return sbRule{}, fmt.Errorf("line %d: unknown operation %q", f.line, rest[0].text)
		}
		r.ops = append(r.ops, rest[0].text)
		rest = rest[1:]
	}
	if len(r.ops) == 0 {
		return sbRule{}, fmt.Errorf("line %d: rule names no operation", f.line)
	}
	for _, arg := range rest {
		if err := sp.ruleArg(&r, arg); err != nil {
			return sbRule{}, fmt.Errorf("line %d: %v", arg.line, err)
		}
	}
	if contains(r.ops, "default") && (r.allow || len(r.ops) > 1 || len(r.filters) > 0) {
		return sbRule{}, fmt.Errorf("line %d: default may only appear as (deny default)", f.line)
	}
	return r, nil
}

func (sp *sbProfile) ruleArg(r *sbRule, arg *node) error {
	if arg.kind != nList || len(arg.items) == 0 || arg.items[0].kind != nSymbol {
		return fmt.Errorf("expected a filter or (with ...), got %s", show(arg))
	}
	if arg.items[0].text == "with" {
		if len(arg.items) != 3 || !isSym(arg.items[1], "message") || arg.items[2].kind != nString {
			return fmt.Errorf("only (with message \"...\") is allowed, got %s", show(arg))
		}
		r.message = arg.items[2].text
		return nil
	}
	if r.message != "" {
		return fmt.Errorf("a filter follows (with message ...)")
	}
	if err := sp.filter(arg, r.ops); err != nil {
		return err
	}
	r.filters = append(r.filters, arg)
	return nil
}

// filter validates one filter expression for the rule's operations.
func (sp *sbProfile) filter(f *node, ops []string) error {
	name := f.items[0].text
	cat, ok := filterCategory[name]
	if !ok {
		return fmt.Errorf("unknown filter %q", name)
	}
	if cat == "meta" {
		return sp.metaFilter(f, ops)
	}
	for _, op := range ops {
		if !contains(opFilters[op], cat) {
			return fmt.Errorf("filter %s does not apply to %s", name, op)
		}
	}
	if name == "remote" {
		return remoteArg(f)
	}
	if len(f.items) != 2 {
		return fmt.Errorf("%s takes one argument, got %s", name, show(f))
	}
	return sp.filterArg(name, f.items[1])
}

// remoteArg checks (remote tcp "localhost:PORT"): the allowlist's proxy,
// TCP on loopback only, at one port (or the token WithProxyPort fills in).
func remoteArg(f *node) error {
	if len(f.items) != 3 || !isSym(f.items[1], "tcp") || f.items[2].kind != nString ||
		!regexp.MustCompile(`^localhost:([0-9]+|ZSANDBOX_PROXY_PORT)$`).MatchString(f.items[2].text) {
		return fmt.Errorf("remote: only (remote tcp \"localhost:PORT\"), got %s", show(f))
	}
	return nil
}

func (sp *sbProfile) metaFilter(f *node, ops []string) error {
	name := f.items[0].text
	if len(f.items) < 2 || name == "require-not" && len(f.items) != 2 {
		return fmt.Errorf("%s: wrong number of filters in %s", name, show(f))
	}
	for _, sub := range f.items[1:] {
		if sub.kind != nList || len(sub.items) == 0 || sub.items[0].kind != nSymbol {
			return fmt.Errorf("%s: expected filters, got %s", name, show(sub))
		}
		if err := sp.filter(sub, ops); err != nil {
			return err
		}
	}
	return nil
}

// filterArg checks a filter's argument: a parameter (path filters only) or
// one of the allowed constants.
func (sp *sbProfile) filterArg(filter string, a *node) error {
	if a.kind == nList {
		if filterCategory[filter] != "path" || filter == "regex" {
			return fmt.Errorf("%s cannot take %s", filter, show(a))
		}
		return sp.param(a)
	}
	want := nString
	switch filter {
	case "regex":
		want = nRegex
		if _, err := regexp.Compile(a.text); err != nil {
			return fmt.Errorf("regex %q: %v", a.text, err)
		}
	case "target":
		want = nSymbol
	}
	if a.kind != want {
		return fmt.Errorf("%s: wrong argument type in %s", filter, show(a))
	}
	if !contains(constants[filter], a.text) {
		return fmt.Errorf("%s %q is not an allowed constant", filter, a.text)
	}
	return nil
}

func (sp *sbProfile) param(a *node) error {
	if len(a.items) != 2 || !isSym(a.items[0], "param") || a.items[1].kind != nString {
		return fmt.Errorf("expected (param \"NAME\"), got %s", show(a))
	}
	if _, ok := sp.params[a.items[1].text]; !ok {
		return fmt.Errorf("parameter %q has no -D value (sandbox-exec would refuse the profile)", a.items[1].text)
	}
	sp.used[a.items[1].text] = true
	return nil
}

func show(n *node) string {
	switch n.kind {
	case nString:
		return fmt.Sprintf("%q", n.text)
	case nRegex:
		return fmt.Sprintf("#%q", n.text)
	case nSymbol:
		return n.text
	}
	parts := make([]string, len(n.items))
	for i, it := range n.items {
		parts[i] = show(it)
	}
	return "(" + strings.Join(parts, " ") + ")"
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// --- evaluation -------------------------------------------------------------------

// request is one access Seatbelt would decide on.
type request struct {
	op     string   // e.g. file-write-create, network-outbound, mach-lookup
	path   string   // file and socket operations
	remote string   // network-outbound to an address: "localhost:PORT", "*:443"...
	udp    bool     // remote is a UDP address (a TCP one otherwise)
	name   string   // Mach service, sysctl or POSIX IPC name
	target string   // signal, process-info: "self", "same-sandbox" or "other"
	ext    []string // sandbox extensions the path carries
}

// decide returns whether the profile allows req, and the line of the rule
// that decided (0 for the default).
func (sp *sbProfile) decide(req request) (allow bool, line int) {
	for i := len(sp.rules) - 1; i >= 0; i-- {
		r := sp.rules[i]
		if r.matches(req, sp.params) {
			return r.allow, r.line
		}
	}
	return false, 0 // (deny default), checked by finish
}

func (r sbRule) matches(req request, params map[string]string) bool {
	if !r.coversOp(req.op) {
		return false
	}
	if len(r.filters) == 0 {
		return true
	}
	for _, f := range r.filters {
		if matchFilter(f, req, params) {
			return true
		}
	}
	return false
}

// legacyGroups are pre-wildcard names SBPL still accepts for a whole
// group: (allow ipc-posix-sem) covers sem-create, sem-open, sem-wait...
var legacyGroups = map[string]string{"ipc-posix-sem": "ipc-posix-sem*"}

// coversOp: an operation ending in * covers every operation it prefixes
// (file-write* covers file-write-data and file-write-unlink); default is
// only the fallback.
func (r sbRule) coversOp(op string) bool {
	for _, o := range r.ops {
		if g, ok := legacyGroups[o]; ok {
			o = g
		}
		switch {
		case o == "default":
		case o == op:
			return true
		case strings.HasSuffix(o, "*") && strings.HasPrefix(op, strings.TrimSuffix(o, "*")):
			return true
		}
	}
	return false
}

func matchFilter(f *node, req request, params map[string]string) bool {
	name := f.items[0].text
	switch name {
	case "require-all", "require-any":
		for _, sub := range f.items[1:] {
			if matchFilter(sub, req, params) != (name == "require-all") {
				return name != "require-all"
			}
		}
		return name == "require-all"
	case "require-not":
		return !matchFilter(f.items[1], req, params)
	}
	if name == "remote" { // (remote ip|tcp|udp "HOST:PORT")
		proto := f.items[1].text
		return req.remote != "" && req.remote == f.items[2].text &&
			(proto == "ip" || proto == "udp" && req.udp || proto == "tcp" && !req.udp)
	}
	arg := argValue(f.items[1], params)
	switch name {
	case "literal":
		return req.path != "" && req.path == arg
	case "subpath":
		return req.path != "" && (req.path == arg || strings.HasPrefix(req.path, strings.TrimSuffix(arg, "/")+"/"))
	case "prefix":
		return req.path != "" && strings.HasPrefix(req.path, arg)
	case "regex":
		return req.path != "" && regexp.MustCompile(arg).MatchString(req.path)
	case "extension":
		return contains(req.ext, arg)
	case "global-name", "sysctl-name", "ipc-posix-name":
		return req.name != "" && req.name == arg
	case "sysctl-name-prefix", "ipc-posix-name-prefix":
		return req.name != "" && strings.HasPrefix(req.name, arg)
	case "target":
		return arg == "same-sandbox" && (req.target == "self" || req.target == "same-sandbox")
	}
	panic("unchecked filter " + name)
}

func argValue(a *node, params map[string]string) string {
	if a.kind == nList {
		return params[a.items[1].text]
	}
	return a.text
}
