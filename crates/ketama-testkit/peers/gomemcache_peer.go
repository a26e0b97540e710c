// Asks Go's gomemcache (github.com/bradfitz/gomemcache/memcache, Debian
// golang-github-bradfitz-gomemcache-dev) where keys go, for
// crates/ketama-core/tests/peers/gomemcache.rs: a memcache.ServerList set with the servers as its
// users list them (a server of weight W listed W times in a row) and its own
// PickServer on each key. No connection is made: SetServers resolves IP
// literals without DNS, and PickServer only chooses.
//
// Usage: gomemcache_peer CASE_DIR...
// Each CASE_DIR has `servers` (ADDRESS or ADDRESS<TAB>WEIGHT per line) and
// `keys` (one key per line, bytes as they are). The peer writes `out`: each
// key's server, as the index of its line in `servers`.
package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/bradfitz/gomemcache/memcache"
)

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gomemcache_peer:", err)
	os.Exit(1)
}

func main() {
	for _, dir := range os.Args[1:] {
		text, err := os.ReadFile(filepath.Join(dir, "servers"))
		if err != nil {
			fail(err)
		}
		var list []string
		var line []int // the servers line of each list entry
		for i, row := range strings.Split(strings.TrimSuffix(string(text), "\n"), "\n") {
			fields := strings.Split(row, "\t")
			weight := 1
			if len(fields) == 2 {
				if weight, err = strconv.Atoi(fields[1]); err != nil {
					fail(err)
				}
			}
			for c := 0; c < weight; c++ {
				list = append(list, fields[0])
				line = append(line, i)
			}
		}
		var servers memcache.ServerList
		if err := servers.SetServers(list...); err != nil {
			fail(err)
		}
		// The addresses in list order: each entry its own net.Addr value.
		var addrs []net.Addr
		servers.Each(func(a net.Addr) error { addrs = append(addrs, a); return nil })
		keys, err := os.ReadFile(filepath.Join(dir, "keys"))
		if err != nil {
			fail(err)
		}
		var out bytes.Buffer
		rows := bytes.Split(keys, []byte("\n"))
		for _, key := range rows[:len(rows)-1] {
			addr, err := servers.PickServer(string(key))
			if err != nil {
				fail(err)
			}
			index := -1
			for i, a := range addrs {
				if a == addr {
					index = line[i]
				}
			}
			fmt.Fprintln(&out, index)
		}
		if err := os.WriteFile(filepath.Join(dir, "out"), out.Bytes(), 0o644); err != nil {
			fail(err)
		}
	}
}
