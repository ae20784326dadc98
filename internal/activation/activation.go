// Package activation receives the listening sockets a supervisor passes
// to dbeast serve: systemd's socket activation (LISTEN_FDS, LISTEN_PID,
// LISTEN_FDNAMES) on Linux and launchd's Sockets (launch_activate_socket)
// on macOS.
//
// Why: the MCP port is where every agent sends its long-lived bearer
// token. When the broker exits (a crash, an upgrade, a restart) the port
// it bound itself is free, and any local user who binds it first receives
// the next agent's token. A supervisor that owns the socket keeps it bound
// across the broker's death and hands the same socket to the next broker;
// connections made in between wait in its backlog.
//
// The sockets are named "mcp" and "console" (systemd's FileDescriptorName=,
// the keys of launchd's Sockets dictionary). Without names (LISTEN_FDNAMES
// unset) the first socket is the MCP endpoint and the second, if any, the
// console. The broker itself checks that each is a TCP socket on a
// loopback address.
package activation

import (
	"fmt"
	"net"
)

// Names of the sockets dbeast serves.
const (
	MCP     = "mcp"
	Console = "console"
)

// Listeners returns the sockets the supervisor passed to this process by
// name (MCP, Console); none (and no error) when it was not started by
// one. An error means sockets were passed but cannot be used; nothing is
// left open then.
func Listeners() (map[string]net.Listener, error) {
	lns, err := systemd()
	if err != nil || len(lns) > 0 {
		return lns, err
	}
	return launchd()
}

// assign maps the n passed sockets to dbeast's names, from the supervisor's
// names when there are any (one per socket) and by position otherwise.
func assign(n int, names []string) (map[string]int, error) {
	if names == nil {
		switch n {
		case 1:
			return map[string]int{MCP: 0}, nil
		case 2:
			return map[string]int{MCP: 0, Console: 1}, nil
		}
		return nil, fmt.Errorf("socket activation: %d sockets without names; pass at most two (mcp, then console) or name them", n)
	}
	if len(names) != n {
		return nil, fmt.Errorf("socket activation: %d sockets but %d names", n, len(names))
	}
	out := map[string]int{}
	for i, name := range names {
		if name != MCP && name != Console {
			return nil, fmt.Errorf("socket activation: socket %d is named %q; name the sockets %q and %q (FileDescriptorName= in the socket units)", i, name, MCP, Console)
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("socket activation: two sockets are named %q", name)
		}
		out[name] = i
	}
	return out, nil
}

func closeAll(lns map[string]net.Listener) {
	for _, ln := range lns {
		ln.Close()
	}
}
