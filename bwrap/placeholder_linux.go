//go:build linux

package bwrap

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/zsandbox/zsandbox/internal/fds"
	"github.com/zsandbox/zsandbox/policy"
)

// A protected path that does not exist yet must still not be creatable, and
// the only way to stop creation of one name in a writable directory is a
// mount on that name. So the runner makes a placeholder there (an empty,
// read-only file; missing parent directories too), bwrap binds it
// read-only, and a guard process removes it when the sandbox is gone, even
// if zsandbox itself is killed. Placeholders are marked by their mtime (the
// epoch, policy.IsPlaceholder) so concurrent runs share them: each holds a
// shared flock while it uses one, and only the last run out removes it. A
// run must never mount over another run's placeholder without that lock:
// when the placeholder is removed, the kernel drops every mount on it.

// Placeholders are what one run made or shares, and the guard that removes
// them.
type Placeholders struct {
	entries []string            // "f:PATH" placeholder file, "d:PATH" directory we made
	locks   []*os.File          // shared flocks on the placeholder files
	dirs    map[string]*os.File // directories mkdirs opened, by path
	guard   *exec.Cmd
	notify  *os.File // guard's stdin; closing it starts the clean-up
	done    *os.File // guard's stdout; it closes it when the clean-up is done
}

// MakePlaceholders creates what the protected paths need and starts the
// guard. It returns nil when nothing was needed. Nothing it made outlives
// a failure: what was made is handed to a guard and removed at once. The
// forwarded signals are held while it works (before the guard runs, dying
// would leave placeholders behind); one that came is an *InterruptedError,
// after the clean-up.
func MakePlaceholders(prot []policy.Protected) (*Placeholders, error) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, Forwarded...)
	defer signal.Stop(sigs)
	ph := &Placeholders{}
	for _, pr := range prot {
		if err := ph.ensure(pr); err != nil {
			ph.undo()
			return nil, fmt.Errorf("protected path %q: %w", pr.Path, err)
		}
	}
	ph.closeDirs()
	if len(ph.entries) == 0 {
		return nil, interrupted(sigs)
	}
	if err := ph.startGuard(); err != nil {
		ph.undo()
		return nil, err
	}
	if err := interrupted(sigs); err != nil {
		ph.Done()
		return nil, err
	}
	return ph, nil
}

// InterruptedError is a forwarded signal that came while the run was
// being set up: the command did not run.
type InterruptedError struct{ Signal syscall.Signal }

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted (%v) before the command started", e.Signal)
}

func interrupted(sigs chan os.Signal) error {
	select {
	case s := <-sigs:
		return &InterruptedError{Signal: s.(syscall.Signal)}
	default:
		return nil
	}
}

// undo removes what this run made when it will not start, the way a run
// ends: through a guard, which knows how to leave other runs' shared
// placeholders alone. Only if no guard can start is anything left, and
// then it is named.
func (ph *Placeholders) undo() {
	ph.closeDirs()
	if len(ph.entries) == 0 {
		return
	}
	if err := ph.startGuard(); err == nil {
		ph.Done()
		return
	}
	ph.release()
	for _, e := range ph.entries {
		_, path, _ := strings.Cut(e, ":")
		warnLeft(path, errors.New("the placeholder guard could not start"))
	}
}

