package sandbox

import "golang.org/x/sys/unix"

// getTermios is the ioctl that tells a terminal from anything else.
const getTermios = unix.TIOCGETA
