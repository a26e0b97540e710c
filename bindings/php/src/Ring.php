<?php

declare(strict_types=1);

namespace Ketama;

use FFI;
use FFI\CData;

/**
 * An immutable consistent-hashing ring of libketama.so. Build it from a
 * server file or a list of servers; look keys up with {@see Ring::find()}.
 * The native ring is released when the object is destroyed.
 *
 * Rings outlive the request: {@see Ring::fromFile()} and
 * {@see Ring::fromServers()} hand out the ring the library already built
 * in this process (a PHP-FPM worker) from the same file state or list and
 * the same flavour, hash, reading and options (the library's ring cache:
 * a file is looked at with one `stat`, an edit is taken once it has
 * settled), so a request after the first pays a lookup, not a roll.
 *
 * Flavours and hashes are named as the CLI names them (`'twemproxy'`,
 * `'php-memcached'`; `'crc32'` in the flavour's peer's spelling,
 * `'default'` the flavour's own hash): the library resolves every name.
 */
final class Ring
{
    /**
     * Server addresses by index, read from the library on first use (a
     * request that looks up a few keys reads none: the ring itself may be
     * the one the library's ring cache kept from an earlier request).
     * @var ?list<string>
     */
    private ?array $addresses = null;
    /**
     * The lookup result struct and a pointer to it, reused by every lookup;
     * made at the first lookup that reads a struct ({@see Ring::find()}).
     */
    private ?CData $out = null;
    private ?CData $outPtr = null;
    /** Batch lookup arrays (`uint32_t[batchCapacity]`: lengths in, server indices out), grown as needed. */
    private ?CData $batchLengths = null;
    private ?CData $batchOut = null;
    private int $batchCapacity = 0;

    private function __construct(private ?CData $ring, private FFI $ffi)
    {
    }

    /** @return list<string> the server addresses by index */
    private function addresses(): array
    {
        return $this->addresses ??= array_map(fn (array $s): string => $s['address'], $this->servers());
    }

    /**
     * Reads a server file (`ADDRESS<TAB>WEIGHT` lines).
     *
     * @param bool|string $parse how the file is read: false for the strict
     *             reader, which rejects every line the original libketama would
     *             misread; true to read it exactly like the original; or a reading's
     *             name ('strict', 'libketama', 'peers', 'sockiopool', 'nginx', or
     *             'flavour': the syntax the flavour's users write, as
     *             `ketama --servers-file` reads it), resolved by the library
     * @param ?string $options placement options as the library reads them,
     *             `'points=100'` or `'hash_tag={}'` (null: the peer's defaults)
     * @throws KetamaException with the library's message (naming the line) on failure
     */
    public static function fromFile(string $path, string $flavour = 'libketama', string $hash = 'default', bool|string $parse = false, ?string $options = null): self
    {
        // One crossing: the library resolves the names and answers from its
        // ring cache. The ring is returned, not written through an out-pointer,
        // which FFI would make by parsing a type on every request.
        $ffi = Library::ffi();
        $ring = $ffi->ketama_ring_from_file_named(
            $path,
            $flavour,
            $hash,
            is_string($parse) ? $parse : ($parse ? 'libketama' : 'strict'),
            $options,
        );
        return new self($ring ?? Library::fail(), $ffi);
    }

