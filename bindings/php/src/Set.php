<?php

declare(strict_types=1);

namespace Ketama;

use FFI;
use FFI\CData;

/**
 * A decoded memcached set value (the library's set codec): members in
 * bytewise order, counters, the compacted value, and set algebra.
 *
 * Values are built from APPEND payloads made by {@see Set::encode()} and
 * written with {@see SetWriter}; read them back with {@see Set::decode()} or
 * {@see Set::planRead()}, which also says when to compact (store the
 * compacted value under CAS). Encodings: 'auto' (decode only), 't1', 'b1',
 * 'membase-comma', 'membase-tombstone', 'membase-plusminus' (read only).
 */
final class Set implements \Countable, \IteratorAggregate
{
    private function __construct(private ?CData $set)
    {
    }

    /**
     * Decodes a stored value strictly.
     *
     * @param int $maxMemberLen 0 = 250 bytes
     * @throws KetamaException (`KETAMA_ERR_SET_DECODE`) naming the error kind, byte offset and record
     */
    public static function decode(string $value, string $encoding = 'auto', int $maxMemberLen = 0): self
    {
        $ffi = Library::ffi();
        $set = $ffi->new('ketama_set*');
        Library::check($ffi->ketama_set_decode(
            Bytes::of($value), strlen($value), self::encodingId($encoding), $maxMemberLen, FFI::addr($set), null,
        ));
        return new self($set);
    }

    /**
     * Reads a paired list (the `follow-X` and `unfollow-X` values; '' for a
     * missing key), counted: the members occurring more often in `$adds`
     * than in `$removes`.
     *
     * @throws KetamaException (`KETAMA_ERR_SET_DECODE`) when a value does not decode
     */
    public static function decodePaired(string $adds, string $removes, int $maxMemberLen = 0): self
    {
        $ffi = Library::ffi();
        $set = $ffi->new('ketama_set*');
        $keep = [];
        // Two inputs: private copies (Bytes::of shares one buffer between calls).
        Library::check($ffi->ketama_set_decode_paired(
            Bytes::copy($adds, $keep), strlen($adds), Bytes::copy($removes, $keep), strlen($removes),
            $maxMemberLen, FFI::addr($set),
        ));
        return new self($set);
    }

    /**
     * The APPEND payload recording `$members` in one list of a pair
     * (append it to {@see pairedKey()} of either side).
     *
     * @param list<string> $members
     * @throws KetamaException (`KETAMA_ERR_SET_MEMBER`) naming a member the encoding cannot hold
     */
    public static function encodePaired(array $members, string $encoding = 't1', int $maxMemberLen = 0): string
    {
        $ffi = Library::ffi();
        $count = count($members);
        $refs = $ffi->new('ketama_set_member_ref[' . max(1, $count) . ']');
        $keep = [];
        foreach (array_values($members) as $i => $member) {
            $member = (string) $member;
            $refs[$i]->data = Bytes::copy($member, $keep);
            $refs[$i]->len = strlen($member);
        }
        $out = $ffi->new('ketama_set_buffer');
        Library::check($ffi->ketama_set_encode_paired($refs, $count, self::encodingId($encoding), $maxMemberLen, FFI::addr($out)));
        return Bytes::take($out);
    }

    /** The key of one list of a pair: `follow-<base>` ('add') or `unfollow-<base>` ('remove'). */
    public static function pairedKey(string $base, string $side = 'add'): string
    {
        $id = match ($side) {
            'add' => 0,
            'remove' => 1,
            default => throw new \ValueError("side must be 'add' or 'remove', not '{$side}'"),
        };
        $ffi = Library::ffi();
        $out = $ffi->new('ketama_set_buffer');
        Library::check($ffi->ketama_set_paired_key(Bytes::of($base), strlen($base), $id, FFI::addr($out)));
        return Bytes::take($out);
    }

    /** Whether the value started with the `^` seal (a retired list of a flipped pair). */
    public function sealed(): bool
    {
        return Library::ffi()->ketama_set_is_sealed($this->handle());
    }

