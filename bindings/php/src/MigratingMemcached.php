<?php

declare(strict_types=1);

namespace Ketama;

use Memcached;

/**
 * php-memcached's get, set, add, delete, getMulti and setMulti across a
 * {@see Migration} from the ring of `$oldServers` to the ring of
 * `$newServers` (`'HOST:PORT'` strings):
 *
 *     $cache = new Ketama\MigratingMemcached($old, $new, mode: 'warmup', options: 'interval=60s,warmup=1h');
 *
 * Every decision is the library's: which server to ask, in which order,
 * with which command, and what the answer is. This class only sends each
 * command on a `Memcached` object of that server (one per address, made by
 * `$connect`, default: a `Memcached` with that one server) and feeds back
 * the reply. As `Memcached` does, a failed operation returns false and
 * {@see MigratingMemcached::getResultCode()} says why.
 */
final class MigratingMemcached
{
    private Migration $migration;
    /** @var array<string, Memcached> */
    private array $servers = [];
    private int $resultCode = Memcached::RES_SUCCESS;

    /**
     * @param list<string> $oldServers
     * @param list<string> $newServers
     * @param ?callable(string): Memcached $connect
     */
    public function __construct(
        array $oldServers,
        array $newServers,
        string $fromFlavour = 'libketama',
        string $toFlavour = 'libketama',
        string $mode = 'default',
        ?int $startMs = null,
        ?string $options = null,
        ?callable $connect = null,
    ) {
        $this->migration = Migration::create(
            Ring::fromServers($oldServers, $fromFlavour),
            Ring::fromServers($newServers, $toFlavour),
            $mode,
            $startMs,
            $options,
        );
        $connect ??= static function (string $address): Memcached {
            $m = new Memcached();
            $colon = strrpos($address, ':');
            $m->addServer(substr($address, 0, $colon ?: strlen($address)), $colon ? (int) substr($address, $colon + 1) : 11211);
            return $m;
        };
        foreach (array_unique([...$oldServers, ...$newServers]) as $address) {
            $this->servers[$address] = $connect($address);
        }
    }

    /** The migration (routes and phases). */
    public function migration(): Migration
    {
        return $this->migration;
    }

    /** The key's value, or false (result code RES_NOTFOUND on a miss, RES_FAILURE when a server failed). */
    public function get(string $key): mixed
    {
        [$outcome, $value] = $this->run('get', $key);
        return match ($outcome) {
            'hit-new', 'hit-old' => $value,
            default => false,
        };
    }

    /**
     * The values of the keys that hit, by key.
     *
     * @param list<string> $keys
     * @return array<string, mixed>|false
     */
    public function getMulti(array $keys): array|false
    {
        $found = [];
        foreach ($keys as $key) {
            [$outcome, $value] = $this->run('get', $key);
            if ($outcome === 'failed') {
                return false;
            }
            if ($outcome === 'hit-new' || $outcome === 'hit-old') {
                $found[$key] = $value;
            }
        }
        $this->resultCode = Memcached::RES_SUCCESS;
        return $found;
    }

    /** Stores the value; true when stored. */
    public function set(string $key, mixed $value, int $expiration = 0): bool
    {
        return $this->run('set', $key, $value, $expiration)[0] === 'stored';
    }

    /**
     * Stores every value; true when all were stored.
     *
     * @param array<string, mixed> $items
     */
    public function setMulti(array $items, int $expiration = 0): bool
    {
        $all = true;
        foreach ($items as $key => $value) {
            $all = $this->set((string) $key, $value, $expiration) && $all;
        }
        return $all;
    }

    /** Stores the value if the key holds none; true when stored (else RES_NOTSTORED). */
    public function add(string $key, mixed $value, int $expiration = 0): bool
    {
        return $this->run('add', $key, $value, $expiration)[0] === 'stored';
    }

    /** Deletes the key on every side the migration names; true when it held a value. */
    public function delete(string $key): bool
    {
        return $this->run('delete', $key)[0] === 'deleted';
    }

    /** The result code of the last operation, as `Memcached::getResultCode()`. */
    public function getResultCode(): int
    {
        return $this->resultCode;
    }

    /**
     * Drives one operation to its outcome.
     *
     * @return array{0: string, 1: mixed} the outcome and the value read for it
     */
    private function run(string $kind, string $key, mixed $value = null, int $expiration = 0): array
    {
        $op = $this->migration->begin($kind, $key);
        $read = [];
        while (($step = $op->step()) !== null) {
            $sent = match ($step['command']) {
                'cas-copy' => $read['old'],
                'add-lease' => $step['lease'],
                default => $value,
            };
            $ttl = $step['exptime'] ?? $expiration;
            [$reply, $found, $cas] = $this->send($this->servers[$step['address']], $step, $key, $sent, $ttl);
            if ($reply === 'hit') {
                $read[$step['side']] = $found;
            }
            $op->reply($reply, is_string($found) ? $found : '', $cas);
        }
        $outcome = $op->outcome();
        $this->resultCode = match ($outcome) {
            'miss', 'not-found' => Memcached::RES_NOTFOUND,
            'not-stored' => Memcached::RES_NOTSTORED,
            'failed' => Memcached::RES_FAILURE,
            default => Memcached::RES_SUCCESS,
        };
        return [$outcome, $read[$outcome === 'hit-new' ? 'new' : 'old'] ?? null];
    }

    /**
     * Sends one command; returns [reply, value, cas] as the library names replies.
     *
     * @param array{command: string, cas: int} $step
     * @return array{0: string, 1: mixed, 2: int}
     */
    private function send(Memcached $m, array $step, string $key, mixed $value, int $ttl): array
    {
        $command = $step['command'];
        $ok = match ($command) {
            'get', 'gets' => $m->get($key, null, Memcached::GET_EXTENDED),
            'delete' => $m->delete($key),
            'cas-copy', 'cas-value' => $m->cas($step['cas'], $key, $value, $ttl),
            'set' => $m->set($key, $value, $ttl),
            default => $m->add($key, $value, $ttl), // add, add-lease
        };
        $code = $m->getResultCode();
        if ($ok !== false) {
            return match ($command) {
                'get' => ['hit', $ok['value'], 0],
                'gets' => ['hit', $ok['value'], (int) $ok['cas']],
                'delete' => ['deleted', null, 0],
                default => ['stored', null, 0],
            };
        }
        $reply = match (true) {
            $code === Memcached::RES_NOTFOUND => match ($command) {
                'get', 'gets' => 'miss',
                'add', 'add-lease', 'set' => 'failed',
                default => 'not-found',
            },
            $code === Memcached::RES_NOTSTORED || $code === Memcached::RES_DATA_EXISTS => match ($command) {
                'cas-copy', 'cas-value' => 'exists',
                'add', 'add-lease' => 'not-stored',
                default => 'failed',
            },
            default => 'failed',
        };
        return [$reply, null, 0];
    }
}