    /**
     * Builds a ring from servers given as a list of addresses
     * (`['10.0.0.1:11211', ...]`), a map of address => weight, or a list of
     * `['address' => ..., 'weight' => ..., 'name' => ...]` (weight and name optional).
     *
     * @param array<int|string, mixed> $servers
     * @param ?string $options placement options, as {@see Ring::fromFile()} takes them
     * @throws KetamaException when the list, a server or an option is rejected
     */
    public static function fromServers(array $servers, string $flavour = 'libketama', string $hash = 'default', ?string $options = null): self
    {
        // The usual forms (a list of addresses, a map of address => weight) cross
        // as one string made in C (serialize()), which the library reads, or finds
        // in its ring cache by the bytes alone: no PHP loop over the list.
        $ffi = Library::ffi();
        $serialized = serialize($servers);
        $ring = $ffi->ketama_ring_from_serialized($serialized, strlen($serialized), $flavour, $hash, $options);
        if ($ring !== null) {
            return new self($ring, $ffi);
        }
        // Refused (another entry form, a bad server or name): the list is read
        // entry by entry, which takes every form and names each mistake.
        // The list crosses in one call as NUL-separated columns (ketama_ring_new_packed),
        // not one FFI write per field; the library finds the ring it built from an equal list.
        $addresses = [];
        $weights = [];
        $names = [];
        $named = false;
        $packable = true; // false: a field the columns cannot carry (a NUL, an empty name)
        foreach ($servers as $k => $v) {
            if (is_int($k) && is_string($v)) {
                $addresses[] = $v;
                $weights[] = 0;
                $names[] = '';
            } elseif (is_string($k) && is_int($v)) {
                $addresses[] = $k;
                $weights[] = $v;
                $names[] = '';
            } elseif (is_array($v) && isset($v['address'])) {
                $addresses[] = (string) $v['address'];
                $weights[] = (int) ($v['weight'] ?? 0);
                $name = isset($v['name']) ? (string) $v['name'] : '';
                $names[] = $name;
                $named = $named || isset($v['name']);
                $packable = $packable && !(isset($v['name']) && $name === '');
            } else {
                return self::fromServerStructs($servers, $flavour, $hash, $options);
            }
        }
        $packed = implode("\0", $addresses);
        $packedNames = $named ? implode("\0", $names) : null;
        $count = count($addresses);
        if (!$packable || min($weights ?: [0]) < 0
            || substr_count($packed, "\0") !== max(0, $count - 1)
            || ($packedNames !== null && substr_count($packedNames, "\0") !== $count - 1)) {
            return self::fromServerStructs($servers, $flavour, $hash, $options);
        }
        $packedWeights = implode("\0", $weights);
        $ffi = Library::ffi();
        $ring = $ffi->new('const ketama_ring*');
        $flavourId = self::flavourId($flavour);
        Library::check($ffi->ketama_ring_new_packed(
            $count,
            $packed,
            strlen($packed),
            $packedWeights,
            strlen($packedWeights),
            $packedNames,
            $packedNames === null ? 0 : strlen($packedNames),
            $flavourId,
            self::hashId($hash, $flavourId),
            $options,
            FFI::addr($ring),
        ));
        return new self($ring, $ffi);
    }

    /**
     * {@see Ring::fromServers()} through `ketama_server` structs, one field at a
     * time: for the lists the packed columns cannot carry (a NUL byte in an
     * address or a name, an empty name, a negative weight, an entry of no
     * known form), so that each is refused with the library's own message.
     *
     * @param array<int|string, mixed> $servers
     */
    private static function fromServerStructs(array $servers, string $flavour, string $hash, ?string $options): self
    {
        $ffi = Library::ffi();
        $entries = [];
        foreach ($servers as $k => $v) {
            $entries[] = match (true) {
                is_string($k) && is_int($v) => ['address' => $k, 'weight' => $v, 'name' => null],
                is_int($k) && is_string($v) => ['address' => $v, 'weight' => 0, 'name' => null],
                is_array($v) && isset($v['address']) => [
                    'address' => (string) $v['address'],
                    'weight' => (int) ($v['weight'] ?? 0),
                    'name' => isset($v['name']) ? (string) $v['name'] : null,
                ],
                default => throw new KetamaException("server entry " . var_export($k, true)
                    . " is not an address, an address => weight pair or ['address' => ...]"),
            };
        }
        $count = count($entries);
        $list = $ffi->new('ketama_server[' . max(1, $count) . ']');
        $keep = []; // native copies of the strings, alive until the call returns
        foreach ($entries as $i => $entry) {
            if ($entry['weight'] < 0) {
                throw new KetamaException("server {$entry['address']}: weight {$entry['weight']} is negative");
            }
            $list[$i]->address = self::bytes($entry['address'], $keep);
            $list[$i]->address_len = strlen($entry['address']);
            $list[$i]->weight = $entry['weight'];
            if ($entry['name'] !== null) {
                $list[$i]->name = self::bytes($entry['name'], $keep);
                $list[$i]->name_len = strlen($entry['name']);
            }
        }
        $ring = $ffi->new('const ketama_ring*');
        $flavourId = self::flavourId($flavour);
        Library::check($ffi->ketama_ring_new_with_options($list, $count, $flavourId, self::hashId($hash, $flavourId), $options, FFI::addr($ring)));
        return new self($ring, $ffi);
    }

    /**
     * The server for `$key` (any bytes).
     *
     * @throws KetamaException when the ring has no points
     */
    public function find(string $key): Location
    {
        $this->lookup($key);
        return $this->location();
    }

