// Package sandbox applies a plan.Plan: one Exec per OS runs the command
// under the plan's backend (bubblewrap with seccomp and the Landlock stage
// 2, the Landlock-only backend, or sandbox-exec), hands the command only
// streams on its standard descriptors, and adds the denial hint when the
// command failed. It decides nothing the plan has not decided; every
// failure before the command starts is an exit.Error (127 or 2), so
// nothing runs unsandboxed.
package sandbox
