<?php

declare(strict_types=1);

namespace Ketama;

use FFI;
use FFI\CData;

/**
 * A migration from one ring to another (any two flavours and server lists):
 * for every key its owners in both rings, and each get, set, add and delete
 * driven through the protocol of the key's phase ({@see MigrationOp}). The
 * library sends nothing; {@see MigratingMemcached} runs the steps on
 * php-memcached connections. See docs/migration.md.
 */
final class Migration
{
    private FFI $ffi;
    private CData $owners;

    private function __construct(private ?CData $migration)
    {
        $this->ffi = Library::ffi();
        $this->owners = $this->ffi->new('ketama_migration_owners');
    }

    /**
     * The migration of `$mode` ('warmup', 'phased', 'gradual'; 'default': the library's default) from `$old`
     * to `$new`, starting at `$startMs` (milliseconds since the Unix epoch;
     * null: now), with the schedule and TTLs of `$options`
     * (`'interval=60s,warmup=1h,copy_ttl=1h,lease_ttl=10s'`; null: the
     * library's defaults). The migration keeps its own reference to both rings.
     *
     * @throws KetamaException naming a bad mode or option
     */
    public static function create(Ring $old, Ring $new, string $mode = 'default', ?int $startMs = null, ?string $options = null): self
    {
        $ffi = Library::ffi();
        $out = $ffi->new('const ketama_migration*');
        Library::check($ffi->ketama_migration_new(
            $old->nativeHandle(),
            $new->nativeHandle(),
            self::id('ketama_migration_mode', $mode),
            $startMs ?? 0,
            $options,
            FFI::addr($out),
        ));
        return new self($out);
    }

    /**
     * `[new_server, old_server or null]`: the key's owner in the new ring,
     * and its owner in the old ring when that is another server (null when
     * the key does not move).
     *
     * @return array{0: string, 1: ?string}
     */
    public function route(string $key): array
    {
        $o = $this->owners;
        Library::check($this->ffi->ketama_migration_route($this->handle(), $key, strlen($key), FFI::addr($o)));
        $new = FFI::string($o->new_address, $o->new_address_len);
        return [$new, $o->moved ? FFI::string($o->old_address, $o->old_address_len) : null];
    }

    /** The key's phase at `$nowMs` (null: now): 'old', 'prepare', 'warm', 'switched' or 'new'. */
    public function phase(string $key, ?int $nowMs = null): string
    {
        $phase = $this->ffi->new('uint32_t');
        Library::check($this->ffi->ketama_migration_phase_of($this->handle(), $key, strlen($key), $nowMs ?? 0, FFI::addr($phase)));
        return self::name('ketama_migration_phase', $phase->cdata);
    }

    /**
     * Begins `$op` ('get', 'set', 'add', 'delete') on `$key` at `$nowMs`
     * (null: now); drive the returned operation to its outcome.
     */
    public function begin(string $op, string $key, ?int $nowMs = null): MigrationOp
    {
        $out = $this->ffi->new('ketama_migration_op*');
        Library::check($this->ffi->ketama_migration_begin(
            $this->handle(),
            self::id('ketama_migration_op_kind', $op),
            $key,
            strlen($key),
            $nowMs ?? 0,
            FFI::addr($out),
        ));
        return new MigrationOp($out);
    }

    /** Releases the native migration now (operations begun keep their own reference). */
    public function close(): void
    {
        if ($this->migration !== null) {
            $this->ffi->ketama_migration_free($this->migration);
            $this->migration = null;
        }
    }

    public function __destruct()
    {
        $this->close();
    }

    /** The id of a name of the C enum `$cType`, as the library resolves it. */
    public static function id(string $cType, string $name): int
    {
        $ffi = Library::ffi();
        $id = $ffi->new('uint32_t');
        Library::check($ffi->ketama_enum_from_name($cType, $name, FFI::addr($id)));
        return $id->cdata;
    }

    /** The library's name of id `$id` of the C enum `$cType`. */
    public static function name(string $cType, int $id): string
    {
        return Library::string(Library::ffi()->ketama_enum_name($cType, $id));
    }

    private function handle(): CData
    {
        return $this->migration ?? throw new KetamaException('the migration is closed');
    }
}