    /** The address of the server for `$key`. */
    public function server(string $key): string
    {
        if ($this->addresses !== null) {
            // The body of serverIndex() inlined: a PHP method call costs about as much as an FFI argument.
            $index = $this->ffi->ketama_find_server_index($this->ring ?? $this->handle(), $key, strlen($key));
            return $this->addresses[$index >= 0 ? $index : self::fail($index)];
        }
        // The address as the library returns it (a string the ring owns, which
        // FFI copies): no server list read back into PHP, no struct read.
        return $this->ffi->ketama_find_server_address($this->ring ?? $this->handle(), $key, strlen($key))
            ?? self::fail($this->ffi->ketama_find_server_index($this->ring ?? $this->handle(), $key, strlen($key)));
    }

    /**
     * Index (input order) of the server for `$key`: the hot path, one FFI call
     * (`ketama_find_server_index`) with three scalar arguments and an integer
     * result, so nothing is converted but the arguments (PHP's FFI prepares
     * every call anew, at a cost that grows with the number of arguments).
     *
     * @throws KetamaException when the ring has no points or is closed
     */
    public function serverIndex(string $key): int
    {
        // A PHP string passes as `const char *` without a copy.
        $index = $this->ffi->ketama_find_server_index($this->ring ?? $this->handle(), $key, strlen($key));
        return $index >= 0 ? $index : self::fail($index);
    }

    /** Throws for a negative result of `ketama_find_server_index` (a negated `ketama_status`). */
    private static function fail(int $negatedStatus): never
    {
        Library::check(-$negatedStatus);
        throw new KetamaException("ketama_find_server_index returned {$negatedStatus}");
    }

    /**
     * Batch lookup: the server index of every key in one native call
     * (`ketama_find_servers_packed`, MD5 computed several keys at a time).
     * Returns an array with the same keys as `$keys` (like `array_map`);
     * answers equal {@see serverIndex()} key by key.
     *
     * @param array<array-key, string> $keys
     * @return array<array-key, int>
     * @throws KetamaException when the ring has no points
     */
    public function serverIndices(array $keys): array
    {
        $lengths = array_map('strlen', $keys); // first: a non-string key is a TypeError here
        $indices = $this->serverIndicesPacked(implode('', $keys), $lengths);
        return array_is_list($keys) ? $indices : array_combine(array_keys($keys), $indices);
    }

    /**
     * Batch lookup: the server address of every key in one native call.
     * Returns an array with the same keys as `$keys`; answers equal
     * {@see server()} key by key.
     *
     * @param array<array-key, string> $keys
     * @return array<array-key, string>
     * @throws KetamaException when the ring has no points
     */
    public function serversFor(array $keys): array
    {
        $addresses = $this->addresses();
        return array_map(static fn (int $i): string => $addresses[$i], $this->serverIndices($keys));
    }

    /**
     * Batch lookup over keys stored back to back in `$packed`, key `i` being
     * `$lengths[i]` bytes long: the server indices, in order.
     *
     * @param list<int> $lengths
     * @return list<int>
     * @throws KetamaException with the library's message when the lengths
     *         run past the end of `$packed` or the ring has no points
     */
    public function serverIndicesPacked(string $packed, array $lengths): array
    {
        $count = count($lengths);
        if ($count === 0) {
            return [];
        }
        if ($count > $this->batchCapacity) {
            $this->batchCapacity = max(64, $count);
            $this->batchLengths = $this->ffi->new("uint32_t[{$this->batchCapacity}]");
            $this->batchOut = $this->ffi->new("uint32_t[{$this->batchCapacity}]");
        }
        // pack/unpack move the integer arrays in one memcpy each instead of one FFI access per key.
        FFI::memcpy($this->batchLengths, pack('V*', ...array_values($lengths)), 4 * $count);
        $status = $this->ffi->ketama_find_servers_packed(
            $this->ring ?? $this->handle(), $packed, strlen($packed), $this->batchLengths, $count, $this->batchOut,
        );
        if ($status !== 0) {
            Library::check($status);
        }
        return array_values(unpack('V*', FFI::string($this->batchOut, 4 * $count)));
    }

