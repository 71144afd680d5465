package contexts_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/zsandbox/zsandbox/contexts"
	_ "github.com/zsandbox/zsandbox/contexts/apple"
	_ "github.com/zsandbox/zsandbox/contexts/docker"
	_ "github.com/zsandbox/zsandbox/contexts/local"
	_ "github.com/zsandbox/zsandbox/contexts/process"
)

func TestRegistry(t *testing.T) {
	if got, want := contexts.Names(), []string{"apple", "docker", "local", "process"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	for _, n := range contexts.Names() {
		c, err := contexts.New(n, contexts.Options{})
		if err != nil || c.Kind() != n {
			t.Errorf("New(%q) = %v, %v", n, c, err)
		}
	}
	_, err := contexts.New("nope", contexts.Options{})
	if !errors.Is(err, contexts.ErrUsage) || contexts.ExitCode(err) != 2 || contexts.Hint(err) == "" {
		t.Errorf("New(nope) = %v (exit %d), want a usage error with a hint", err, contexts.ExitCode(err))
	}
	if _, err := contexts.New("process", contexts.Options{Isolation: "maybe"}); !errors.Is(err, contexts.ErrUsage) {
		t.Errorf("bad isolation = %v, want ErrUsage", err)
	}
}
