<?php

declare(strict_types=1);

namespace Ketama;

use FFI;
use FFI\CData;

/**
 * @internal Moves bytes across FFI: PHP strings cannot be passed as
 * `uint8_t*`, and library-owned buffers must be freed by the library.
 */
final class Bytes
{
    private static ?CData $buffer = null;
    private static int $capacity = 0;

    /** `$bytes` in a shared native buffer, valid until the next call (for input arguments). */
    public static function of(string $bytes): CData
    {
        $len = strlen($bytes);
        if ($len > self::$capacity || self::$buffer === null) {
            self::$capacity = max(256, 2 * $len);
            self::$buffer = Library::ffi()->new('uint8_t[' . self::$capacity . ']');
        }
        if ($len > 0) {
            FFI::memcpy(self::$buffer, $bytes, $len);
        }
        return self::$buffer;
    }

    /**
     * A `uint8_t*` to a private native copy of `$bytes`, kept alive by `$keep`.
     *
     * @param list<CData> $keep
     */
    public static function copy(string $bytes, array &$keep): CData
    {
        $copy = Library::ffi()->new('uint8_t[' . max(1, strlen($bytes)) . ']');
        FFI::memcpy($copy, $bytes, strlen($bytes));
        $keep[] = $copy;
        return FFI::addr($copy[0]);
    }

    /** The bytes of a library-owned `ketama_set_buffer`, which is then freed. */
    public static function take(CData $buffer): string
    {
        $bytes = $buffer->len === 0 ? '' : FFI::string($buffer->data, $buffer->len);
        Library::ffi()->ketama_set_buffer_free($buffer);
        return $bytes;
    }
}