func (ph *Placeholders) ensure(pr policy.Protected) error {
	if pr.Anchor != "" {
		return nil // cannot be created: pinned instead (policy.Protected.Anchor)
	}
	if pr.Exists {
		_, err := os.Lstat(pr.Path)
		switch {
		case err == nil && isPlaceholder(pr.Path):
			return ph.share(pr.Path)
		case err == nil:
			return nil
		case !errors.Is(err, os.ErrNotExist):
			return err
		}
		// Another run's placeholder, removed since the policy was
		// resolved as that run ended. bwrap binds what is at the path
		// when it opens it: a placeholder a third run made meanwhile
		// would be bound without its lock, and removed (the mount with
		// it) while this run goes on. Make one, or share that one.
	}
	dir, err := ph.mkdirs(pr.Root, filepath.Dir(pr.Path))
	if err != nil {
		return err
	}
	var f *os.File
	err = lendWrite(dir, func() (err error) {
		f, err = createPlaceholder(dir, pr)
		return err
	})
	if errors.Is(err, os.ErrExist) {
		return ph.share(pr.Path)
	}
	if err != nil {
		return err
	}
	var st unix.Stat_t
	unix.Fstat(int(f.Fd()), &st)
	if err := ph.lock(f, pr.Path); err != nil {
		unlinkSame(pr.Path, st) // ours, made a moment ago
		return err
	}
	return nil
}

// createPlaceholder makes the placeholder whole (read-only, stamped; an
// empty directory for a directory entry, else a file holding pr.Content)
// under a temporary name in dir (the parent, open) and renames it into
// place without replacing anything: no other run can see a half-made one
// and take it for a real file.
func createPlaceholder(dir *os.File, pr policy.Protected) (*os.File, error) {
	d, base := int(dir.Fd()), filepath.Base(pr.Path)
	tmp := fmt.Sprintf("%s.zsandbox-%d", base, os.Getpid())
	f, err := makeTemp(d, tmp, pr)
	if err != nil {
		return nil, err
	}
	epoch := unix.NsecToTimespec(policy.PlaceholderTime.UnixNano())
	err = unix.UtimesNanoAt(d, tmp, []unix.Timespec{epoch, epoch}, unix.AT_SYMLINK_NOFOLLOW)
	if err == nil {
		err = unix.Renameat2(d, tmp, d, base, unix.RENAME_NOREPLACE)
	}
	if err != nil {
		f.Close()
		removeTemp(d, tmp, pr.IsDir)
		if errors.Is(err, unix.EEXIST) {
			return nil, os.ErrExist
		}
		return nil, err
	}
	return f, nil
}

