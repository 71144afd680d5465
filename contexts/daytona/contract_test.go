//go:build linux

package daytona

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"

	"github.com/zsandbox/zsandbox/contexts"
	"github.com/zsandbox/zsandbox/contexts/daytona/daytonatest"
)

// spec is one pinned OpenAPI file, shipped inside a served Go module.
type spec struct {
	doc    *openapi3.T
	prefix *regexp.Regexp // what of a replica URL path precedes the spec's paths
	paths  []specPath
}

type specPath struct {
	re       *regexp.Regexp
	template string
}

func loadSpec(t *testing.T, module, prefix string) *spec {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", module).Output()
	if err != nil {
		t.Fatalf("go list -m %s: %v", module, err)
	}
	file := filepath.Join(strings.TrimSpace(string(out)), "api", "openapi.yaml")
	doc, err := openapi3.NewLoader().LoadFromFile(file)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	s := &spec{doc: doc, prefix: regexp.MustCompile("^" + prefix)}
	for tmpl := range doc.Paths.Map() {
		segs := strings.Split(tmpl, "/")
		for i, seg := range segs {
			if strings.HasPrefix(seg, "{") {
				segs[i] = `[^/]+`
			} else {
				segs[i] = regexp.QuoteMeta(seg)
			}
		}
		s.paths = append(s.paths, specPath{regexp.MustCompile("^" + strings.Join(segs, "/") + "$"), tmpl})
	}
	// A literal path wins over a template (/sandbox/paginated over
	// /sandbox/{sandboxIdOrName}).
	sort.Slice(s.paths, func(i, j int) bool {
		return strings.Count(s.paths[i].template, "{") < strings.Count(s.paths[j].template, "{")
	})
	return s
}

// route finds the operation of a replica request path, or "".
func (s *spec) route(method, urlPath string) (*routers.Route, map[string]string) {
	loc := s.prefix.FindStringIndex(urlPath)
	if loc == nil {
		return nil, nil
	}
	p := urlPath[loc[1]:]
	for _, sp := range s.paths {
		if !sp.re.MatchString(p) {
			continue
		}
		item := s.doc.Paths.Value(sp.template)
		op := item.GetOperation(method)
		if op == nil {
			return nil, nil
		}
		params := map[string]string{}
		names := regexp.MustCompile(`\{([^}]+)\}`).FindAllStringSubmatch(sp.template, -1)
		vals := strings.Split(p, "/")
		tparts := strings.Split(sp.template, "/")
		for i, tp := range tparts {
			for _, n := range names {
				if tp == "{"+n[1]+"}" && i < len(vals) {
					params[n[1]] = vals[i]
				}
			}
		}
		return &routers.Route{Spec: s.doc, Path: sp.template, PathItem: item, Method: method, Operation: op}, params
	}
	return nil, nil
}

// validator checks every answer the provider gets against the specs.
type validator struct {
	t     *testing.T
	specs []*spec
	next  http.RoundTripper

	mu      sync.Mutex
	errs    []string
	checked map[string]bool
}

func (v *validator) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := v.next.RoundTrip(req)
	if err != nil {
		return res, err
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	res.Body = io.NopCloser(bytes.NewReader(body))
	var route *routers.Route
	var params map[string]string
	for _, s := range v.specs {
		if route, params = s.route(req.Method, req.URL.Path); route != nil {
			break
		}
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if route == nil {
		v.errs = append(v.errs, req.Method+" "+req.URL.Path+": not in the pinned specs")
		return res, nil
	}
	v.checked[req.Method+" "+route.Path] = true
	if res.StatusCode/100 != 2 {
		return res, nil
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 res.StatusCode, Header: res.Header, Body: io.NopCloser(bytes.NewReader(body)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		msg := err.Error()
		if len(msg) > 600 {
			msg = msg[:600] + "…"
		}
		v.errs = append(v.errs, req.Method+" "+route.Path+": "+msg)
	}
	return res, nil
}

// TestContract_ReplicaMatchesOpenAPI drives the provider through every
// route it uses, against the replica, and checks each route exists in
// the OpenAPI files of the served v0.190.0 modules and each 2xx answer
// validates against its schema (required fields, types, status codes).
func TestContract_ReplicaMatchesOpenAPI(t *testing.T) {
	s := replica(t, daytonatest.Options{ToolboxNotReady: 1})
	v := &validator{t: t, next: http.DefaultTransport, checked: map[string]bool{}, specs: []*spec{
		loadSpec(t, "github.com/daytonaio/daytona/libs/api-client-go", "/api"),
		loadSpec(t, "github.com/daytonaio/daytona/libs/toolbox-api-client-go", "/toolbox/[^/]+"),
	}}
	hc := &http.Client{Transport: v}
	for _, onDestroy := range []string{"archive", "delete"} {
		h := spawnT(t, provider(t, s, Options{HTTPClient: hc, OnDestroy: onDestroy, Pregame: &Pregame{Name: "p.sh", Content: []byte("true\n")}}), contexts.SpawnConfig{})
		h.Exec(ctxT(t), contexts.Cmd{Shell: "cat; echo e >&2", Stdin: strings.NewReader("in")})
		h.WriteFile(ctxT(t), "f", []byte("x"), 0o600)
		h.ReadFile(ctxT(t), "f")
		h.ListFiles(ctxT(t), ".")
		p, _ := h.Start(ctxT(t), contexts.Cmd{Shell: "sleep 30"})
		p.Signal(ctxT(t), syscall.SIGTERM)
		p.Wait(ctxT(t))
		if err := h.Destroy(ctxT(t)); err != nil {
			t.Fatal(err)
		}
	}
	a := spawnT(t, provider(t, s, Options{HTTPClient: hc, SandboxID: s.Sandboxes()[0].ID, OwnAttached: true}), contexts.SpawnConfig{})
	a.Destroy(ctxT(t))
	for _, e := range v.errs {
		t.Error(e)
	}
	var seen []string
	for k := range v.checked {
		seen = append(seen, k)
	}
	sort.Strings(seen)
	t.Logf("routes checked against the specs: %q", seen)
	for _, want := range []string{"POST /sandbox", "GET /sandbox/{sandboxIdOrName}", "POST /sandbox/{sandboxIdOrName}/start",
		"POST /sandbox/{sandboxIdOrName}/stop", "POST /sandbox/{sandboxIdOrName}/archive", "DELETE /sandbox/{sandboxIdOrName}",
		"POST /process/execute", "POST /process/session", "POST /process/session/{sessionId}/exec",
		"GET /process/session/{sessionId}/command/{commandId}", "GET /files/download", "POST /files/upload", "GET /files"} {
		if !v.checked[want] {
			t.Errorf("the scenario never used %s", want)
		}
	}
}

// TestContract_ReplicaRoutesInSpec: every route the replica serves (its
// own list, the SDK's included) is an operation of the pinned specs.
func TestContract_ReplicaRoutesInSpec(t *testing.T) {
	api := loadSpec(t, "github.com/daytonaio/daytona/libs/api-client-go", "/api")
	tb := loadSpec(t, "github.com/daytonaio/daytona/libs/toolbox-api-client-go", "/toolbox/[^/]+")
	for _, r := range daytonatest.Routes() {
		method, p, _ := strings.Cut(r, " ")
		p = regexp.MustCompile(`\{[^}]+\}`).ReplaceAllString(p, "x")
		if rt, _ := api.route(method, p); rt != nil {
			continue
		}
		if rt, _ := tb.route(method, p); rt == nil {
			t.Errorf("the replica serves %s, which neither pinned spec has", r)
		}
	}
}
