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
	w := c.App.Writer
	switch f := c.String("format"); f {
	case "text":
		return explainText(w, p, rc)
	case "json":
		return explainJSON(w, p, rc, argv)
	case "bwrap":
		explainBwrap(w, p, rc, argv)
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
	Env       envExplanation     `json:"env"`
	Landlock  landlock.Ruleset   `json:"landlock"`
	Seccomp   seccompExplanation `json:"seccomp"`
	// Gaps are what the chosen backend cannot enforce (--backend landlock).
	Gaps    []string `json:"gaps"`
	Command []string `json:"command"`
}

// landlockPlan is the Landlock ruleset exec would apply: the stage 2's
// inside bwrap, or the whole fence of --backend landlock.
func landlockPlan(p *policy.Policy, rc runConfig) landlock.Ruleset {
	if rc.backend != "landlock" {
		return landlock.Rules(landlockConfig(p, rc), landlock.ABI())
	}
	rs, err := landlock.AloneRules(aloneConfig(p), landlock.ABI(), lstatKind, readDirNames)
	if err == nil {
		err = aloneSelf(p)
	}
	if err != nil {
		rs.Status = landlock.StatusRefused
		rs.Gaps = append(rs.Gaps, landlock.Protection{What: err.Error(), Required: true})
	}
	return rs
}

func backendGaps(rc runConfig) []string {
	if rc.backend == "landlock" {
		return landlock.AloneGaps()
	}
	return []string{}
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
}

func explainSeccomp(p *policy.Policy, rc runConfig) seccompExplanation {
	s := seccompExplanation{Profile: "built-in", NetworkDeny: p.Network == policy.NetworkDeny}
	if rc.seccompProfile != "" {
		s.Profile = rc.seccompProfile
	}
	return s
}

type envExplanation struct {
	Dropped []string `json:"dropped"`
}

func explainJSON(w io.Writer, p *policy.Policy, rc runConfig, argv []string) error {
	doc := explanation{
		Landlock: landlockPlan(p, rc), Gaps: backendGaps(rc),
		Seccomp: explainSeccomp(p, rc),
		Schema:  1, Backend: rc.backend, Cwd: p.Cwd,
		Writable: p.Writable, Omitted: nonNil(p.Omitted), Hide: p.Hidden,
		Protected: nonNil(p.Protected), Network: p.Network,
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

func explainText(w io.Writer, p *policy.Policy, rc runConfig) error {
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
		fmt.Fprintf(w, "  %s  (in %s%s)\n", pr.Path, pr.Root, state)
	}
	fmt.Fprintf(w, "network: %s\n", p.Network)
	fmt.Fprintf(w, "env dropped: %s\n", orNone(strings.Join(p.DroppedEnv, " ")))
	for _, l := range landlockPlan(p, rc).Lines() {
		fmt.Fprintln(w, l)
	}
	for _, g := range backendGaps(rc) {
		fmt.Fprintf(w, "not enforced: %s\n", g)
	}
	sc := explainSeccomp(p, rc)
	fmt.Fprintf(w, "seccomp: %s profile", sc.Profile)
	if sc.NetworkDeny {
		fmt.Fprint(w, " + --network deny: socket() refused, socketpair only AF_UNIX stream/seqpacket")
	}
	fmt.Fprintln(w)
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// explainBwrap prints the exact command line, one argument per line; the
// options reach bwrap through --args, the command after "--".
func explainBwrap(w io.Writer, p *policy.Policy, rc runConfig, argv []string) {
	bin, err := bwrap.Find(os.Getenv("PATH"), p.SystemBinary)
	if err != nil {
		bin = bwrap.SystemPath
	}
	plan := bwrap.Args(p, sandboxCommand(p, rc, argv), execOptions())
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
