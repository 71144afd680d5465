package seccomp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The JSON keys of LinuxSeccomp, LinuxSyscall and LinuxSeccompArg, spelled
// exactly, and which key holds which kind of object.
var (
	profileFields = set("defaultAction", "defaultErrnoRet", "architectures", "flags", "listenerPath",
		"listenerMetadata", "syscalls")
	ruleFields   = set("names", "action", "errnoRet", "args")
	argFields    = set("index", "value", "valueTwo", "op")
	nestedFields = map[string]map[string]bool{"syscalls": ruleFields, "args": argFields}
)

// checkKeys finds what encoding/json reports without a path or lets through:
// unknown keys (reported here with the path to them), keys in the wrong case
// ("DefaultAction"), and keys given twice, where the last silently wins.
// Either of the last two would make the profile a reviewer reads differ
// from the one enforced. An error that is not a *ProfileError means data is
// not valid JSON.
func checkKeys(data []byte, name string) error {
	w := keyWalker{dec: json.NewDecoder(bytes.NewReader(data))}
	err := w.value(profileFields)
	var pe *ProfileError
	if errors.As(err, &pe) {
		pe.Name = name
	}
	return err
}

// keyWalker walks a JSON document token by token. Default() parses on every
// exec, so the path is kept as a stack and rendered only for an error.
type keyWalker struct {
	dec  *json.Decoder
	path []step
}

// step is one level of the path: an object key, or an array index when key
// is empty.
type step struct {
	key   string
	index int
}

func (w *keyWalker) field() string {
	var b strings.Builder
	for _, s := range w.path {
		switch {
		case s.key == "":
			fmt.Fprintf(&b, "[%d]", s.index)
		case b.Len() > 0:
			b.WriteString("." + s.key)
		default:
			b.WriteString(s.key)
		}
	}
	return b.String()
}

// value walks one JSON value; fields are the keys an object at this
// position may have (nil: not checked, the type is wrong anyway).
func (w *keyWalker) value(fields map[string]bool) error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		return w.object(fields)
	case json.Delim('['):
		return w.array(fields)
	}
	return nil
}

func (w *keyWalker) object(fields map[string]bool) error {
	seen := map[string]bool{}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		w.path = append(w.path, step{key: key})
		if err := checkKey(key, fields, seen); err != nil {
			return &ProfileError{Field: w.field(), Err: err}
		}
		seen[key] = true
		var nested map[string]bool
		if fields != nil {
			nested = nestedFields[key]
		}
		if err := w.value(nested); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
	}
	_, err := w.dec.Token() // '}'
	return err
}

func checkKey(key string, fields, seen map[string]bool) error {
	switch {
	case seen[key]:
		return errors.New("duplicate field")
	case fields == nil || fields[key]:
		return nil
	}
	for f := range fields {
		if strings.EqualFold(f, key) {
			return fmt.Errorf("unknown field (field names are case-sensitive: %q)", f)
		}
	}
	return errors.New("unknown field")
}

func (w *keyWalker) array(fields map[string]bool) error {
	for i := 0; w.dec.More(); i++ {
		w.path = append(w.path, step{index: i})
		if err := w.value(fields); err != nil {
			return err
		}
		w.path = w.path[:len(w.path)-1]
	}
	_, err := w.dec.Token() // ']'
	return err
}
