using System.Text;
using Garnet.storage.Index;
using Garnet.storage.Util;

namespace Garnet.storage.test;

[TestFixture]
public class HashIndexTests
{
    [Test]
    public void HashIsStableSeededAndSpreads()
    {
        var a = Encoding.ASCII.GetBytes("key:000000000001");
        Assert.That(KeyHash.Hash(a), Is.EqualTo(KeyHash.Hash(a)));
        Assert.That(KeyHash.Hash(a, 1), Is.Not.EqualTo(KeyHash.Hash(a, 2)));
        Assert.That(KeyHash.Hash("a"u8), Is.Not.EqualTo(KeyHash.Hash("a\0"u8)), "length is part of the hash");

        // Sequential keys spread evenly over 1024 buckets: no bucket gets more than twice its share.
        var counts = new int[1024];
        for (int i = 0; i < 200_000; i++) counts[KeyHash.Hash(Encoding.ASCII.GetBytes("key:" + i)) & 1023]++;
        Assert.That(counts.Max(), Is.LessThan(2 * 200_000 / 1024));
        Assert.That(counts.Min(), Is.GreaterThan(200_000 / 1024 / 2));
    }

    /// <summary>Random keys of every length from 0 to 40 (each way of storing and loading the last 0-7 bytes).</summary>
    private static IEnumerable<byte[]> KeysOfEveryLengthUpTo40(int seed)
    {
        var rng = new Random(seed);
        for (int length = 0; length <= 40; length++)
        {
            var key = new byte[length];
            rng.NextBytes(key);
            yield return key;
        }
    }

    [Test]
    public void WritePrefixedLaysOutThePrefixThenTheKeyAndTheStoredHashDerivesFromTheKeys()
    {
        // Every key length up to 40 (each way of storing and loading the last 0-7 bytes), over a dirty buffer: the result
        // is the prefix big-endian then the key, as a byte-wise copy gives, nothing is written past it, and the stored
        // key's hash is Prefixed(HashKey(key), prefix), which is what lets a GET hash the client's key once.
        var rng = new Random(7);
        foreach (var key in KeysOfEveryLengthUpTo40(seed: 8))
        {
            int length = key.Length;
            ushort prefix = (ushort)rng.Next(0, 65536);
            var expected = new byte[length + 2];
            expected[0] = (byte)(prefix >> 8);
            expected[1] = (byte)prefix;
            key.CopyTo(expected, 2);

            int room = KeyHash.PrefixedRoom(length);
            var dest = Enumerable.Repeat((byte)0xEE, room + 8).ToArray();
            int written = KeyHash.WritePrefixed(dest, prefix, key);
            Assert.That(written, Is.EqualTo(length + 2));
            Assert.That(room, Is.EqualTo(written));
            Assert.That(dest.AsSpan(0, written).ToArray(), Is.EqualTo(expected), $"key of {length} bytes");
            Assert.That(dest.AsSpan(written).ToArray(), Is.All.EqualTo((byte)0xEE), "nothing is written past the key");
            Assert.That(KeyHash.Hash(dest.AsSpan(0, written)), Is.EqualTo(KeyHash.Hash(expected)));
            Assert.That(KeyHash.Hash(expected), Is.EqualTo(KeyHash.Prefixed(KeyHash.HashKey(key), prefix)));
        }
    }

    [Test]
    public void KeyHashSeesEveryByteOfTheKeyAndTheDatabasePrefix()
    {
        // A change of any one byte of a key of any length up to 40, or of its length, or of the prefix, changes the hash
        // (each of the loads of the last 0-7 bytes covers its bytes).
        foreach (var key in KeysOfEveryLengthUpTo40(seed: 11))
        {
            int length = key.Length;
            ulong h = KeyHash.HashKey(key);
            for (int i = 0; i < length; i++)
            {
                var changed = (byte[])key.Clone();
                changed[i] ^= 0x01;
                Assert.That(KeyHash.HashKey(changed), Is.Not.EqualTo(h), $"byte {i} of {length}");
            }
            Assert.That(KeyHash.HashKey(key.Concat(new byte[] { 0 }).ToArray()), Is.Not.EqualTo(h), $"a zero byte after {length}");
            Assert.That(KeyHash.Prefixed(h, 0), Is.Not.EqualTo(KeyHash.Prefixed(h, 1)), "the database prefix");
        }
        // Keys that differ only in their database spread over buckets independently.
        var counts = new int[1024];
        for (uint db = 0; db < 200; db++)
            for (int i = 0; i < 1000; i++) counts[KeyHash.Prefixed(KeyHash.HashKey(Encoding.ASCII.GetBytes("key:" + i)), db) & 1023]++;
        Assert.That(counts.Max(), Is.LessThan(2 * 200_000 / 1024));
        Assert.That(counts.Min(), Is.GreaterThan(200_000 / 1024 / 2));
    }