    /**
     * The multi-GET planner (`ketama_group_keys`): the keys grouped by the
     * server that holds them, for one multi-get per server. Returns
     * `[address => [key, ...], ...]` with servers in ring order and keys in
     * input order; servers holding none of the keys are left out.
     *
     * @param list<string> $keys
     * @return array<string, list<string>>
     * @throws KetamaException when the ring has no points
     */
    public function groupKeys(array $keys): array
    {
        $keys = array_values($keys);
        $count = count($keys);
        if ($count === 0) {
            return [];
        }
        $lengths = $this->ffi->new("uint32_t[{$count}]");
        FFI::memcpy($lengths, pack('V*', ...array_map('strlen', $keys)), 4 * $count);
        $packed = implode('', $keys);
        $groups = $this->ffi->new('ketama_key_groups *');
        $status = $this->ffi->ketama_group_keys(
            $this->ring ?? $this->handle(), $packed, strlen($packed), $lengths, $count, FFI::addr($groups),
        );
        if ($status !== 0) {
            Library::check($status);
        }
        try {
            $plan = [];
            $server = $this->ffi->new('uint32_t');
            $indices = $this->ffi->new('const uint32_t *');
            $n = $this->ffi->new('size_t');
            $total = $this->ffi->ketama_key_groups_count($groups);
            for ($g = 0; $g < $total; $g++) {
                Library::check($this->ffi->ketama_key_groups_get(
                    $groups, $g, FFI::addr($server), FFI::addr($indices), FFI::addr($n),
                ));
                $members = [];
                foreach (unpack('V*', FFI::string($indices, 4 * $n->cdata)) ?: [] as $i) {
                    $members[] = $keys[$i];
                }
                $plan[$this->addresses()[$server->cdata]] = $members;
            }
            return $plan;
        } finally {
            $this->ffi->ketama_key_groups_free($groups);
        }
    }

    /** The pointer to $this->out, made at the first lookup that reads the struct. */
    private function outPtr(): CData
    {
        if ($this->outPtr === null) {
            $this->out = $this->ffi->new('ketama_server_ref');
            $this->outPtr = FFI::addr($this->out);
        }
        return $this->outPtr;
    }

    /** One ketama_find_server call into $this->out. */
    private function lookup(string $key): void
    {
        // A PHP string passes as `const char *` without a copy.
        $status = $this->ffi->ketama_find_server($this->ring ?? $this->handle(), $key, strlen($key), $this->outPtr());
        if ($status !== 0) {
            Library::check($status);
        }
    }

    /**
     * Failover lookup: the server for `$key` skipping the servers in `$down`
     * (indices or addresses) by walking on along the continuum.
     *
     * @param list<int|string> $down
     * @throws KetamaException when every server is down or an entry is unknown
     */
    public function findAvoiding(string $key, array $down): Location
    {
        $ffi = Library::ffi();
        $indices = $ffi->new('uint32_t[' . max(1, count($down)) . ']');
        foreach (array_values($down) as $i => $server) {
            if (is_string($server)) {
                $index = array_search($server, $this->addresses(), true);
                if ($index === false) {
                    throw new KetamaException("server '{$server}' is not on this ring");
                }
                $server = $index;
            }
            if ($server < 0) {
                throw new KetamaException("down server index {$server} is negative");
            }
            $indices[$i] = $server;
        }
        Library::check($ffi->ketama_find_server_avoiding(
            $this->handle(), $key, strlen($key), $indices, count($down), $this->outPtr(),
        ));
        return $this->location();
    }

    /**
     * Replica list: the indices (input order) of `$n` distinct servers for
     * `$key`, its own server first, the others by the flavour's replica rule
     * (`ketama_find_replicas`); every server when `$n` exceeds them.
     *
     * @return list<int>
     * @throws KetamaException when `$n` is negative or the ring has no points
     */
    public function replicas(string $key, int $n): array
    {
        if ($n < 0) {
            throw new KetamaException("replicas: n {$n} is negative");
        }
        $ffi = Library::ffi();
        $capacity = min($n, count($this->addresses()));
        $indices = $ffi->new('uint32_t[' . max(1, $capacity) . ']');
        $count = $ffi->new('size_t');
        Library::check($ffi->ketama_find_replicas(
            $this->handle(), $key, strlen($key), $n, $indices, $capacity, FFI::addr($count),
        ));
        $list = [];
        for ($i = 0; $i < $count->cdata; $i++) {
            $list[] = $indices[$i];
        }
        return $list;
    }

    /**
     * The 32-bit key hash `$hash` ('md5', 'crc32', 'fnv1a_64', 'spy-native', ...) of
     * `$bytes`, as the rings use it (`ketama_hash_bytes`).
     *
     * @throws KetamaException for an unknown hash or 'default'
     */
    public static function hash(string $bytes, string $hash = 'md5'): int
    {
        $ffi = Library::ffi();
        $out = $ffi->new('uint32_t');
        Library::check($ffi->ketama_hash_bytes(self::hashId($hash), $bytes, strlen($bytes), FFI::addr($out)));
        return $out->cdata;
    }