    /**
     * The APPEND (or ADD) payload recording `$op` ('add' or 'remove') of `$members`.
     *
     * @param list<string> $members
     * @throws KetamaException (`KETAMA_ERR_SET_MEMBER`) naming a member the encoding cannot hold
     */
    public static function encode(array $members, string $op = 'add', string $encoding = 't1', int $maxMemberLen = 0): string
    {
        $ffi = Library::ffi();
        $count = count($members);
        $refs = $ffi->new('ketama_set_member_ref[' . max(1, $count) . ']');
        $keep = [];
        foreach (array_values($members) as $i => $member) {
            $member = (string) $member;
            $refs[$i]->data = Bytes::copy($member, $keep);
            $refs[$i]->len = strlen($member);
        }
        $out = $ffi->new('ketama_set_buffer');
        Library::check($ffi->ketama_set_encode(self::opId($op), self::encodingId($encoding), $refs, $count, $maxMemberLen, FFI::addr($out)));
        return Bytes::take($out);
    }

    /**
     * The read step of the recipe: decodes `$value` (fetched with its CAS)
     * and says whether to compact. `compaction` is null when no write is
     * due, else `['value' => string, 'cas' => int, 'exptime' => ?int]`:
     * store `value` with CAS `cas` and that exptime (null when
     * `$remainingTtl` was not given); ignore EXISTS / NOT_FOUND on that write.
     *
     * @param ?int $remainingTtl seconds left (-1 = never expires), null if unknown
     * @param array{threshold?: int, soft_limit?: int, ratio?: bool}|null $policy null = the library's defaults
     * @return array{set: Set, compaction: ?array{value: string, cas: int, exptime: ?int}}
     */
    public static function planRead(string $value, int $cas, ?int $remainingTtl = null, string $encoding = 'auto', ?array $policy = null, bool $force = false): array
    {
        $ffi = Library::ffi();
        $set = $ffi->new('ketama_set*');
        $compaction = $ffi->new('ketama_set_compaction');
        Library::check($ffi->ketama_set_plan_read(
            Bytes::of($value), strlen($value), self::encodingId($encoding), $cas, $remainingTtl ?? 0, $remainingTtl !== null,
            self::policy($policy, $keep), $force, FFI::addr($set), FFI::addr($compaction),
        ));
        $write = null;
        if ($compaction->needed) {
            $write = [
                'value' => Bytes::take($compaction->value),
                'cas' => $compaction->cas,
                'exptime' => $compaction->exptime_known ? $compaction->exptime : null,
            ];
        }
        return ['set' => new self($set), 'compaction' => $write];
    }

    /** SUNION (null = a missing key). */
    public static function union(?Set ...$sets): self
    {
        return self::algebra('ketama_set_union', $sets);
    }

    /** SINTER (null = a missing key). */
    public static function inter(?Set ...$sets): self
    {
        return self::algebra('ketama_set_inter', $sets);
    }

    /** SDIFF: the first set minus the others (null = a missing key). */
    public static function diff(?Set ...$sets): self
    {
        return self::algebra('ketama_set_diff', $sets);
    }

    /** SCARD. */
    public function count(): int
    {
        return Library::ffi()->ketama_set_card($this->handle());
    }

    /** SISMEMBER. */
    public function contains(string $member): bool
    {
        $ffi = Library::ffi();
        $out = $ffi->new('bool');
        Library::check($ffi->ketama_set_contains($this->handle(), Bytes::of($member), strlen($member), FFI::addr($out)));
        return $out->cdata;
    }

    /**
     * SMEMBERS, in bytewise order.
     *
     * @return list<string>
     */
    public function members(): array
    {
        $ffi = Library::ffi();
        $data = $ffi->new('const uint8_t*');
        $len = $ffi->new('size_t');
        $members = [];
        $count = $ffi->ketama_set_card($this->handle());
        for ($i = 0; $i < $count; $i++) {
            Library::check($ffi->ketama_set_member($this->handle(), $i, FFI::addr($data), FFI::addr($len)));
            $members[] = $len->cdata === 0 ? '' : FFI::string($data, $len->cdata);
        }
        return $members;
    }

    /** @return \ArrayIterator<int, string> */
    public function getIterator(): \ArrayIterator
    {
        return new \ArrayIterator($this->members());
    }