// makeTemp creates the placeholder under the name tmp in the directory d
// and returns it open (the lock is taken on it).
func makeTemp(d int, tmp string, pr policy.Protected) (*os.File, error) {
	var fd int
	var err error
	if pr.IsDir {
		if err = unix.Mkdirat(d, tmp, 0o555); err == nil {
			fd, err = unix.Openat(d, tmp, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		}
	} else {
		fd, err = unix.Openat(d, tmp, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o444)
		if err == nil && pr.Content != "" {
			_, err = unix.Write(fd, []byte(pr.Content))
		}
	}
	if err == nil {
		err = markMode(fd, pr.IsDir)
	}
	if err != nil {
		if fd > 0 {
			unix.Close(fd)
		}
		removeTemp(d, tmp, pr.IsDir)
		return nil, err
	}
	return os.NewFile(uintptr(fd), pr.Path), nil
}

func removeTemp(d int, tmp string, dir bool) {
	if dir {
		unix.Unlinkat(d, tmp, unix.AT_REMOVEDIR)
		return
	}
	unix.Unlinkat(d, tmp, 0)
}

// markMode gives a new placeholder its mode (0555 or 0444, part of the
// mark) when the umask took bits away; with the usual umask it is right
// already and costs no extra write to the file system.
func markMode(fd int, dir bool) error {
	want := uint32(0o444)
	if dir {
		want = 0o555
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	if st.Mode&0o7777 == want {
		return nil
	}
	return unix.Fchmod(fd, want)
}

// mkdirs creates the missing directories from root down to dir and
// returns dir, open. Each step is taken from the directory above, with
// no symlink followed: a concurrent sandboxed command that swaps a
// directory on the way for a symlink cannot make zsandbox, with the
// caller's rights, create anything outside the root.
//
// The directories are kept open for the next placeholder (most share
// their parents: a home's dozens of rc files); the descriptor returned is
// borrowed, closed by closeDirs. One opened earlier is the directory
// that was at its path then: if a command has moved it since, the lock's
// check (lstat of the path against the placeholder made) fails the run.
func (ph *Placeholders) mkdirs(root, dir string) (*os.File, error) {
	cur := dir
	for ph.dirs[cur] == nil && cur != root && cur != "/" {
		cur = filepath.Dir(cur)
	}
	d := ph.dirs[cur]
	if d == nil {
		var err error
		if d, err = openExact(root, unix.O_RDONLY|unix.O_DIRECTORY); err != nil {
			return nil, err
		}
		cur = root
		ph.keepDir(root, d)
	}
	for _, part := range strings.Split(strings.Trim(strings.TrimPrefix(dir, cur), "/"), "/") {
		if part == "" {
			continue
		}
		cur = filepath.Join(cur, part)
		err := lendWrite(d, func() error { return unix.Mkdirat(int(d.Fd()), part, 0o755) })
		if err == nil {
			ph.entries = append(ph.entries, "d:"+cur)
		}
		next, oerr := openBeneath(d, part)
		if (err != nil && err != unix.EEXIST) || oerr != nil {
			return nil, fmt.Errorf("%q is not a directory", cur)
		}
		d = next
		ph.keepDir(cur, d)
	}
	return d, nil
}

func (ph *Placeholders) keepDir(path string, d *os.File) {
	if ph.dirs == nil {
		ph.dirs = map[string]*os.File{}
	}
	ph.dirs[path] = d
}

// closeDirs closes the directories mkdirs kept open.
func (ph *Placeholders) closeDirs() {
	for _, d := range ph.dirs {
		d.Close()
	}
	ph.dirs = nil
}

// openBeneath opens the directory name in d, following no symlink.
func openBeneath(d *os.File, name string) (*os.File, error) {
	return fds.OpenExactFile(int(d.Fd()), name, unix.O_RDONLY|unix.O_DIRECTORY, true)
}

// share joins a placeholder another run made.
func (ph *Placeholders) share(path string) error {
	f, err := openExact(path, unix.O_RDONLY)
	if err != nil {
		return err
	}
	return ph.lock(f, path)
}

// lock takes a shared flock, checks that path still names the file (a
// run that was finishing may have removed it in between) and records the
// entry: entries and locks stay in step, the guard numbers the locks by
// the entries.
func (ph *Placeholders) lock(f *os.File, path string) error {
	if err := unix.Flock(int(f.Fd()), unix.LOCK_SH); err != nil {
		f.Close()
		return err
	}
	var a, b unix.Stat_t
	if unix.Fstat(int(f.Fd()), &a) != nil || unix.Lstat(path, &b) != nil || a.Ino != b.Ino || a.Dev != b.Dev {
		f.Close()
		return fmt.Errorf("placeholder %q changed while starting; retry", path)
	}
	ph.locks = append(ph.locks, f)
	ph.entries = append(ph.entries, "f:"+path)
	return nil
}

func isPlaceholder(path string) bool { return policy.PlaceholderAt(path) }

// startGuard runs "zsandbox __guard ENTRY..." in its own session, holding
// the locks. It cleans up when its stdin closes: when zsandbox closes it
// after the run, or when the kernel does because zsandbox died.
func (ph *Placeholders) startGuard() error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	cmd := exec.Command("/proc/self/exe", append([]string{GuardArg}, ph.entries...)...)
	cmd.Args[0] = "zsandbox"
	doneR, doneW, err := os.Pipe()
	if err != nil {
		w.Close()
		return err
	}
	defer doneW.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = r, doneW, os.Stderr
	cmd.ExtraFiles = ph.locks
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		doneR.Close()
		return fmt.Errorf("starting the placeholder guard: %w", err)
	}
	ph.guard, ph.notify, ph.done = cmd, w, doneR
	ph.release() // the guard holds the locks now; ours would outlive its clean-up
	return nil
}

