package docker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/netip"
	"os"
	"strconv"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/api/types/network"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/profiles"
)

// Label marks every container this context makes (leak checks and
// cleanup look for it); LabelID carries the handle id.
const (
	Label   = "io.zsandbox.zctx"
	LabelID = "io.zsandbox.zctx.id"
)

// plan is the container a handle gets: pure data, golden-tested.
type plan struct {
	Name   string
	Config *container.Config
	Host   *container.HostConfig
}

// runUser is the user commands run as: the option, else the caller's
// uid:gid when a host directory is bind-mounted (files the command writes
// there belong to the caller, not root), else the image's user.
func runUser(o contexts.Options, uid, gid int) string {
	if o.User != "" || len(o.Mounts) == 0 {
		return o.User
	}
	return fmt.Sprintf("%d:%d", uid, gid)
}

// createPlan builds the container for handle id. Hardening beyond the
// seeds' defaults, each because a container is the only fence here: every
// capability dropped (root in the container cannot chown, mount, ptrace or
// bind low ports), no-new-privileges (setuid binaries in the image do not
// raise), the project's seccomp profile (the same kernel side doors as
// zsandbox: io_uring, bpf, keyrings, namespaces, mount API, TIOCSTI…), no
// network unless allowed, an init process that reaps and forwards signals,
// and the resource limits asked for.
func createPlan(id string, o contexts.Options, cwd string, env []string, uid, gid int) (plan, error) {
	seccomp, err := compactJSON(profiles.Seccomp())
	if err != nil {
		return plan{}, fmt.Errorf("seccomp profile: %v", err)
	}
	netMode := container.NetworkMode("none")
	if o.Network == contexts.NetworkAllow {
		netMode = ""
	}
	init := true
	hc := &container.HostConfig{
		NetworkMode: netMode,
		CapDrop:     []string{"ALL"},
		SecurityOpt: []string{"no-new-privileges", "seccomp=" + seccomp},
		Init:        &init,
	}
	hc.Resources.Memory = o.Limits.MemoryMiB << 20
	hc.Resources.NanoCPUs = int64(o.Limits.CPUs * 1e9)
	if o.Limits.Pids > 0 {
		pids := o.Limits.Pids
		hc.Resources.PidsLimit = &pids
	}
	exposed, bindings, err := ports(o)
	if err != nil {
		return plan{}, err
	}
	hc.PortBindings = bindings
	for _, m := range o.Mounts {
		// Mounts, not Binds: a missing host path is an error, not a
		// root-owned directory made on the host.
		hc.Mounts = append(hc.Mounts, mount.Mount{Type: mount.TypeBind, Source: m.Source, Target: m.Target, ReadOnly: m.ReadOnly})
	}
	cfg := &container.Config{
		Image:        image(o),
		Cmd:          []string{"sleep", "infinity"},
		WorkingDir:   cwd,
		Env:          env,
		User:         runUser(o, uid, gid),
		ExposedPorts: exposed,
		Labels:       labels(o, id),
	}
	return plan{Name: "zctx-" + id, Config: cfg, Host: hc}, nil
}

// labels are the caller's Labels, then the context's own (which win).
func labels(o contexts.Options, id string) map[string]string {
	out := map[string]string{}
	for k, v := range o.Labels {
		out[k] = v
	}
	out[Label], out[LabelID] = "1", id
	return out
}

// ports turns the published ports into the Engine's two maps.
func ports(o contexts.Options) (network.PortSet, network.PortMap, error) {
	if len(o.Ports) == 0 {
		return nil, nil, nil
	}
	if o.Network != contexts.NetworkAllow {
		return nil, nil, contexts.Errorf(contexts.ErrUsage, "published ports need the network: add --network allow")
	}
	set, bindings := network.PortSet{}, network.PortMap{}
	for _, p := range o.Ports {
		ip, proto := p.Resolved()
		port, err := network.ParsePort(fmt.Sprintf("%d/%s", p.ContainerPort, proto))
		if err != nil {
			return nil, nil, contexts.Errorf(contexts.ErrUsage, "port %d/%s: %v", p.ContainerPort, proto, err)
		}
		addr, err := netip.ParseAddr(ip)
		if err != nil {
			return nil, nil, contexts.Errorf(contexts.ErrUsage, "port host address %q: %v", ip, err)
		}
		set[port] = struct{}{}
		bindings[port] = append(bindings[port], network.PortBinding{HostIP: addr, HostPort: strconv.Itoa(int(p.HostPort))})
	}
	return set, bindings, nil
}

// DefaultImage is the seeds' default image.
const DefaultImage = "oven/bun:latest"

func image(o contexts.Options) string {
	if o.Image != "" {
		return o.Image
	}
	return DefaultImage
}

func compactJSON(b []byte) (string, error) {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return "", err
	}
	return out.String(), nil
}

var getuid, getgid = os.Getuid, os.Getgid
