package probe

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// traced runs `attack args...` as a child this process traces with
// PTRACE_O_TRACESECCOMP, letting every call the filter hands to a tracer
// (SCMP_ACT_TRACE) run: the rule fails with ENOSYS only while nobody traces.
// The child keeps this process's argv[0], by which a test binary knows
// to be the attack program.
func traced(args []string) error {
	runtime.LockOSThread() // ptrace requests must come from the tracing thread
	cmd := exec.Command("/proc/self/exe", args...)
	cmd.Args[0] = os.Args[0]
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Ptrace: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil { // stopped at exec
		return err
	}
	const traceSeccomp, traceClone, exitKill = 0x80, 0x8, 0x100000
	if err := syscall.PtraceSetOptions(pid, traceSeccomp|traceClone|exitKill); err != nil {
		return fmt.Errorf("ptrace: %w", err)
	}
	if err := syscall.PtraceCont(pid, 0); err != nil {
		return err
	}
	for {
		wpid, err := syscall.Wait4(-1, &ws, syscall.WALL, nil)
		switch {
		case err != nil:
			return err
		case wpid == pid && ws.Exited() && ws.ExitStatus() == 0:
			return nil
		case wpid == pid && (ws.Exited() || ws.Signaled()):
			return fmt.Errorf("traced attack failed: %v", ws)
		case ws.Stopped():
			sig := ws.StopSignal()
			if sig == syscall.SIGTRAP || sig == syscall.SIGSTOP {
				sig = 0 // a seccomp or clone event, or a new thread's first stop
			}
			syscall.PtraceCont(wpid, int(sig))
		}
	}
}