// Started tells the guard the host PIDs of bwrap and of the sandbox's init,
// so it waits for the sandbox to be gone before removing anything.
func (ph *Placeholders) Started(pid int) {
	if ph != nil {
		fmt.Fprintf(ph.notify, "%d\n", pid)
	}
}

// Done closes the guard's stdin and waits for its clean-up of this run's
// placeholders. The guard may stay on, in the background, to remove
// directories it made that other runs' placeholders still fill.
func (ph *Placeholders) Done() {
	if ph == nil {
		return
	}
	ph.notify.Close()
	io.Copy(io.Discard, ph.done)
	ph.done.Close()
}

func (ph *Placeholders) release() {
	for _, f := range ph.locks {
		f.Close()
	}
	ph.locks = nil
}

// Guard is the guard process's main: wait for stdin to close, wait for the
// sandbox to be gone, remove the placeholders. It never returns.
func Guard(entries []string) {
	var pids []int
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		if pid, err := strconv.Atoi(strings.TrimSpace(sc.Text())); err == nil {
			pids = append(pids, pid)
		}
	}
	for _, pid := range pids {
		waitGone(pid)
	}
	var shared []string // directories we made that other runs' placeholders fill
	for i := len(entries) - 1; i >= 0; i-- {
		kind, path, _ := strings.Cut(entries[i], ":")
		if kind == "f" {
			removeIfLast(path, 3+countFiles(entries[:i]))
			continue
		}
		// Only if empty: anything the command wrote there stays.
		switch err := unlinkIn(path, unix.AT_REMOVEDIR); err {
		case nil, unix.ENOENT:
		case unix.ENOTEMPTY:
			shared = append(shared, path)
		default:
			warnLeft(path, err)
		}
	}
	os.Stdout.Close() // zsandbox stops waiting here
	if len(shared) == 0 {
		os.Exit(0)
	}
	// What is left waits for other runs, which may take as long as they
	// do: let go of the caller's stderr first, or whoever reads zsandbox's
	// output through a pipe would wait for this guard too (and a caller
	// that ends the other run only after this one returns, never).
	if null, err := unix.Open(os.DevNull, unix.O_RDWR, 0); err == nil {
		unix.Dup3(null, 2, 0)
	}
	for _, dir := range shared {
		drainShared(dir)
	}
	os.Exit(0)
}

// drainShared waits until the other runs are done with the placeholders
// in a directory this run made, removes them and the directory. A
// directory holding anything else (the command's files) is left alone. A
// run that is starting may be making a placeholder there right now (under
// a temporary name, see createPlaceholder), and another run may remove
// one meanwhile: both are looked at again, or the directory would be
// left behind.
func drainShared(dir string) {
	for tries := 0; tries < 500; tries++ {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		busy := false
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			_, gone := os.Lstat(p)
			switch {
			case isPlaceholder(p):
				drainOne(p)
			case gone != nil || isTempName(e.Name()):
				busy = true
			default:
				return
			}
		}
		if busy {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if err := unlinkIn(dir, unix.AT_REMOVEDIR); err != unix.ENOTEMPTY {
			return
		}
	}
}

// drainOne waits for the last run holding the placeholder p to let go,
// and removes it.
func drainOne(p string) {
	f, err := openExact(p, unix.O_RDONLY)
	if err != nil {
		return
	}
	defer f.Close()
	var st unix.Stat_t
	if unix.Flock(int(f.Fd()), unix.LOCK_EX) == nil && isPlaceholder(p) && unix.Fstat(int(f.Fd()), &st) == nil {
		unlinkSame(p, st)
	}
}

// isTempName tells the temporary name a starting run gives a placeholder
// it is making ("NAME.zsandbox-PID").
func isTempName(name string) bool {
	_, pid, ok := strings.Cut(name, ".zsandbox-")
	_, err := strconv.Atoi(pid)
	return ok && err == nil
}

