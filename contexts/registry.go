package contexts

import (
	"sort"
	"strings"
	"sync"
)

// Network says whether commands may reach any network.
type Network string

// The network settings; the zero value means deny.
const (
	NetworkDeny  Network = "deny"
	NetworkAllow Network = "allow"
)

// Mount binds a host directory into a container.
type Mount struct {
	Source   string `json:"source"` // host path
	Target   string `json:"target"` // path in the container
	ReadOnly bool   `json:"readOnly,omitempty"`
}

// Port publishes a container port on the host. HostIP defaults to
// 127.0.0.1 (never every interface unless asked), HostPort 0 picks a free
// one, Proto defaults to tcp. Ports need the network allowed.
type Port struct {
	HostIP        string `json:"hostIP,omitempty"`
	HostPort      uint16 `json:"hostPort,omitempty"`
	ContainerPort uint16 `json:"containerPort"`
	Proto         string `json:"proto,omitempty"`
}

// Resolved returns the host address and protocol with their defaults.
func (p Port) Resolved() (hostIP, proto string) {
	hostIP, proto = p.HostIP, p.Proto
	if hostIP == "" {
		hostIP = "127.0.0.1"
	}
	if proto == "" {
		proto = "tcp"
	}
	return hostIP, proto
}

// Limits caps a container's resources; zero means no limit.
type Limits struct {
	MemoryMiB int64   `json:"memoryMiB,omitempty"`
	CPUs      float64 `json:"cpus,omitempty"`
	Pids      int64   `json:"pids,omitempty"`
}

// Options configures a context made by name (the CLI and hosts that pick a
// context from configuration). Each context reads the fields it knows and
// names them in Factory.Applies; the rest are ignored (the CLI warns).
type Options struct {
	Network  Network  // every context; default deny
	Writable []string // process: extra writable roots
	Hide     []string // process: extra hidden paths; docker, apple, local: a mount exposing one is refused
	// Isolation "off" runs process commands unsandboxed, on purpose.
	Isolation string
	Zsandbox  string // process: path of the zsandbox binary
	Image     string // docker, apple, local
	Mounts    []Mount
	Ports     []Port // docker, apple, local
	User      string // docker, apple: run user, uid:gid
	Limits    Limits
	Host      string // docker: daemon address (default DOCKER_HOST, then the local socket)
	// Labels go on every container (docker, local on docker) besides the
	// context's own: zctx's claim, by which it finds the containers of a
	// zctx that was killed before it saved their handle.
	Labels map[string]string `json:",omitempty"`
	// Extra holds options of contexts registered by others (e2b, daytona).
	Extra map[string]string
}

// Option names, as Factory.Applies and the CLI's flags spell them.
const (
	OptNetwork   = "network"
	OptWritable  = "writable"
	OptHide      = "hide"
	OptIsolation = "isolation"
	OptZsandbox  = "zsandbox"
	OptImage     = "image"
	OptMount     = "mount"
	OptPort      = "publish"
	OptUser      = "user"
	OptLimits    = "limits"
	OptHost      = "host"
)

// Factory makes a context of one kind.
type Factory struct {
	New func(Options) (Context, error)
	// Applies names the Options fields this kind reads.
	Applies []string
}

var (
	mu        sync.RWMutex
	factories = map[string]Factory{}
)

// Register makes a kind available to New. Context packages call it from
// init; registering a name twice panics (a programming error).
func Register(name string, f Factory) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := factories[name]; dup {
		panic("contexts: Register called twice for " + name)
	}
	factories[name] = f
}

// Lookup returns the factory registered under name.
func Lookup(name string) (Factory, error) {
	mu.RLock()
	defer mu.RUnlock()
	f, ok := factories[name]
	if !ok {
		return Factory{}, Errorf(ErrUsage, "unknown context %q", name).
			WithHint("use one of: " + strings.Join(namesLocked(), ", "))
	}
	return f, nil
}

// New makes the context registered under name.
func New(name string, opts Options) (Context, error) {
	f, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return f.New(opts)
}

// Names lists the registered kinds, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	return namesLocked()
}

func namesLocked() []string {
	out := make([]string, 0, len(factories))
	for n := range factories {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
