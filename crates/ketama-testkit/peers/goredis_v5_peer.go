// Asks go-redis v5's Ring (Debian golang-gopkg-redis.v5-dev, gopkg.in/redis.v5)
// where keys go. Every key is sent through the ring as
// `EVAL <script> 1 <key>`, the command whose key position v5 knows without
// asking the server (it cannot read Redis 6+ `COMMAND` replies, and routes a
// plain command it has no info for by an empty key).
//
// Usage: goredis_v5_peer CASE_DIR...        (offline)
//        goredis_v5_peer live ADDR,... CASE_DIR...
//
// Each CASE_DIR has `servers` (one shard name per line) and `keys` (one key
// per line in hex); the peer writes `out` (the line number of each key's
// shard) and `dump` (the ring, "point index" in ring order, each point once).
//
// Offline, shard i's client is given the address `shard<i>.invalid:6379` and
// its process function is replaced (WrapProcess) by one that records which
// shard the ring handed the EVAL to and answers it without a network; the
// ring itself (NewRing, Process, its consistenthash and hashtag) is the
// package's. Live, shard i is the real redis-server at the i-th ADDR: each
// EVAL runs `SET KEYS[1]` there, and each server's `KEYS *` tells where each
// key went.
package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"time"

	"gopkg.in/redis.v5"
)

const script = "return redis.call('SET', KEYS[1], '1')"

var errOffline = errors.New("offline peer: not sent")

func lines(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	all := strings.Split(string(data), "\n")
	return all[:len(all)-1] // after the last newline
}

func keysOf(dir string) []string {
	var keys []string
	for _, h := range lines(filepath.Join(dir, "keys")) {
		key, err := hex.DecodeString(h)
		if err != nil {
			panic(err)
		}
		keys = append(keys, string(key))
	}
	return keys
}

// dump writes the ring's consistenthash.Map (the Ring's `hash` field).
func dump(ring *redis.Ring, index map[string]int, dir string) {
	m := reflect.ValueOf(ring).Elem().FieldByName("hash").Elem()
	keys := m.FieldByName("keys")
	names := m.FieldByName("hashMap")
	points := make([]int, keys.Len())
	for i := range points {
		points[i] = int(keys.Index(i).Int())
	}
	if !sort.IntsAreSorted(points) {
		panic("consistenthash keys are not sorted")
	}
	out, err := os.Create(filepath.Join(dir, "dump"))
	if err != nil {
		panic(err)
	}
	defer out.Close()
	for i, p := range points {
		if i > 0 && points[i-1] == p {
			continue
		}
		name := names.MapIndex(reflect.ValueOf(p)).String()
		fmt.Fprintf(out, "%d %d\n", p, index[name])
	}
}

func offline(dir string) {
	names := lines(filepath.Join(dir, "servers"))
	addrs := map[string]string{}
	index := map[string]int{}
	for i, name := range names {
		addrs[name] = fmt.Sprintf("shard%d.invalid:6379", i)
		index[name] = i
	}
	ring := redis.NewRing(&redis.RingOptions{Addrs: addrs, HeartbeatFrequency: time.Hour})
	defer ring.Close()
	hit := -1
	ring.ForEachShard(func(client *redis.Client) error {
		var shard int
		if _, err := fmt.Sscanf(client.String(), "Redis<shard%d.invalid", &shard); err != nil {
			panic(err)
		}
		client.WrapProcess(func(func(redis.Cmder) error) func(redis.Cmder) error {
			return func(cmd redis.Cmder) error {
				if _, eval := cmd.(*redis.Cmd); eval {
					hit = shard
					return nil
				}
				return errOffline // COMMAND: the ring goes on without its info
			}
		})
		return nil
	})
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		panic(err)
	}
	for _, key := range keysOf(dir) {
		hit = -1
		if err := ring.Eval(script, []string{key}).Err(); err != nil {
			panic(err)
		}
		fmt.Fprintln(out, hit)
	}
	out.Close()
	dump(ring, index, dir)
}

func live(addrList string, dir string) {
	names := lines(filepath.Join(dir, "servers"))
	servers := strings.Split(addrList, ",")
	if len(servers) != len(names) {
		panic("one address per shard name")
	}
	addrs := map[string]string{}
	index := map[string]int{}
	direct := make([]*redis.Client, len(names))
	for i, name := range names {
		addrs[name] = servers[i]
		index[name] = i
		direct[i] = redis.NewClient(&redis.Options{Addr: servers[i]})
		defer direct[i].Close()
		if err := direct[i].FlushAll().Err(); err != nil {
			panic(err)
		}
	}
	ring := redis.NewRing(&redis.RingOptions{Addrs: addrs, HeartbeatFrequency: time.Hour})
	defer ring.Close()
	// v5 cannot parse Redis 7's COMMAND reply: answer it with an error at
	// once (as a failed read would), so the ring routes EVAL by its key.
	ring.ForEachShard(func(client *redis.Client) error {
		client.WrapProcess(func(send func(redis.Cmder) error) func(redis.Cmder) error {
			return func(cmd redis.Cmder) error {
				if _, info := cmd.(*redis.CommandsInfoCmd); info {
					return errOffline
				}
				return send(cmd)
			}
		})
		return nil
	})
	keys := keysOf(dir)
	for _, key := range keys {
		if err := ring.Eval(script, []string{key}).Err(); err != nil && err != redis.Nil {
			panic(err)
		}
	}
	holder := map[string]int{}
	for i, client := range direct {
		held, err := client.Keys("*").Result()
		if err != nil {
			panic(err)
		}
		for _, key := range held {
			if _, twice := holder[key]; twice {
				panic("a key is on two servers")
			}
			holder[key] = i
		}
	}
	out, err := os.Create(filepath.Join(dir, "out"))
	if err != nil {
		panic(err)
	}
	for _, key := range keys {
		at, found := holder[key]
		if !found {
			at = -1
		}
		fmt.Fprintln(out, at)
	}
	out.Close()
	dump(ring, index, dir)
}

func main() {
	args := os.Args[1:]
	if len(args) > 1 && args[0] == "live" {
		for _, dir := range args[2:] {
			live(args[1], dir)
		}
		fmt.Println("gopkg.in/redis.v5 Ring, live, with", runtime.Version())
		return
	}
	for _, dir := range args {
		offline(dir)
	}
	fmt.Println("gopkg.in/redis.v5 Ring (Debian golang-gopkg-redis.v5-dev) with", runtime.Version())
}