func countFiles(entries []string) int {
	n := 0
	for _, e := range entries {
		if strings.HasPrefix(e, "f:") {
			n++
		}
	}
	return n
}

// removeIfLast drops this run's shared lock (inherited as fd) and removes
// the placeholder if no other run holds one.
func removeIfLast(path string, fd int) {
	var ours unix.Stat_t
	known := unix.Fstat(fd, &ours) == nil
	unix.Close(fd)
	f, err := openExact(path, unix.O_RDONLY)
	if err != nil {
		return
	}
	defer f.Close()
	var now unix.Stat_t
	if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil || !isPlaceholder(path) ||
		unix.Fstat(int(f.Fd()), &now) != nil || !known || now.Dev != ours.Dev || now.Ino != ours.Ino {
		return // another run's, or no longer the file this run locked
	}
	if err := unlinkSame(path, now); err != nil && err != unix.ENOENT {
		warnLeft(path, err)
	}
}

// unlinkSame unlinks path only if, seen from its parent's descriptor, it
// is still the file st describes.
func unlinkSame(path string, st unix.Stat_t) error {
	d, err := openExact(filepath.Dir(path), unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return err
	}
	defer d.Close()
	var at unix.Stat_t
	if err := unix.Fstatat(int(d.Fd()), filepath.Base(path), &at, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	if at.Dev != st.Dev || at.Ino != st.Ino {
		return nil // replaced meanwhile: not ours to remove
	}
	flags := 0
	if at.Mode&unix.S_IFMT == unix.S_IFDIR {
		flags = unix.AT_REMOVEDIR // a directory placeholder; never removed unless empty
	}
	return unlinkAt(d, filepath.Base(path), flags)
}

// unlinkIn removes path through a descriptor of its parent, opened without
// following a symlink. If the command took write permission away from the
// parent (chmod 555 ~), it is lent back for the unlink and then restored.
func unlinkIn(path string, flags int) error {
	d, err := openExact(filepath.Dir(path), unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return err
	}
	defer d.Close()
	return unlinkAt(d, filepath.Base(path), flags)
}

// unlinkAt is unlinkat(2) in dir, lending the directory u+w when the
// command took it away.
func unlinkAt(d *os.File, base string, flags int) error {
	return lendWrite(d, func() error { return unix.Unlinkat(int(d.Fd()), base, flags) })
}

// lendWrite runs op, which writes in the directory d. If the caller's
// own directory has no write permission (chmod 555 ~/.config; the command
// could chmod it back and create what it likes), it is lent u+w for op
// and then restored.
func lendWrite(d *os.File, op func() error) error {
	err := op()
	if !errors.Is(err, unix.EACCES) && !errors.Is(err, unix.EPERM) {
		return err
	}
	dir := int(d.Fd())
	var st unix.Stat_t
	if unix.Fstat(dir, &st) != nil || unix.Fchmod(dir, st.Mode&0o7777|0o300) != nil {
		return err
	}
	err = op()
	unix.Fchmod(dir, st.Mode&0o7777)
	return err
}

// openExact opens path with no symlink anywhere in it: the guard works
// outside the sandbox with the caller's rights, after the sandbox is gone,
// and must not follow a symlink a sandboxed command swapped into a parent.
func openExact(path string, flags int) (*os.File, error) {
	return fds.OpenExactFile(unix.AT_FDCWD, path, flags, false)
}

func warnLeft(path string, err error) {
	fmt.Fprintf(os.Stderr, "zsandbox: warning: could not remove the placeholder %q: %v; remove it by hand\n", path, err)
}

// waitGone waits for the process pid to exit; when the sandbox's init
// exits, the kernel kills everything in the sandbox's PID namespace.
func waitGone(pid int) {
	if pid <= 0 {
		return
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return // already gone
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); err != unix.EINTR {
			return
		}
	}
}
