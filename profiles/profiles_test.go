package profiles

import (
	"strings"
	"testing"
)

// TestProtectedListsWellFormed: every entry says what it is for (hints
// print it), and no entry is absolute, climbs out of its base or repeats.
func TestProtectedListsWellFormed(t *testing.T) {
	lists := map[string][]Entry{"home": ProtectedInHome(), "project": ProtectedInProject(), "git": ProtectedInGitDir()}
	for name, list := range lists {
		if len(list) == 0 {
			t.Errorf("%s list is empty", name)
		}
		seen := map[string]bool{}
		for _, e := range list {
			switch {
			case e.Why == "":
				t.Errorf("%s: %q has no why-comment", name, e.Path)
			case e.Path == "" || strings.HasPrefix(e.Path, "/") || strings.Contains(e.Path, ".."):
				t.Errorf("%s: %q is not a plain relative path", name, e.Path)
			case seen[e.Path]:
				t.Errorf("%s: %q listed twice", name, e.Path)
			}
			seen[e.Path] = true
			variable := strings.HasPrefix(e.Path, "$") && !strings.Contains(e.Path, "/")
			if name == "home" && !variable && !strings.HasPrefix(e.Path, "~/") && !strings.HasPrefix(e.Path, "$XDG_CONFIG_HOME/") && !strings.HasPrefix(e.Path, "$ZDOTDIR/") {
				t.Errorf("home: %q must be $NAME or start with ~/, $XDG_CONFIG_HOME/ or $ZDOTDIR/", e.Path)
			}
		}
	}
}
