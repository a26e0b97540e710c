// Asks the real parts of Grafana dskit's and Thanos' memcached jump-hash
// selectors and of go-redis' Ring (built offline against Debian's
// golang-github-cespare-xxhash-dev and golang-github-facette-natsort-dev)
// what they make of a server list and keys: the servers' natural order
// (natsort.Sort, as MemcachedJumpHashSelector.SetServers sorts them) and
// xxhash.Sum64String of every key and every server name. The jump to a
// bucket is asked of another peer (GuavaJumpPeer.java).
//
// Usage: xxhash_natsort_peer CASE_DIR...
// Each CASE_DIR has `servers` (one name per line) and `keys` (one key per
// line in hex). The peer writes `order` (the index in `servers` of each
// name in natural order; a name listed twice takes its indices in list
// order), `hashes` (Sum64String of each key, decimal) and `server_hashes`
// (Sum64String of each server name, decimal).
package main

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	// xxhash v2 (2.1.1): Debian installs it at its GOPATH path, without
	// the module's /v2 suffix the clients import it by.
	"github.com/cespare/xxhash"
	"github.com/facette/natsort"
)

func lines(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	all := strings.Split(string(data), "\n")
	return all[:len(all)-1] // after the last newline
}

func write(path string, values []string) {
	if err := os.WriteFile(path, []byte(strings.Join(values, "")), 0o644); err != nil {
		panic(err)
	}
}

func main() {
	for _, dir := range os.Args[1:] {
		servers := lines(filepath.Join(dir, "servers"))
		places := map[string][]int{}
		for i, s := range servers {
			places[s] = append(places[s], i)
		}
		sorted := make([]string, len(servers))
		copy(sorted, servers)
		natsort.Sort(sorted)
		var order, serverHashes, hashes []string
		for _, s := range sorted {
			order = append(order, fmt.Sprintf("%d\n", places[s][0]))
			places[s] = places[s][1:]
		}
		for _, s := range servers {
			serverHashes = append(serverHashes, fmt.Sprintf("%d\n", xxhash.Sum64String(s)))
		}
		for _, h := range lines(filepath.Join(dir, "keys")) {
			key, err := hex.DecodeString(h)
			if err != nil {
				panic(err)
			}
			hashes = append(hashes, fmt.Sprintf("%d\n", xxhash.Sum64String(string(key))))
		}
		write(filepath.Join(dir, "order"), order)
		write(filepath.Join(dir, "server_hashes"), serverHashes)
		write(filepath.Join(dir, "hashes"), hashes)
	}
	fmt.Println("cespare/xxhash (Debian golang-github-cespare-xxhash-dev) and facette/natsort",
		"(Debian golang-github-facette-natsort-dev) with", runtime.Version())
}
