<?php

declare(strict_types=1);

namespace Ketama;

use FFI;
use FFI\CData;

/**
 * One operation of a {@see Migration} on one key: {@see MigrationOp::step()}
 * names the command to send next, {@see MigrationOp::reply()} feeds the
 * server's answer, until the step is null and {@see MigrationOp::outcome()}
 * says how it ended. Names are the library's.
 */
final class MigrationOp
{
    private FFI $ffi;
    private CData $step;

    /** @internal begun by {@see Migration::begin()} */
    public function __construct(private ?CData $op)
    {
        $this->ffi = Library::ffi();
        $this->step = $this->ffi->new('ketama_migration_step');
        Library::check($this->ffi->ketama_migration_op_step($this->handle(), FFI::addr($this->step)));
    }

    /**
     * The next command, or null when the operation is finished:
     * `command` ('get', 'gets', 'add-lease', 'cas-copy', 'set', 'add',
     * 'cas-value', 'delete'), `side` ('old', 'new'), `address`, `cas` (for
     * the two cas commands), `exptime` (for 'add-lease' and 'cas-copy'; null:
     * the caller's own TTL) and `lease` (the bytes 'add-lease' stores).
     *
     * @return ?array{command: string, side: string, address: string, cas: int, exptime: ?int, lease: string}
     */
    public function step(): ?array
    {
        $s = $this->step;
        if ($s->done) {
            return null;
        }
        return [
            'command' => Migration::name('ketama_migration_command', $s->command),
            'side' => Migration::name('ketama_migration_side', $s->side),
            'address' => FFI::string($s->address, $s->address_len),
            'cas' => $s->cas,
            'exptime' => $s->exptime < 0 ? null : $s->exptime,
            'lease' => $s->lease_len > 0 ? FFI::string($s->lease, $s->lease_len) : '',
        ];
    }

    /**
     * Feeds the server's answer to the current command: `$reply` is 'hit',
     * 'miss', 'stored', 'not-stored', 'exists', 'not-found', 'deleted' or
     * 'failed'; for a hit, `$value` and its CAS unique (0 for a plain get).
     *
     * @throws KetamaException for a reply the command cannot give
     */
    public function reply(string $reply, string $value = '', int $cas = 0): void
    {
        Library::check($this->ffi->ketama_migration_op_reply(
            $this->handle(),
            Migration::id('ketama_migration_reply', $reply),
            $value === '' ? null : Bytes::of($value),
            strlen($value),
            $cas,
            FFI::addr($this->step),
        ));
    }

    /** How the operation ended ('hit-new', 'hit-old', 'miss', 'stored', ...), or null while it runs. */
    public function outcome(): ?string
    {
        return $this->step->done ? Migration::name('ketama_migration_outcome', $this->step->outcome) : null;
    }

    public function __destruct()
    {
        if ($this->op !== null) {
            $this->ffi->ketama_migration_op_free($this->op);
            $this->op = null;
        }
    }

    private function handle(): CData
    {
        return $this->op ?? throw new KetamaException('the operation is released');
    }
}
