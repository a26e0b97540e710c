package net.ketama;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A server list as the native {@code ketama_server} array that
 * {@code ketama_ring_new_with_options} reads: address and name as UTF-8 bytes
 * with their lengths (no NUL terminator needed), and the weight.
 */
final class NativeServerList {
    private NativeServerList() {
    }

    /**
     * The array of {@code servers}; the native copies of their strings are added to
     * {@code keep}, which the caller holds until the call that reads the array returns.
     *
     * @throws KetamaException when a server has no address or a negative weight
     */
    static Memory of(List<Server> servers, List<Memory> keep) {
        final long entrySize = NativeStructs.KetamaServer.SIZE;
        Memory list = new Memory(Math.max(1, servers.size()) * entrySize);
        list.clear();
        for (int i = 0; i < servers.size(); i++) {
            Server s = servers.get(i);
            if (s.address() == null) {
                throw new KetamaException("server " + i + " has no address");
            }
            if (s.weight() < 0) {
                throw new KetamaException("server " + s.address() + ": weight " + s.weight() + " is negative");
            }
            Pointer entry = list.share(i * entrySize);
            byte[] address = s.address().getBytes(StandardCharsets.UTF_8);
            NativeStructs.KetamaServer.setAddress(entry, bytes(address, keep));
            NativeStructs.KetamaServer.setAddressLen(entry, address.length);
            NativeStructs.KetamaServer.setWeight(entry, s.weight());
            if (s.name() != null) {
                byte[] name = s.name().getBytes(StandardCharsets.UTF_8);
                NativeStructs.KetamaServer.setName(entry, bytes(name, keep));
                NativeStructs.KetamaServer.setNameLen(entry, name.length);
            }
        }
        return list;
    }

    private static Pointer bytes(byte[] data, List<Memory> keep) {
        Memory m = new Memory(Math.max(1, data.length));
        m.write(0, data, 0, data.length);
        keep.add(m);
        return m;
    }
}
