<?php

/*
 * Tests of Ketama\Set and Ketama\SetWriter (the set codec).
 * Run: php bindings/php/tests/set_test.php; prints "PASS n checks", exits 1 on failure.
 */

declare(strict_types=1);

require __DIR__ . '/../ketama.php';

use Ketama\KetamaException;
use Ketama\Set;
use Ketama\SetWriter;

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

function throws(callable $f, string $status, string $what): KetamaException
{
    try {
        $f();
    } catch (KetamaException $e) {
        check($e->status === $status, "{$what} throws {$status}: {$e->getMessage()}");
        return $e;
    }
    check(false, "{$what} should throw {$status}");
    exit(1);
}

// Encode / decode round trips in both writable encodings.
foreach (['t1', 'b1'] as $enc) {
    $members = $enc === 'b1' ? ["bin\0ary", 'é', 'x y', 'a'] : ['é', 'user:1', 'a'];
    $value = Set::encode($members, 'add', $enc) . Set::encode([$members[0]], 'remove', $enc) . Set::encode(['z'], 'add', $enc);
    $set = Set::decode($value);
    $expected = array_slice($members, 1);
    $expected[] = 'z';
    sort($expected, SORT_STRING);
    check($set->members() === $expected, "{$enc}: members after add, remove, add (bytewise order)");
    check(count($set) === count($expected) && iterator_to_array($set) === $expected, "{$enc}: count() and iteration");
    check($set->contains('z') && !$set->contains($members[0]), "{$enc}: contains");
    $stats = $set->stats();
    check($stats['records'] === count($members) + 2 && $stats['removals'] === 1 && $stats['redundant'] === 2
        && $stats['encoding'] === $enc && $stats['value_len'] === strlen($value), "{$enc}: stats");
    $compact = $set->compacted($enc);
    check(Set::decode($compact)->members() === $expected && strlen($compact) < strlen($value), "{$enc}: compacted value decodes to the same members");
    check(Set::decode($compact)->stats()['redundant'] === 0, "{$enc}: compacted value has no redundant record");
}
check(Set::encode(['b', 'a']) === '+b +a ', 'T1 payload bytes');
check(Set::decode('')->members() === [] && Set::decode('')->compacted() === '', 'the empty value is the empty set');

// Algebra (null = a missing key).
$a = Set::decode(Set::encode(['1', '2', '3']));
$b = Set::decode(Set::encode(['2', '3', '4']));
check(Set::union($a, $b)->members() === ['1', '2', '3', '4'], 'union');
check(Set::inter($a, $b)->members() === ['2', '3'], 'inter');
check(Set::diff($a, $b)->members() === ['1'], 'diff');
check(Set::union($a, null)->members() === ['1', '2', '3'] && Set::inter($a, null)->members() === [], 'a missing key in algebra');

// Compaction planning.
$dirty = Set::encode(['a', 'b']) . Set::encode(['a'], 'remove');
check(Set::planRead($dirty, 5)['compaction'] === null, 'planRead: default policy tolerates 1 redundant record');
$plan = Set::planRead($dirty, 5, 300, 'auto', ['threshold' => 0]);
check($plan['compaction'] === ['value' => '+b ', 'cas' => 5, 'exptime' => 300] && $plan['set']->members() === ['b'], 'planRead: compaction under CAS keeps the TTL');
check(Set::planRead($dirty, 5, null, 'auto', ['threshold' => 0])['compaction']['exptime'] === null, 'planRead: unknown TTL');
check(Set::planRead($dirty, 5, null, 'auto', null, true)['compaction'] !== null, 'planRead: force');
check(Set::decode($dirty)->shouldCompact(['threshold' => 0]) && !Set::decode($dirty)->shouldCompact(), 'shouldCompact');

// Bad encodings and members carry the library's message.
$e = throws(fn () => Set::decode("+a \xA1\x01a"), 'KETAMA_ERR_SET_DECODE', 'a B1 record in a T1 value');
check(str_contains($e->getMessage(), 'MixedEncoding at byte offset 3 (record 1)'), 'decode errors name the kind, byte offset and record');
throws(fn () => Set::decode("\x07junk"), 'KETAMA_ERR_SET_DECODE', 'an unknown encoding');
throws(fn () => Set::decode('+'), 'KETAMA_ERR_SET_DECODE', 'a bare op');
$e = throws(fn () => Set::decode("\xA1\x05ab", 'b1'), 'KETAMA_ERR_SET_DECODE', 'a B1 length past the end');
check(str_contains($e->getMessage(), 'Truncated'), 'truncated B1 record');
throws(fn () => Set::encode(['has space']), 'KETAMA_ERR_SET_MEMBER', 'a T1 member with a space');
throws(fn () => Set::encode(['']), 'KETAMA_ERR_SET_MEMBER', 'an empty member');
throws(fn () => Set::encode([str_repeat('m', 251)]), 'KETAMA_ERR_SET_MEMBER', 'a member over 250 bytes');
throws(fn () => Set::decode('+a ', 'nope'), '', 'an unknown encoding name');
throws(fn () => Set::encode(['a'], 'toggle'), '', 'an unknown operation');

// The write recipe.
$w = new SetWriter('add');
check($w->action() === 'append' && !$w->done(), 'writer starts with append');
check($w->step('stored') === 'appended' && $w->done(), 'append stored: appended');
$w = new SetWriter('add');
check($w->step('not_stored') === 'add' && $w->step('stored') === 'created', 'missing key: add creates it');
$w = new SetWriter('remove');
check($w->step('not_stored') === 'append' || $w->action() === 'probe', 'remove on a missing key retries or probes');
while (!$w->done()) {
    $w->step($w->action() === 'probe' ? 'not_found' : 'not_stored');
}
check($w->action() === 'nothing_to_remove', 'remove on a missing key: nothing to remove');
$w = new SetWriter('add', 2);
$e = null;
try {
    for ($i = 0; $i < 10 && !$w->done(); $i++) {
        $w->step($w->action() === 'probe' ? 'exists' : 'not_stored');
    }
} catch (KetamaException $e) {
}
check($e !== null && $e->status === 'KETAMA_ERR_SET_FULL', 'a key that exists but cannot grow: KETAMA_ERR_SET_FULL');
throws(fn () => (new SetWriter())->step('maybe'), '', 'an unknown reply');
throws(fn () => (new SetWriter())->step('exists'), 'KETAMA_ERR_INVALID_ARGUMENT', 'a reply that is not possible now');

// Paired lists (the manual's follow-X / unfollow-X, counted) and the seal.
$follows = Set::encodePaired(['1234', '222', '987', '222']);
check($follows === '+1234 +222 +987 +222 ', 'encodePaired writes add records');
$pair = Set::decodePaired($follows, Set::encodePaired(['222', '987']));
check($pair->members() === ['1234', '222'], 'decodePaired counts: 222 followed twice, unfollowed once');
check(!$pair->sealed(), 'a pair is not sealed');
check(Set::decodePaired('', '')->count() === 0, 'missing lists: an empty set');
check(Set::pairedKey('X') === 'follow-X' && Set::pairedKey('X', 'remove') === 'unfollow-X', 'pairedKey');
throws(fn () => Set::decodePaired('+a ', '*b '), 'KETAMA_ERR_SET_DECODE', 'a bad remove list');
check(Set::decode('^+1234', 'membase-plusminus')->sealed(), "the manual's ^+1234 is sealed");

echo "PASS {$checks} checks\n";
