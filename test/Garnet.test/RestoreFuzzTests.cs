// RESTORE of mutated DUMP payloads, seeded and bounded in time (the seed is printed; RESTORE_FUZZ_SEED replays one).
// Every payload comes from a real DUMP of each type and encoding, mutated (bytes flipped, set, inserted, removed, the
// body cut or a length byte pushed high), with its CRC-64 recomputed so the mutation reaches the decoders. Each RESTORE
// answers OK or a clean Redis error (never a .NET message), and the server keeps serving.
using System.Diagnostics;
using Garnet.client;
using Garnet.server.Persistence;

namespace Garnet.test;

[TestFixture]
public class RestoreFuzzTests
{
    [Test, CancelAfter(60_000)]
    public void MutatedDumpPayloadsGetAValueOrACleanError()
    {
        int seed = int.TryParse(Environment.GetEnvironmentVariable("RESTORE_FUZZ_SEED"), out int s) ? s : Random.Shared.Next();
        TestContext.Out.WriteLine($"restore fuzz seed {seed} (RESTORE_FUZZ_SEED={seed} replays it)");
        var rnd = new Random(seed);
        using var server = new TestServer();
        using var c = server.Client();
        var seeds = Payloads(c);
        var sw = Stopwatch.StartNew();
        int tried = 0, restored = 0;
        while (sw.Elapsed < TimeSpan.FromSeconds(4))
        {
            var (name, good) = seeds[rnd.Next(seeds.Count)];
            var body = Mutate(rnd, good.AsSpan(0, good.Length - 8).ToArray());
            var payload = body.Concat(BitConverter.GetBytes(RdbEncoding.Crc64(0, body))).ToArray();
            var r = c.Execute("RESTORE", "fuzz", "0", payload, "REPLACE");
            tried++;
            if (r.IsError)
            {
                Assert.That(r.Text, Does.StartWith("ERR ").And.Not.Contain("Exception").And.Not.Contain("internal error").And.Not.Contain("Index was"),
                    $"seed {seed}, case {tried} ({name}): {Convert.ToHexString(payload)}");
            }
            else
            {
                RespAssert.Simple(r, "OK");
                restored++;
                // What was restored can be read back and dumped again.
                Assert.That(c.Execute("TYPE", "fuzz").IsError, Is.False);
                Assert.That(c.Execute("DUMP", "fuzz").IsError, Is.False, $"seed {seed}, case {tried} ({name})");
            }
            if (tried % 64 == 0) RespAssert.Simple(c.Execute("PING"), "PONG");
        }
        TestContext.Out.WriteLine($"{tried} payloads, {restored} restored");
        using var other = server.Client();
        RespAssert.Simple(other.Execute("PING"), "PONG");
        Assert.That(tried, Is.GreaterThan(200));
    }

    /// <summary>DUMPs of every type in each encoding the server gives it.</summary>
    private static List<(string Name, byte[] Payload)> Payloads(RespClient c)
    {
        c.Execute("SET", "str", "hello world");
        c.Execute("SET", "int", "12345");
        c.Execute("SET", "long", new string('z', 300));
        c.Execute("RPUSH", "list", "a", "1", "bbb");
        c.Execute(Enumerable.Range(0, 600).Select(i => (object)("item" + i)).Prepend("biglist").Prepend("RPUSH").ToArray());
        c.Execute("SADD", "intset", "1", "-70000", "5000000000");
        c.Execute("SADD", "lpset", "a", "b", "3");
        c.Execute(Enumerable.Range(0, 600).Select(i => (object)("m" + i)).Prepend("bigset").Prepend("SADD").ToArray());
        c.Execute("HSET", "hash", "f", "v", "n", "1");
        c.Execute(Enumerable.Range(0, 600).SelectMany(i => new object[] { "f" + i, "v" + i }).Prepend("bighash").Prepend("HSET").ToArray());
        c.Execute("ZADD", "zset", "1", "a", "2.5", "b", "-inf", "c");
        c.Execute(Enumerable.Range(0, 600).SelectMany(i => new object[] { i.ToString(), "z" + i }).Prepend("bigzset").Prepend("ZADD").ToArray());
        c.Execute("XADD", "stream", "1-1", "f", "v", "g", "w");
        c.Execute("XADD", "stream", "2-1", "f", "v2");
        c.Execute("XGROUP", "CREATE", "stream", "grp", "0");
        c.Execute("XREADGROUP", "GROUP", "grp", "consumer", "COUNT", "1", "STREAMS", "stream", ">");
        c.Execute("PFADD", "hll", "a", "b", "c");
        var result = new List<(string, byte[])>();
        foreach (var key in new[] { "str", "int", "long", "list", "biglist", "intset", "lpset", "bigset", "hash", "bighash", "zset", "bigzset", "stream", "hll" })
        {
            var d = c.Execute("DUMP", key);
            Assert.That(d.Bytes, Is.Not.Null, $"DUMP {key}: {d}");
            result.Add((key, d.Bytes!));
        }
        return result;
    }

    private static byte[] Mutate(Random rnd, byte[] body)
    {
        var b = body.ToList();
        int edits = 1 + rnd.Next(4);
        for (int e = 0; e < edits && b.Count > 3; e++)
        {
            // The last 2 bytes are the RDB version: mostly left alone so the payload reaches the decoders.
            int at = rnd.Next(b.Count - 2);
            switch (rnd.Next(7))
            {
                case 0: b[at] ^= (byte)(1 << rnd.Next(8)); break;
                case 1: b[at] = (byte)rnd.Next(256); break;
                case 2: b.Insert(at, (byte)rnd.Next(256)); break;
                case 3: b.RemoveAt(at); break;
                case 4: b.RemoveRange(at, Math.Min(b.Count - 2 - at, 1 + rnd.Next(16))); break;
                case 5: b[at] = (byte)(0x80 | rnd.Next(2)); break; // a 32/64-bit length marker
                default: b[at] = rnd.Next(2) == 0 ? (byte)0xFF : (byte)0x00; break;
            }
        }
        return b.ToArray();
    }
}
