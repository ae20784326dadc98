package activation

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// listenFDsStart is the first descriptor systemd passes (SD_LISTEN_FDS_START).
const listenFDsStart = 3

// systemd takes the sockets of sd_listen_fds(3)'s protocol: LISTEN_FDS
// descriptors from 3 on, meant for this process only when LISTEN_PID is
// its pid (else they are some parent's and are left alone). It unsets the
// variables either way, so a process dbeast starts does not take them for
// its own.
func systemd() (map[string]net.Listener, error) {
	pid, count, names := os.Getenv("LISTEN_PID"), os.Getenv("LISTEN_FDS"), os.Getenv("LISTEN_FDNAMES")
	_, named := os.LookupEnv("LISTEN_FDNAMES")
	for _, v := range []string{"LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"} {
		os.Unsetenv(v)
	}
	if count == "" || pid != strconv.Itoa(os.Getpid()) {
		return nil, nil
	}
	n, err := strconv.Atoi(count)
	if err != nil || n < 1 {
		return nil, fmt.Errorf("socket activation: LISTEN_FDS=%q is not a positive count", count)
	}
	var nameList []string
	if named {
		nameList = strings.Split(names, ":")
	}
	byName, err := assign(n, nameList)
	if err != nil {
		return nil, err
	}
	out := map[string]net.Listener{}
	for name, i := range byName {
		ln, err := fileListener(listenFDsStart+i, name)
		if err != nil {
			closeAll(out)
			return nil, err
		}
		out[name] = ln
	}
	return out, nil
}
