package net.ketama;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.Test;

/** KetamaSet and SetWriter over the library's set codec. Run by tests/bindings/java.rs. */
public class SetCodecTest {
    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    public void t1RoundTrip() {
        byte[] payload = KetamaSet.encode(SetOp.ADD, List.of("b", "a", "c"));
        assertArrayEquals(utf8("+b +a +c "), payload);
        byte[] value = concat(payload, KetamaSet.encode(SetOp.REMOVE, List.of("b")), KetamaSet.encode(SetOp.ADD, List.of("é")));
        try (KetamaSet set = KetamaSet.decode(value)) {
            assertEquals(List.of("a", "c", "é"), set.memberStrings());
            assertEquals(3, set.size());
            assertTrue(set.contains("é"));
            assertFalse(set.contains("b"));
            assertEquals(new KetamaSet.Stats(3, 5, 1, 2, value.length, SetEncoding.T1), set.stats());
            assertArrayEquals(utf8("+a +c +é "), set.compacted(SetEncoding.T1));
        }
    }

    @Test
    public void b1RoundTripWithBinaryMembers() {
        List<byte[]> members = List.of(new byte[] {0, 1, 2}, utf8("x y"), utf8("z"));
        byte[] value = KetamaSet.encode(SetOp.ADD, SetEncoding.B1, members);
        try (KetamaSet set = KetamaSet.decode(value, SetEncoding.B1)) {
            assertEquals(3, set.size());
            assertArrayEquals(new byte[] {0, 1, 2}, set.members().get(0));
            assertTrue(set.contains(utf8("x y")));
            assertEquals(SetEncoding.B1, set.stats().encoding());
            try (KetamaSet again = KetamaSet.decode(set.compacted(SetEncoding.B1))) {
                assertEquals(3, again.size());
            }
        }
    }

    @Test
    public void algebra() {
        try (KetamaSet a = KetamaSet.decode(KetamaSet.encode(SetOp.ADD, List.of("1", "2", "3")));
                KetamaSet b = KetamaSet.decode(KetamaSet.encode(SetOp.ADD, List.of("2", "3", "4")));
                KetamaSet u = KetamaSet.union(a, b);
                KetamaSet i = KetamaSet.inter(a, b);
                KetamaSet d = KetamaSet.diff(a, b);
                KetamaSet withMissing = KetamaSet.union(a, null)) {
            assertEquals(List.of("1", "2", "3", "4"), u.memberStrings());
            assertEquals(List.of("2", "3"), i.memberStrings());
            assertEquals(List.of("1"), d.memberStrings());
            assertEquals(List.of("1", "2", "3"), withMissing.memberStrings());
        }
    }

    @Test
    public void planRead() {
        byte[] dirty = concat(KetamaSet.encode(SetOp.ADD, List.of("a", "b")), KetamaSet.encode(SetOp.REMOVE, List.of("a")));
        KetamaSet.ReadPlan lenient = KetamaSet.planRead(dirty, 5, null, null, false);
        assertNull(lenient.compaction());
        lenient.set().close();
        KetamaSet.ReadPlan plan = KetamaSet.planRead(dirty, 5, 300, new KetamaSet.Policy(0, 523_776, false), false);
        assertNotNull(plan.compaction());
        assertArrayEquals(utf8("+b "), plan.compaction().value());
        assertEquals(5, plan.compaction().cas());
        assertEquals(Integer.valueOf(300), plan.compaction().exptime());
        assertEquals(List.of("b"), plan.set().memberStrings());
        assertTrue(plan.set().shouldCompact(new KetamaSet.Policy(0, 523_776, false), false));
        assertFalse(plan.set().shouldCompact(KetamaSet.Policy.DEFAULT, false));
        plan.set().close();
        KetamaSet.ReadPlan unknownTtl = KetamaSet.planRead(dirty, 5, null, null, true);
        assertNull(unknownTtl.compaction().exptime());
        unknownTtl.set().close();
    }

