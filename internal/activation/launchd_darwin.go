//go:build darwin && cgo

package activation

/*
#include <launch.h>
#include <stdlib.h>
*/
import "C"

import (
	"fmt"
	"net"
	"syscall"
	"unsafe"
)

// launchd takes the sockets of the job's Sockets dictionary named mcp and
// console with launch_activate_socket(3). A name the plist does not have
// (ENOENT), or a process launchd did not start (ESRCH), gives none.
func launchd() (map[string]net.Listener, error) {
	out := map[string]net.Listener{}
	for _, name := range []string{MCP, Console} {
		cname := C.CString(name)
		var fds *C.int
		var cnt C.size_t
		rc := C.launch_activate_socket(cname, &fds, &cnt)
		C.free(unsafe.Pointer(cname))
		if rc != 0 {
			if errno := syscall.Errno(rc); errno == syscall.ENOENT || errno == syscall.ESRCH {
				continue
			}
			closeAll(out)
			return nil, fmt.Errorf("socket activation: launchd socket %q: %w", name, syscall.Errno(rc))
		}
		got := make([]int, 0, int(cnt))
		for _, fd := range unsafe.Slice(fds, int(cnt)) {
			got = append(got, int(fd))
		}
		C.free(unsafe.Pointer(fds))
		if len(got) != 1 {
			for _, fd := range got {
				syscall.Close(fd)
			}
			closeAll(out)
			return nil, fmt.Errorf("socket activation: launchd socket %q has %d sockets, want one (set SockNodeName to 127.0.0.1 and SockFamily to IPv4)", name, len(got))
		}
		ln, err := fileListener(got[0], name)
		if err != nil {
			closeAll(out)
			return nil, err
		}
		out[name] = ln
	}
	return out, nil
}
