//go:build linux

package e2b

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"

	"github.com/zsandbox/zsandbox/contexts/e2b/e2btest"
	"github.com/zsandbox/zsandbox/contexts/e2b/internal/wire"
)

// envdDescriptors decodes the FileDescriptorProtos the pinned npm e2b
// package embeds (protobuf-es's fileDesc("…")): envd's own process and
// filesystem services, the contract the replica and wire must meet.
func envdDescriptors(t *testing.T) *protoregistry.Files {
	t.Helper()
	needOracle(t)
	js, err := os.ReadFile(filepath.Join(oracleDir, "node_modules", "e2b", "dist", "index.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	files := new(protoregistry.Files)
	for _, m := range regexp.MustCompile(`fileDesc\("([A-Za-z0-9+/=]+)"`).FindAllSubmatch(js, -1) {
		raw, err := base64.StdEncoding.DecodeString(string(m[1]))
		if err != nil {
			raw, err = base64.RawStdEncoding.DecodeString(string(m[1]))
		}
		if err != nil {
			t.Fatalf("descriptor: %v", err)
		}
		var fdp descriptorpb.FileDescriptorProto
		if err := proto.Unmarshal(raw, &fdp); err != nil {
			t.Fatalf("descriptor: %v", err)
		}
		// protobuf-es drops the dependency list from what it embeds.
		fd, err := protodesc.FileOptions{AllowUnresolvable: true}.New(&fdp, new(protoregistry.Files))
		if err != nil {
			t.Fatalf("descriptor %s: %v", fdp.GetName(), err)
		}
		files.RegisterFile(fd)
	}
	if files.NumFiles() < 2 {
		t.Fatalf("found %d envd descriptors in the SDK, want process and filesystem", files.NumFiles())
	}
	return files
}

// TestContract_EnvdRoutes: every Connect procedure the replica serves
// (and the provider calls) is a method of envd's services, with the same
// streaming shape.
func TestContract_EnvdRoutes(t *testing.T) {
	files := envdDescriptors(t)
	streaming := map[string]bool{wire.ProcStart: true, wire.ProcConnect: true}
	for _, p := range []string{wire.ProcStart, wire.ProcConnect, wire.ProcList, wire.ProcSendInput, wire.ProcSendSignal, wire.ProcCloseStdin, wire.ProcUpdate, wire.FsListDir} {
		svc, method, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
		d, err := files.FindDescriptorByName(protoreflect.FullName(svc))
		if err != nil {
			t.Errorf("%s: no service %s in the SDK's descriptors", p, svc)
			continue
		}
		m := d.(protoreflect.ServiceDescriptor).Methods().ByName(protoreflect.Name(method))
		if m == nil {
			t.Errorf("%s: no method %s", p, method)
			continue
		}
		if m.IsStreamingServer() != streaming[p] || m.IsStreamingClient() {
			t.Errorf("%s: server-streaming %v in the descriptor, %v here", p, m.IsStreamingServer(), streaming[p])
		}
	}
}

// TestContract_EnvdMessages: every field of the wire structs has the
// protojson name and a matching type in envd's messages, and the enum
// values used exist.
func TestContract_EnvdMessages(t *testing.T) {
	files := envdDescriptors(t)
	for _, c := range []struct {
		v    any
		name string
	}{
		{wire.StartRequest{}, "process.StartRequest"}, {wire.ProcessConfig{}, "process.ProcessConfig"},
		{wire.ProcessSelector{}, "process.ProcessSelector"}, {wire.ConnectRequest{}, "process.ConnectRequest"},
		{wire.EventResponse{}, "process.StartResponse"}, {wire.EventResponse{}, "process.ConnectResponse"},
		{wire.ProcessEvent{}, "process.ProcessEvent"}, {wire.StartEvent{}, "process.ProcessEvent.StartEvent"},
		{wire.DataEvent{}, "process.ProcessEvent.DataEvent"}, {wire.EndEvent{}, "process.ProcessEvent.EndEvent"},
		{wire.ListResponse{}, "process.ListResponse"}, {wire.ProcessInfo{}, "process.ProcessInfo"},
		{wire.SendInputRequest{}, "process.SendInputRequest"}, {wire.ProcessInput{}, "process.ProcessInput"},
		{wire.SendSignalRequest{}, "process.SendSignalRequest"}, {wire.CloseStdinRequest{}, "process.CloseStdinRequest"},
		{wire.PTY{}, "process.PTY"}, {wire.Size{}, "process.PTY.Size"}, {wire.UpdateRequest{}, "process.UpdateRequest"}, {wire.Empty{}, "process.UpdateResponse"},
		{wire.ListDirRequest{}, "filesystem.ListDirRequest"}, {wire.ListDirResponse{}, "filesystem.ListDirResponse"},
		{wire.EntryInfo{}, "filesystem.EntryInfo"},
	} {
		d, err := files.FindDescriptorByName(protoreflect.FullName(c.name))
		if err != nil {
			t.Errorf("no message %s", c.name)
			continue
		}
		checkMessage(t, reflect.TypeOf(c.v), d.(protoreflect.MessageDescriptor))
	}
	for _, e := range []struct{ enum, value string }{
		{"process.Signal", wire.SignalTerm}, {"process.Signal", wire.SignalKill},
		{"filesystem.FileType", wire.FileTypeFile}, {"filesystem.FileType", wire.FileTypeDir},
	} {
		d, err := files.FindDescriptorByName(protoreflect.FullName(e.enum))
		if err != nil || d.(protoreflect.EnumDescriptor).Values().ByName(protoreflect.Name(e.value)) == nil {
			t.Errorf("enum %s has no value %s", e.enum, e.value)
		}
	}
}

// TestContract_RESTRoutes: every HTTP route the replica serves (control
// plane and envd) is a path and method of the openapi-typescript "paths"
// interfaces the pinned SDK ships in its type declarations.
func TestContract_RESTRoutes(t *testing.T) {
	needOracle(t)
	dts, err := os.ReadFile(filepath.Join(oracleDir, "node_modules", "e2b", "dist", "index.d.mts"))
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	block := regexp.MustCompile(`(?m)^  "(/[^"]*)": \{\n((?:    .*\n|\n)*?)  \};`)
	method := regexp.MustCompile(`(?m)^    (get|put|post|delete|patch|head): `)
	for _, m := range block.FindAllStringSubmatch(string(dts), -1) {
		for _, mm := range method.FindAllStringSubmatch(m[2], -1) {
			known[strings.ToUpper(mm[1])+" "+m[1]] = true
		}
	}
	if len(known) < 20 {
		t.Fatalf("found %d operations in the SDK's paths; the declarations changed shape", len(known))
	}
	for _, r := range e2btest.Routes() {
		if !known[r] {
			t.Errorf("the replica serves %s, which the SDK's pinned API description lacks", r)
		}
	}
}

func checkMessage(t *testing.T, typ reflect.Type, md protoreflect.MessageDescriptor) {
	t.Helper()
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		fd := md.Fields().ByJSONName(name)
		if fd == nil {
			t.Errorf("%s.%s: no field with JSON name %q", md.FullName(), f.Name, name)
			continue
		}
		if !kindMatches(f.Type, fd, strings.Contains(opts, "string")) {
			t.Errorf("%s.%s: Go type %v does not carry the proto's %v (list %v, map %v)", md.FullName(), name, f.Type, fd.Kind(), fd.IsList(), fd.IsMap())
		}
	}
}

func kindMatches(g reflect.Type, fd protoreflect.FieldDescriptor, asString bool) bool {
	if g.Kind() == reflect.Pointer {
		g = g.Elem()
	}
	switch {
	case fd.IsMap():
		return g.Kind() == reflect.Map
	case fd.IsList():
		return g.Kind() == reflect.Slice && g.Elem().Kind() != reflect.Uint8
	}
	switch fd.Kind() {
	case protoreflect.StringKind, protoreflect.EnumKind:
		return g.Kind() == reflect.String
	case protoreflect.BytesKind:
		return g.Kind() == reflect.Slice && g.Elem().Kind() == reflect.Uint8
	case protoreflect.BoolKind:
		return g.Kind() == reflect.Bool
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Uint64Kind, protoreflect.Sfixed64Kind, protoreflect.Fixed64Kind:
		return asString // protojson writes 64-bit integers as strings
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return g.Kind() == reflect.Uint32
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return g.Kind() == reflect.Int32
	case protoreflect.MessageKind:
		return g.Kind() == reflect.Struct
	}
	return false
}
