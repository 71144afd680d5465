package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
)

// Settings are the user's own defaults, read from a JSON file whose keys
// mirror the flags. Flags and environment variables override scalars;
// lists add up.
type Settings struct {
	Path           string   `json:"-"`
	Writable       []string `json:"writable"`
	Hide           []string `json:"hide"`
	Protect        []string `json:"protect"`
	Network        string   `json:"network"`
	AllowDomains   []string `json:"allowDomains"`
	DenyDomains    []string `json:"denyDomains"`
	Env            []string `json:"env"`
	PassEnv        []string `json:"passEnv"`
	Landlock       string   `json:"landlock"`
	Backend        string   `json:"backend"`
	SeccompProfile string   `json:"seccompProfile"`
	Hint           string   `json:"hint"`
	// AllowUnixSockets is --allow-unix-sockets; nil when the file does not say.
	AllowUnixSockets *bool `json:"allowUnixSockets"`
}

// SettingsPath returns the settings file to read: explicit (--settings or
// ZSANDBOX_SETTINGS) if given, else $XDG_CONFIG_HOME/zsandbox/settings.json,
// else ~/.config/zsandbox/settings.json. No file is ever read from cwd: a
// command could write it in one run to widen the next.
func SettingsPath(explicit string, host Host) string {
	if explicit != "" {
		p, err := Expand(explicit, host.Home, host.Cwd)
		if err == nil {
			return p
		}
		return explicit
	}
	if x := host.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "zsandbox", "settings.json")
	}
	return filepath.Join(host.Home, ".config", "zsandbox", "settings.json")
}

// fields maps each settings key to the field it fills.
func (s *Settings) fields() map[string]any {
	return map[string]any{
		"writable": &s.Writable, "hide": &s.Hide, "protect": &s.Protect, "env": &s.Env, "passEnv": &s.PassEnv,
		"network": &s.Network, "landlock": &s.Landlock, "backend": &s.Backend,
		"seccompProfile": &s.SeccompProfile, "hint": &s.Hint, "allowUnixSockets": &s.AllowUnixSockets,
		"allowDomains": &s.AllowDomains, "denyDomains": &s.DenyDomains,
	}
}

// LoadSettings reads path. A missing default file is no settings; a
// missing explicit file (required) is an error.
func LoadSettings(path string, required bool) (Settings, error) {
	s := Settings{Path: path}
	data, err := os.ReadFile(path)
	if (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) && !required {
		// ENOTDIR: a placeholder file stands where its directory would be.
		return s, nil
	}
	if err != nil {
		return s, usagef("settings %q: %v", path, errors.Unwrap(err))
	}
	return ParseSettings(data, path)
}

// ParseSettings decodes one settings document strictly: unknown keys and
// wrong types are errors naming the file, the key and the expected type.
func ParseSettings(data []byte, path string) (Settings, error) {
	s := Settings{Path: path}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return s, usagef("settings %q: not a JSON object: %v", path, err)
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := s.set(k, raw[k]); err != nil {
			return s, usagef("settings %q: %v", path, err)
		}
	}
	return s, nil
}

func (s *Settings) set(key string, v json.RawMessage) error {
	target, ok := s.fields()[key]
	if !ok {
		return fmt.Errorf("unknown key %q", key)
	}
	if bytes.Equal(bytes.TrimSpace(v), []byte("null")) || json.Unmarshal(v, target) != nil {
		kind := "string"
		switch target.(type) {
		case *[]string:
			kind = "list of strings"
		case **bool:
			kind = "boolean"
		}
		return fmt.Errorf("key %q: want a %s", key, kind)
	}
	return nil
}
