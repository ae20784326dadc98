//go:build linux || darwin

package activation

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// fileListener makes a listener of the passed descriptor fd and closes
// fd (the listener holds its own duplicate). It refuses a descriptor that
// is not a listening socket: a connected or datagram socket would only
// fail later, at Accept.
func fileListener(fd int, name string) (net.Listener, error) {
	syscall.CloseOnExec(fd)
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	listening, err := syscall.GetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_ACCEPTCONN)
	if err != nil {
		return nil, fmt.Errorf("socket activation: the %s descriptor (%d) is not a socket", name, fd)
	}
	if listening == 0 {
		return nil, fmt.Errorf("socket activation: the %s socket (descriptor %d) is not listening", name, fd)
	}
	ln, err := net.FileListener(f)
	if err != nil {
		return nil, fmt.Errorf("socket activation: the %s socket (descriptor %d): %w", name, fd, err)
	}
	return ln, nil
}
