// EnyimMemcached's node locators on the .NET runtime (Mono, Debian
// mono-runtime), for crates/ketama-core/tests/peers/enyim.rs. NuGet cannot be
// reached here, so the locators are written from the rules of
//   enyim/EnyimMemcached 485b5fe6, Enyim.Caching/Memcached/Locators/DefaultNodeLocator.cs
//     and Enyim.Caching/FnvHash.cs (= cnblogs/EnyimMemcachedCore e383c4c7 LegacyNodeLocator),
//   cnblogs/EnyimMemcachedCore e383c4c7, src/Enyim.Caching/Memcached/Locators/DefaultNodeLocator.cs,
// while the runtime supplies what the quirks come from: HashAlgorithm.ComputeHash
// (HashCore, HashFinal, then Initialize: an instance whose constructor never
// initialized it hashes its first input from 0), IPEndPoint/DnsEndPoint.ToString,
// Encoding, BitConverter, Array.Sort and Array.BinarySearch, a Dictionary keyed by point.
//
//   mono EnyimPeer.exe CASE_DIR...   each CASE_DIR holds `case`:
//       locator LEGACY|CORE
//       mutations N
//       server ADDRESS PORT   (an IP literal: IPEndPoint; else DnsEndPoint)
//       down INDEX            (IsAlive false; any number of lines)
//   and `keys` (one UTF-8 key per line); writes `out` (the node index of each
//   key, Locate with the dead-node rebuild) and `dump` (the sorted distinct
//   points of the full index with their node index).
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Net;
using System.Security.Cryptography;
using System.Text;

// FNV-1a 32 as a .NET HashAlgorithm whose state gets the offset basis only
// from Initialize(), as Enyim's FNV1/FNV1a: `initialize` says whether the
// constructor calls it (EnyimMemcachedCore's FNV1(true)) or not.
sealed class Fnv1a32 : HashAlgorithm
{
    uint state;

    public Fnv1a32(bool initialize)
    {
        HashSizeValue = 32;
        if (initialize) Initialize();
    }

    public override void Initialize() { state = 2166136261; }

    protected override void HashCore(byte[] data, int start, int count)
    {
        for (int i = start; i < start + count; i++)
        {
            state ^= data[i];
            state *= 16777619;
        }
    }

    protected override byte[] HashFinal() { return BitConverter.GetBytes(state); }
}

sealed class Locator
{
    readonly bool legacy;
    readonly int mutations;
    readonly EndPoint[] endpoints;
    readonly bool[] alive;
    readonly HashSet<int> dead = new HashSet<int>();
    uint[] points;
    Dictionary<uint, int> owners;

    public Locator(bool legacy, int mutations, EndPoint[] endpoints, bool[] alive)
    {
        this.legacy = legacy;
        this.mutations = mutations;
        this.endpoints = endpoints;
        this.alive = alive;
        Build();
    }

    public uint[] Points { get { return points; } }
    public int Owner(uint point) { return owners[point]; }

    // Every point of every node not known dead, sorted; equal points keep the later node.
    void Build()
    {
        var all = new List<uint>();
        owners = new Dictionary<uint, int>();
        for (int node = 0; node < endpoints.Length; node++)
        {
            if (dead.Contains(node)) continue;
            string endpoint = endpoints[node].ToString();
            var fnv = new Fnv1a32(!legacy); // one instance per node
            for (int i = 0; i < mutations; i++)
            {
                byte[] label = legacy
                    ? Encoding.ASCII.GetBytes(endpoint + "-" + i)
                    : Encoding.UTF8.GetBytes(i + "-" + endpoint);
                uint point = BitConverter.ToUInt32(fnv.ComputeHash(label), 0);
                owners[point] = node;
                all.Add(point);
            }
        }
        points = all.ToArray();
        Array.Sort(points);
    }

    int Find(string key)
    {
        if (points.Length == 0) return -1;
        uint hash = BitConverter.ToUInt32(new Fnv1a32(!legacy).ComputeHash(Encoding.UTF8.GetBytes(key)), 0);
        int at = Array.BinarySearch(points, hash);
        if (at < 0)
        {
            at = ~at;
            if (at == 0) at = points.Length - 1;       // below every point: the last
            else if (at >= points.Length) at = 0;      // above every point: the first
        }
        return owners[points[at]];
    }

    // A dead node found is dropped, the points rebuilt and the key looked up again.
    public int Locate(string key)
    {
        while (true)
        {
            int node = Find(key);
            if (node < 0 || alive[node]) return node;
            dead.Add(node);
            Build();
        }
    }
}

static class EnyimPeer
{
    static List<string> Keys(string path)
    {
        byte[] all = File.ReadAllBytes(path);
        var keys = new List<string>();
        int start = 0;
        var utf8 = new UTF8Encoding(false, true);
        for (int i = 0; i < all.Length; i++)
        {
            if (all[i] != (byte)'\n') continue;
            keys.Add(utf8.GetString(all, start, i - start));
            start = i + 1;
        }
        return keys;
    }

    static void Run(string dir)
    {
        bool legacy = true;
        int mutations = 100;
        var endpoints = new List<EndPoint>();
        var down = new HashSet<int>();
        foreach (string line in File.ReadAllLines(Path.Combine(dir, "case")))
        {
            string[] f = line.Split(' ');
            switch (f[0])
            {
                case "locator": legacy = f[1] == "LEGACY"; break;
                case "mutations": mutations = int.Parse(f[1]); break;
                case "server":
                    IPAddress ip;
                    int port = int.Parse(f[2]);
                    endpoints.Add(IPAddress.TryParse(f[1], out ip)
                        ? (EndPoint)new IPEndPoint(ip, port)
                        : new DnsEndPoint(f[1], port));
                    break;
                case "down": down.Add(int.Parse(f[1])); break;
                case "": break;
                default: throw new ArgumentException("unknown case line: " + line);
            }
        }
        bool[] alive = Enumerable.Range(0, endpoints.Count).Select(i => !down.Contains(i)).ToArray();
        var full = new Locator(legacy, mutations, endpoints.ToArray(), Enumerable.Repeat(true, endpoints.Count).ToArray());
        using (var dump = new StreamWriter(Path.Combine(dir, "dump")))
        {
            foreach (uint point in full.Points.Distinct())
                dump.Write(point + " " + full.Owner(point) + "\n");
        }
        var locator = new Locator(legacy, mutations, endpoints.ToArray(), alive);
        using (var output = new StreamWriter(Path.Combine(dir, "out")))
        {
            foreach (string key in Keys(Path.Combine(dir, "keys")))
                output.Write(locator.Locate(key) + "\n");
        }
    }

    static int Main(string[] args)
    {
        if (args.Length == 0)
        {
            Console.Error.WriteLine("usage: EnyimPeer CASE_DIR...");
            return 2;
        }
        foreach (string dir in args) Run(dir);
        return 0;
    }
}