    /** Number of servers. */
    public function serverCount(): int
    {
        return Library::ffi()->ketama_ring_server_count($this->handle());
    }

    /** Number of points on the continuum. */
    public function pointCount(): int
    {
        return Library::ffi()->ketama_ring_point_count($this->handle());
    }

    /**
     * The servers in input order.
     *
     * @return list<array{address: string, name: ?string, weight: int, points: int}>
     */
    public function servers(): array
    {
        $ffi = Library::ffi();
        $info = $ffi->new('ketama_server_info');
        $servers = [];
        $count = $ffi->ketama_ring_server_count($this->handle());
        for ($i = 0; $i < $count; $i++) {
            Library::check($ffi->ketama_ring_server($this->handle(), $i, FFI::addr($info)));
            $servers[] = [
                'address' => FFI::string($info->address, $info->address_len),
                'name' => FFI::isNull($info->name) ? null : FFI::string($info->name, $info->name_len),
                'weight' => $info->weight,
                'points' => $info->point_count,
            ];
        }
        return $servers;
    }

    /**
     * The continuum in order, as `[point, server address]` pairs. A flavour
     * that is not a continuum (pymemcache, python-memcached, cache-memcached)
     * throws KetamaException (KETAMA_ERR_INVALID_ARGUMENT) naming it.
     *
     * @return list<array{0: int, 1: string}>
     */
    public function points(): array
    {
        $ffi = Library::ffi();
        $point = $ffi->new('uint32_t');
        $server = $ffi->new('uint32_t');
        $points = [];
        $count = $ffi->ketama_ring_point_count($this->handle());
        if ($count === 0) {
            // An empty continuum has no point 0 (out of range: no points);
            // a placement without a continuum is refused naming the flavour.
            $status = $ffi->ketama_ring_point($this->handle(), 0, FFI::addr($point), FFI::addr($server));
            if ($status === $ffi->KETAMA_ERR_INVALID_ARGUMENT) {
                Library::check($status);
            }
        }
        for ($i = 0; $i < $count; $i++) {
            Library::check($ffi->ketama_ring_point($this->handle(), $i, FFI::addr($point), FFI::addr($server)));
            $points[] = [$point->cdata, $this->addresses()[$server->cdata]];
        }
        return $points;
    }

    /** Releases the native ring now; any later use throws. */
    public function close(): void
    {
        if ($this->ring !== null) {
            $this->ffi->ketama_ring_free($this->ring);
            $this->ring = null;
        }
    }

    public function __destruct()
    {
        $this->close();
    }

    /**
     * The native `ketama_ring*`, for the binding's own classes ({@see Migration}).
     *
     * @internal
     */
    public function nativeHandle(): CData
    {
        return $this->handle();
    }

    private function handle(): CData
    {
        return $this->ring ?? throw new KetamaException('the ring is closed');
    }

    private function location(): Location
    {
        $out = $this->out;
        return new Location($out->server_index, FFI::string($out->address, $out->address_len), $out->point, $out->point_index);
    }

    /**
     * A `char*` to a native copy of `$bytes`; the copy is kept alive in `$keep`.
     *
     * @param list<CData> $keep
     */
    private static function bytes(string $bytes, array &$keep): CData
    {
        $copy = Library::ffi()->new('char[' . max(1, strlen($bytes)) . ']');
        FFI::memcpy($copy, $bytes, strlen($bytes));
        $keep[] = $copy;
        return FFI::addr($copy[0]);
    }

    /** The `ketama_flavour` id of a flavour name or alias, as the library resolves it. */
    private static function flavourId(string $name): int
    {
        $ffi = Library::ffi();
        $id = $ffi->new('uint32_t');
        Library::check($ffi->ketama_flavour_from_name($name, FFI::addr($id)));
        return $id->cdata;
    }

    /**
     * The `ketama_hash` id of `$name` as flavour `$flavour`'s peer spells it
     * (twemproxy's 'crc32' is the 15-bit crc, 'crc32a' the full CRC-32), or
     * without a flavour by its canonical name; the library resolves both.
     */
    private static function hashId(string $name, ?int $flavour = null): int
    {
        $ffi = Library::ffi();
        $id = $ffi->new('uint32_t');
        Library::check($flavour === null
            ? $ffi->ketama_hash_from_canonical_name($name, FFI::addr($id))
            : $ffi->ketama_hash_from_name($flavour, $name, FFI::addr($id)));
        return $id->cdata;
    }
}
