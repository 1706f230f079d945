package testbed

import (
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// listeningAddresses returns the TCP addresses pid listens on, read from
// /proc: its socket inodes matched against /proc/net/tcp and tcp6.
func listeningAddresses(pid int) ([]string, error) {
	listening := map[string]string{} // inode -> address
	for _, file := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 10 || f[3] != "0A" { // 0A: TCP_LISTEN
				continue
			}
			addr, err := decodeProcAddress(f[1])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
			listening[f[9]] = addr
		}
	}
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return nil, err
	}
	var out []string
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join(fmt.Sprintf("/proc/%d/fd", pid), fd.Name()))
		if err != nil {
			continue
		}
		inode, ok := strings.CutPrefix(target, "socket:[")
		if !ok {
			continue
		}
		if addr, ok := listening[strings.TrimSuffix(inode, "]")]; ok {
			out = append(out, addr)
		}
	}
	return out, nil
}

// decodeProcAddress turns /proc/net/tcp's "0100007F:4E20" into
// "127.0.0.1:20000": the address is hex in host (little-endian) order by
// 32-bit words.
func decodeProcAddress(s string) (string, error) {
	host, port, ok := strings.Cut(s, ":")
	if !ok {
		return "", fmt.Errorf("bad address %q", s)
	}
	raw, err := hex.DecodeString(host)
	if err != nil {
		return "", fmt.Errorf("bad address %q: %w", s, err)
	}
	for i := 0; i+4 <= len(raw); i += 4 {
		raw[i], raw[i+1], raw[i+2], raw[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	p, err := strconv.ParseUint(port, 16, 16)
	if err != nil {
		return "", fmt.Errorf("bad port in %q: %w", s, err)
	}
	return net.JoinHostPort(net.IP(raw).String(), strconv.FormatUint(p, 10)), nil
}
