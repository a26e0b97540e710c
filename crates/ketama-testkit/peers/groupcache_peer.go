// Asks Go groupcache (Debian golang-github-golang-groupcache-dev) where keys
// go: an HTTPPool (replicas 50, CRC-32) whose peers are Set to the names its
// users give (base URLs), and HTTPPool.PickPeer on each key; or, for another
// replica count, consistenthash.New(replicas, nil) with Add and Get. The
// pool's self is a URL of no peer, so every key is picked; nothing connects.
//
// Usage: groupcache_peer CASE_DIR...
// Each CASE_DIR has `servers` (first line `pool` or `replicas N`, then one
// peer name per line) and `keys` (one key per line in hex). The peer writes
// `out` (the index of each key's peer, the first of that name) and `dump`
// (the map's ring, "point index" in ring order, each point once).
package main

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"

	"github.com/golang/groupcache"
	"github.com/golang/groupcache/consistenthash"
)

const self = "http://self.invalid:1"

func lines(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	all := strings.Split(string(data), "\n")
	return all[:len(all)-1] // after the last newline
}

func main() {
	var pool *groupcache.HTTPPool // NewHTTPPool may be called once per process
	for _, dir := range os.Args[1:] {
		servers := lines(filepath.Join(dir, "servers"))
		peers := servers[1:]
		index := map[string]int{}
		for i, p := range peers {
			if _, seen := index[p]; !seen {
				index[p] = i
			}
		}
		var pick func(key string) string
		var ring reflect.Value // the *consistenthash.Map
		if servers[0] == "pool" {
			if pool == nil {
				pool = groupcache.NewHTTPPool(self)
			}
			pool.Set(peers...)
			pick = func(key string) string {
				getter, ok := pool.PickPeer(key)
				if !ok {
					return ""
				}
				base := reflect.ValueOf(getter).Elem().FieldByName("baseURL").String()
				return strings.TrimSuffix(base, "/_groupcache/")
			}
			ring = reflect.ValueOf(pool).Elem().FieldByName("peers")
		} else {
			var replicas int
			fmt.Sscanf(servers[0], "replicas %d", &replicas)
			m := consistenthash.New(replicas, nil)
			m.Add(peers...)
			pick = m.Get
			ring = reflect.ValueOf(m)
		}
		out, err := os.Create(filepath.Join(dir, "out"))
		if err != nil {
			panic(err)
		}
		for _, h := range lines(filepath.Join(dir, "keys")) {
			key, err := hex.DecodeString(h)
			if err != nil {
				panic(err)
			}
			peer, known := index[pick(string(key))]
			if !known {
				peer = -1
			}
			fmt.Fprintln(out, peer)
		}
		out.Close()
		dump, err := os.Create(filepath.Join(dir, "dump"))
		if err != nil {
			panic(err)
		}
		keys := ring.Elem().FieldByName("keys")
		names := ring.Elem().FieldByName("hashMap")
		points := make([]int, keys.Len())
		for i := range points {
			points[i] = int(keys.Index(i).Int())
		}
		if !sort.IntsAreSorted(points) {
			panic("consistenthash keys are not sorted")
		}
		for i, p := range points {
			if i > 0 && points[i-1] == p {
				continue
			}
			name := names.MapIndex(reflect.ValueOf(p)).String()
			fmt.Fprintf(dump, "%d %d\n", p, index[name])
		}
		dump.Close()
	}
	fmt.Println("groupcache (Debian golang-github-golang-groupcache-dev) with", runtime.Version())
}
