<?php

/*
 * The check helpers shared by ring_test.php and batch_test.php: one "ok ..."
 * line per check, "FAIL: ..." and exit 1 at the first failure; the script
 * prints "PASS n checks" at the end.
 */

declare(strict_types=1);

use Ketama\KetamaException;

$checks = 0;

function check(bool $ok, string $what): void
{
    global $checks;
    $checks++;
    if (!$ok) {
        fwrite(STDERR, "FAIL: {$what}\n");
        exit(1);
    }
    echo "ok {$what}\n";
}

/** Runs $f and returns the KetamaException it throws (fails the test if none). */
function throws(callable $f, string $what): KetamaException
{
    try {
        $f();
    } catch (KetamaException $e) {
        check(true, "{$what} throws: [{$e->status}] {$e->getMessage()}");
        return $e;
    }
    check(false, "{$what} should throw a KetamaException");
    exit(1);
}
