//go:build !unix

package netproxy

import "time"

// processCPU is unknown here; the benchmark leaves cpu-ratio out.
func processCPU() time.Duration { return 0 }