    [Test]
    public void FindOrCreateThenUpdate()
    {
        using var index = new HashIndex(16);
        ulong h = KeyHash.Hash("k1"u8);
        Assert.That(index.TryFind(h, out _, out _), Is.False);
        var slot = index.FindOrCreate(h, out long addr);
        Assert.That(addr, Is.EqualTo(0));
        ushort tag = HashIndex.TagOf(h);
        Assert.That(HashIndex.TryUpdate(slot, tag, 0, 4096), Is.True);
        Assert.That(HashIndex.TryUpdate(slot, tag, 0, 8192), Is.False, "CAS fails when the expected address is stale");
        Assert.That(index.TryFind(h, out var again, out addr), Is.True);
        Assert.That(addr, Is.EqualTo(4096));
        Assert.That(again.Address, Is.EqualTo(4096));
        Assert.That(index.FindOrCreate(h, out addr).Address, Is.EqualTo(4096));
    }

    [Test]
    public void OverflowChainsHoldManyTagsInOneBucket()
    {
        using var index = new HashIndex(1);
        var hashes = Enumerable.Range(0, 5000).Select(i => KeyHash.Hash(Encoding.ASCII.GetBytes("k" + i))).ToList();
        var distinctTags = hashes.GroupBy(HashIndex.TagOf).Select(g => g.First()).ToList();
        long next = 64;
        var expected = new Dictionary<ushort, long>();
        foreach (var h in distinctTags)
        {
            var slot = index.FindOrCreate(h, out _);
            Assert.That(HashIndex.TryUpdate(slot, HashIndex.TagOf(h), 0, next), Is.True);
            expected[HashIndex.TagOf(h)] = next;
            next += 64;
        }
        Assert.That(index.OverflowBucketCount, Is.GreaterThan(distinctTags.Count / HashIndex.EntriesPerBucket - 2));
        foreach (var h in distinctTags)
        {
            Assert.That(index.TryFind(h, out _, out long a), Is.True);
            Assert.That(a, Is.EqualTo(expected[HashIndex.TagOf(h)]));
        }
        var seen = new List<long>();
        index.ForEachAddress(seen.Add);
        Assert.That(seen, Is.EquivalentTo(expected.Values));
    }

    [Test]
    public void ConcurrentCreatesNeverDuplicateATag()
    {
        using var index = new HashIndex(64);
        var hashes = Enumerable.Range(0, 3000).Select(i => KeyHash.Hash(Encoding.ASCII.GetBytes("c" + i))).ToArray();
        long nextAddress = 0;
        var threads = Enumerable.Range(0, 4).Select(t => new Thread(() =>
        {
            var order = hashes.OrderBy(_ => Random.Shared.Next()).ToArray();
            foreach (var h in order)
            {
                var slot = index.FindOrCreate(h, out long current);
                if (current == 0)
                    HashIndex.TryUpdate(slot, HashIndex.TagOf(h), 0, Interlocked.Add(ref nextAddress, 64));
            }
        })).ToList();
        threads.ForEach(t => t.Start());
        threads.ForEach(t => t.Join());

        // One entry per (bucket, tag): count the distinct pairs we expect and the entries the index holds.
        long expectedEntries = hashes.Select(h => (h & 63, HashIndex.TagOf(h))).Distinct().Count();
        var addresses = new List<long>();
        index.ForEachAddress(addresses.Add);
        Assert.That(addresses.Count, Is.EqualTo(expectedEntries));
        Assert.That(addresses.Distinct().Count(), Is.EqualTo(addresses.Count));
        foreach (var h in hashes) Assert.That(index.TryFind(h, out _, out long a) && a != 0);
    }
}

[TestFixture]
public class HashIndexTagZeroTests
{
    [Test]
    public void ConcurrentCreatesOfTagZeroNeverDuplicate()
    {
        // Hashes whose tag is 0: an entry for them with address 0 must still not look like a free word.
        var zeroTag = new List<ulong>();
        for (int i = 0; zeroTag.Count < 64; i++)
        {
            ulong h = Garnet.storage.Util.KeyHash.Hash(System.Text.Encoding.ASCII.GetBytes("z" + i));
            if (Garnet.storage.Index.HashIndex.TagOf(h) == 0) zeroTag.Add(h);
        }
        for (int round = 0; round < 50; round++)
        {
            using var index = new Garnet.storage.Index.HashIndex(4);
            var slots = new System.Collections.Concurrent.ConcurrentBag<long>();
            var threads = Enumerable.Range(0, 4).Select(n => new Thread(() =>
            {
                foreach (var h in zeroTag)
                {
                    var slot = index.FindOrCreate(h, out _);
                    Garnet.storage.Index.HashIndex.TryUpdate(slot, 0, 0, 64 + (long)(h & 0xFFFF) * 64);
                }
            })).ToList();
            threads.ForEach(t => t.Start());
            threads.ForEach(t => t.Join());
            var addresses = new List<long>();
            index.ForEachAddress(addresses.Add);
            // One entry per bucket for tag 0 (4 buckets).
            long buckets = zeroTag.Select(h => h & 3).Distinct().Count();
            Assert.That(addresses.Count, Is.EqualTo(buckets));
        }
    }
}
