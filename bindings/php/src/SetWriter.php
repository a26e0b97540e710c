<?php

declare(strict_types=1);

namespace Ketama;

use FFI;
use FFI\CData;

/**
 * The write recipe of the set codec, driven with your own memcached client:
 * do {@see SetWriter::action()} ('append', 'add' or 'probe') with the
 * payload from {@see Set::encode()}, feed the reply to {@see SetWriter::step()}
 * ('stored', 'not_stored', 'exists', 'not_found', 'too_large') until
 * {@see SetWriter::done()}; the outcome is 'appended', 'created' or
 * 'nothing_to_remove'. A set that cannot grow throws `KETAMA_ERR_SET_FULL`
 * (compact or shard it), a key that keeps coming and going `KETAMA_ERR_SET_CONTENDED`.
 */
final class SetWriter
{
    private const ACTIONS = [1 => 'append', 2 => 'add', 3 => 'probe', 4 => 'appended', 5 => 'created', 6 => 'nothing_to_remove'];
    private const REPLIES = ['stored' => 0, 'not_stored' => 1, 'exists' => 2, 'not_found' => 3, 'too_large' => 4];

    private ?CData $writer;
    private string $action;

    /** @param int $maxRetries add/append rounds before probing (0 = 3) */
    public function __construct(string $op = 'add', int $maxRetries = 0)
    {
        $ffi = Library::ffi();
        $writer = $ffi->new('ketama_set_writer*');
        $action = $ffi->new('uint32_t');
        Library::check($ffi->ketama_set_writer_new(Set::opId($op), $maxRetries, FFI::addr($writer), FFI::addr($action)));
        $this->writer = $writer;
        $this->action = self::ACTIONS[$action->cdata];
    }

    /** What to do next: 'append', 'add', 'probe', or the outcome once done. */
    public function action(): string
    {
        return $this->action;
    }

    /** Whether the write is finished ({@see action()} is then the outcome). */
    public function done(): bool
    {
        return !in_array($this->action, ['append', 'add', 'probe'], true);
    }

    /**
     * Feeds the server's reply to the last action; returns the next action.
     *
     * @throws KetamaException KETAMA_ERR_SET_FULL / KETAMA_ERR_SET_CONTENDED, or a reply that is not possible now
     */
    public function step(string $reply): string
    {
        $ffi = Library::ffi();
        if ($this->writer === null) {
            throw new KetamaException('the set writer is finished');
        }
        $id = self::REPLIES[$reply] ?? throw new KetamaException("unknown reply '{$reply}' (" . implode(', ', array_keys(self::REPLIES)) . ')');
        $action = $ffi->new('uint32_t');
        try {
            Library::check($ffi->ketama_set_writer_step($this->writer, $id, FFI::addr($action)));
        } catch (KetamaException $e) {
            $this->close();
            throw $e;
        }
        $this->action = self::ACTIONS[$action->cdata];
        if ($this->done()) {
            $this->close();
        }
        return $this->action;
    }

    private function close(): void
    {
        if ($this->writer !== null) {
            Library::ffi()->ketama_set_writer_free($this->writer);
            $this->writer = null;
        }
    }

    public function __destruct()
    {
        $this->close();
    }
}