    @Test
    public void badEncodingsCarryTheLibraryMessage() {
        KetamaException mixed = assertThrows(KetamaException.class, () -> KetamaSet.decode(new byte[] {'+', 'a', ' ', (byte) 0xA1, 1, 'a'}));
        assertEquals("KETAMA_ERR_SET_DECODE", mixed.statusName());
        assertTrue(mixed.getMessage(), mixed.getMessage().startsWith("MixedEncoding at byte offset 3 (record 1)"));
        assertEquals("KETAMA_ERR_SET_DECODE", assertThrows(KetamaException.class, () -> KetamaSet.decode(utf8("\u0007junk"))).statusName());
        assertEquals("KETAMA_ERR_SET_DECODE", assertThrows(KetamaException.class, () -> KetamaSet.decode(new byte[] {(byte) 0xA1, 5, 'a'}, SetEncoding.B1)).statusName());
        KetamaException member = assertThrows(KetamaException.class, () -> KetamaSet.encode(SetOp.ADD, List.of("has space")));
        assertEquals("KETAMA_ERR_SET_MEMBER", member.statusName());
        assertTrue(member.getMessage(), member.getMessage().contains("member 0"));
        assertEquals("KETAMA_ERR_SET_MEMBER", assertThrows(KetamaException.class, () -> KetamaSet.encode(SetOp.ADD, List.of(""))).statusName());
    }

    @Test
    public void writerRecipe() {
        try (SetWriter w = new SetWriter(SetOp.ADD, 0)) {
            assertEquals(SetWriter.Action.APPEND, w.action());
            assertEquals(SetWriter.Action.ADD, w.step(SetWriter.Reply.NOT_STORED));
            assertEquals(SetWriter.Action.CREATED, w.step(SetWriter.Reply.STORED));
            assertTrue(w.done());
        }
        try (SetWriter w = new SetWriter(SetOp.ADD, 2)) {
            KetamaException full = assertThrows(KetamaException.class, () -> {
                for (int i = 0; i < 10; i++) {
                    w.step(w.action() == SetWriter.Action.PROBE ? SetWriter.Reply.EXISTS : SetWriter.Reply.NOT_STORED);
                }
            });
            assertEquals("KETAMA_ERR_SET_FULL", full.statusName());
        }
        try (SetWriter w = new SetWriter(SetOp.ADD, 0)) {
            assertEquals("KETAMA_ERR_INVALID_ARGUMENT", assertThrows(KetamaException.class, () -> w.step(SetWriter.Reply.EXISTS)).statusName());
        }
    }

    @Test
    public void closingTwiceAndUseAfterCloseThrow() {
        KetamaSet set = KetamaSet.decode(utf8("+a "));
        set.close();
        assertThrows(IllegalStateException.class, set::close);
        assertThrows(IllegalStateException.class, set::size);
        assertThrows(IllegalStateException.class, set::members);
        assertThrows(IllegalStateException.class, () -> set.compacted(SetEncoding.T1));
        assertThrows(IllegalStateException.class, () -> KetamaSet.union(set));
        SetWriter writer = new SetWriter(SetOp.REMOVE, 0);
        writer.close();
        assertThrows(IllegalStateException.class, writer::close);
        assertThrows(IllegalStateException.class, () -> writer.step(SetWriter.Reply.STORED));
    }

    /** Paired lists (the manual's follow-X / unfollow-X, counted) and the seal. */
    @Test
    public void pairedListsAndTheSeal() {
        byte[] follows = KetamaSet.encodePaired(List.of("1234", "222", "987", "222"));
        assertArrayEquals(utf8("+1234 +222 +987 +222 "), follows);
        try (KetamaSet pair = KetamaSet.decodePaired(follows, KetamaSet.encodePaired(List.of("222", "987")))) {
            assertEquals(List.of("1234", "222"), pair.memberStrings());
            assertEquals(false, pair.isSealed());
        }
        try (KetamaSet empty = KetamaSet.decodePaired(new byte[0], new byte[0])) {
            assertEquals(0, empty.size());
        }
        assertEquals("follow-X", KetamaSet.pairedKey("X", true));
        assertEquals("unfollow-X", KetamaSet.pairedKey("X", false));
        try (KetamaSet sealed = KetamaSet.decode(utf8("^+1234"), SetEncoding.MEMBASE_PLUSMINUS)) {
            assertEquals(true, sealed.isSealed());
        }
    }
}