    /**
     * Counters: members, records, removals, redundant (what compaction deletes),
     * value_len and the encoding read.
     *
     * @return array{members: int, records: int, removals: int, redundant: int, value_len: int, encoding: string}
     */
    public function stats(): array
    {
        $ffi = Library::ffi();
        $s = $ffi->new('ketama_set_stats');
        Library::check($ffi->ketama_set_get_stats($this->handle(), FFI::addr($s)));
        return [
            'members' => $s->members,
            'records' => $s->records,
            'removals' => $s->removals,
            'redundant' => $s->redundant,
            'value_len' => $s->value_len,
            'encoding' => self::encodingName($s->encoding),
        ];
    }

    /** Whether the policy (null = defaults) asks to compact this set. */
    public function shouldCompact(?array $policy = null, bool $force = false): bool
    {
        $ffi = Library::ffi();
        $out = $ffi->new('bool');
        Library::check($ffi->ketama_set_should_compact($this->handle(), self::policy($policy, $keep), $force, FFI::addr($out)));
        return $out->cdata;
    }

    /** The canonical value: add records in bytewise order ('' for an empty set). */
    public function compacted(string $encoding = 't1'): string
    {
        $ffi = Library::ffi();
        $out = $ffi->new('ketama_set_buffer');
        Library::check($ffi->ketama_set_compacted($this->handle(), self::encodingId($encoding), FFI::addr($out)));
        return Bytes::take($out);
    }

    /** Releases the native set now; later use throws. */
    public function close(): void
    {
        if ($this->set !== null) {
            Library::ffi()->ketama_set_free($this->set);
            $this->set = null;
        }
    }

    public function __destruct()
    {
        $this->close();
    }

    /** @internal */
    public function handle(): CData
    {
        return $this->set ?? throw new KetamaException('the set is closed');
    }

    /** @param array<int, ?Set> $sets */
    private static function algebra(string $function, array $sets): self
    {
        $ffi = Library::ffi();
        $list = $ffi->new('ketama_set*[' . max(1, count($sets)) . ']');
        foreach (array_values($sets) as $i => $set) {
            $list[$i] = $set?->handle();
        }
        $out = $ffi->new('ketama_set*');
        Library::check($ffi->$function($ffi->cast('const ketama_set *const *', $list), count($sets), FFI::addr($out)));
        return new self($out);
    }

    /**
     * A `ketama_set_policy*` for `$policy` (null for the defaults). The struct is
     * kept alive in `$keep` until the call returns.
     */
    private static function policy(?array $policy, mixed &$keep): ?CData
    {
        if ($policy === null) {
            return null;
        }
        $ffi = Library::ffi();
        $keep = $ffi->new('ketama_set_policy');
        Library::check($ffi->ketama_set_policy_default(FFI::addr($keep)));
        foreach ($policy as $field => $value) {
            match ($field) {
                'threshold', 'soft_limit' => $keep->$field = (int) $value,
                'ratio' => $keep->ratio = (bool) $value,
                default => throw new KetamaException("unknown compaction policy field '$field' (threshold, soft_limit, ratio)"),
            };
        }
        return FFI::addr($keep);
    }

    /** @internal 'b1' -> KETAMA_SET_ENCODING_B1 */
    public static function encodingId(string $name): int
    {
        $constant = 'KETAMA_SET_ENCODING_' . strtoupper(str_replace('-', '_', $name));
        try {
            return Library::ffi()->$constant;
        } catch (FFI\Exception) {
            throw new KetamaException("unknown set encoding '{$name}'");
        }
    }

    private static function encodingName(int $id): string
    {
        return [0 => 'auto', 1 => 't1', 2 => 'b1', 3 => 'membase-comma', 4 => 'membase-tombstone', 5 => 'membase-plusminus'][$id] ?? "encoding {$id}";
    }

    /** @internal 'remove' -> KETAMA_SET_REMOVE */
    public static function opId(string $op): int
    {
        return match ($op) {
            'add' => Library::ffi()->KETAMA_SET_ADD,
            'remove' => Library::ffi()->KETAMA_SET_REMOVE,
            default => throw new KetamaException("unknown set operation '{$op}' (add or remove)"),
        };
    }
}
