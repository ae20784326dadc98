package main

import (
	"github.com/dbeast/dbeast/broker"
	"github.com/dbeast/dbeast/internal/activation"
)

// inheritListeners puts the sockets a supervisor passed (systemd socket
// activation, launchd Sockets) into cfg, so the broker serves on them
// instead of binding --listen and --console itself: the supervisor keeps
// the ports bound while the broker is down (a crash, a restart), and no
// other local user can take the MCP port and collect the agents' tokens.
// A socket passed for one listener only leaves the other to its flag.
// broker.New checks each is TCP on a loopback address.
func inheritListeners(cfg *broker.Config) error {
	lns, err := activation.Listeners()
	if err != nil {
		return err
	}
	cfg.MCPListener = lns[activation.MCP]
	cfg.ConsoleListener = lns[activation.Console]
	return nil
}
