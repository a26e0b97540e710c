<?php

declare(strict_types=1);

namespace Ketama;

use FFI;

/**
 * Loads libketama.so through PHP's FFI with the flattened header
 * `ketama_ffi.h` (generated from the library's Rust source).
 *
 * The library is searched, in order:
 *  1. the `KETAMA_LIBRARY` environment variable (the .so file or its directory);
 *  2. this package's own build: `target/release/libketama.so`, then `target/debug/libketama.so`;
 *  3. the system library path (`libketama.so.1`, as the dynamic loader finds it).
 */
final class Library
{
    private static ?FFI $ffi = null;
    private static string $path = '';

    /** The FFI instance, loading the library on first use. */
    public static function ffi(): FFI
    {
        return self::$ffi ??= self::load();
    }

    /** The path (or soname) the library was loaded from. */
    public static function path(): string
    {
        self::ffi();
        return self::$path;
    }

    /**
     * Throws a KetamaException for a failed call: `$status` is the returned
     * `ketama_status`; the message comes from `ketama_error()`.
     */
    public static function check(int $status): void
    {
        if ($status !== 0) {
            $ffi = self::ffi();
            throw new KetamaException(self::lastError(), $status, self::string($ffi->ketama_status_name($status)));
        }
    }

    /** The library's last error message on this thread (`ketama_error()`). */
    public static function lastError(): string
    {
        return self::string(self::ffi()->ketama_error());
    }

    /** A PHP string from a `char*` result (FFI converts `const char*` itself). */
    public static function string(mixed $value): string
    {
        if (is_string($value)) {
            return $value;
        }
        return $value === null ? '' : FFI::string($value);
    }

    private static function load(): FFI
    {
        if (!extension_loaded('ffi')) {
            throw new KetamaException('the PHP FFI extension is not loaded (Debian: php8.2-cli ships it; check ffi.enable)');
        }
        $header = __DIR__ . '/../ketama_ffi.h';
        $declarations = @file_get_contents($header);
        if ($declarations === false) {
            throw new KetamaException("cannot read the FFI header {$header}");
        }
        $tried = [];
        foreach (self::candidates() as [$where, $library]) {
            if ($library === null) {
                $tried[] = "{$where}: not set";
                continue;
            }
            if (str_contains($library, '/') && !is_file($library)) {
                $tried[] = "{$where}: {$library} does not exist";
                continue;
            }
            try {
                $ffi = FFI::cdef($declarations, $library);
                self::$path = $library;
                return $ffi;
            } catch (FFI\Exception $e) {
                $tried[] = "{$where}: {$library}: {$e->getMessage()}";
            }
        }
        throw new KetamaException("libketama.so not found or not usable; looked in:\n  " . implode("\n  ", $tried)
            . "\nSet KETAMA_LIBRARY to the library file, install the libketama1 package, or run `cargo build` in the ketama repository.");
    }

    /** @return list<array{0: string, 1: ?string}> where to look, in order. */
    private static function candidates(): array
    {
        $env = getenv('KETAMA_LIBRARY');
        if (is_string($env) && $env !== '' && is_dir($env)) {
            $env = rtrim($env, '/') . '/libketama.so';
        }
        $root = dirname(__DIR__, 3);
        return [
            ['KETAMA_LIBRARY', is_string($env) && $env !== '' ? $env : null],
            ['package build (release)', "{$root}/target/release/libketama.so"],
            ['package build (debug)', "{$root}/target/debug/libketama.so"],
            ['system library path', 'libketama.so.1'],
        ];
    }
}
