package e2e

import (
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zsandbox/zsandbox/internal/harness"
)

// TestSudoUserHomeHidden: `sudo zsandbox exec` keeps HOME=/root, so the
// defaults were hidden under /root only and the sudo user's world-readable
// stores stayed readable: `cat /home/USER/.pypirc` (mode 0644) printed it.
// Now the home of SUDO_UID's account is hidden as the account home is.
// That home is covered by a tmpfs in a private mount namespace; the run is
// root's, as under sudo.
func TestSudoUserHomeHidden(t *testing.T) {
	if os.Geteuid() != 0 { // sudo -u ME from root: root's home is the sudo user's
		e := newEnv(t, harness.Identities(t)[0])
		doc, r := e.explain(t, []string{"SUDO_USER=root", "SUDO_UID=0"})
		if !doc.hides("/root/.ssh") {
			t.Errorf("the sudo user's ~/.ssh is not hidden\n%s", r.Stdout)
		}
		return
	}
	u, err := user.Lookup(harness.TestUser)
	if err != nil || !filepath.IsAbs(u.HomeDir) {
		t.Fatalf("the test user's passwd home: %v %v", u, err)
	}
	e := newEnv(t, harness.Identity{Name: "root"})
	home := u.HomeDir
	files := []string{home + "/.pypirc", home + "/.npmrc", home + "/.config/gh/hosts.yml"}
	planted := `mkdir -p ` + home + ` && mount -t tmpfs tmpfs ` + home + ` && mkdir -p ` + home + `/.config/gh && ` +
		`for f in ` + strings.Join(files, " ") + `; do echo ` + e.secret + ` > $f; chmod 644 $f; done && echo PLANTED && ` +
		`"$ZS" exec -- sh -c "$SCRIPT"; echo RAN`
	cmd := e.command(e.proj)
	cmd.Path, _ = exec.LookPath("unshare")
	cmd.Args = []string{"unshare", "-m", "--propagation", "private", "sh", "-c", planted}
	cmd.Env = append(cmd.Env, "ZS="+zsandbox, "SCRIPT="+readEach(files), "SUDO_USER="+harness.TestUser, "SUDO_UID="+u.Uid)
	r := e.collect(cmd)
	if !strings.Contains(r.Stdout, "PLANTED") || !strings.Contains(r.Stdout, "RAN") {
		t.Fatalf("could not plant the sudo user's home in a private mount namespace\n%s", r)
	}
	assertUnread(t, e, r, "read the sudo user's stores with HOME=/root")
}
