// StoreSession.ReadInMemory (the plain GET's read): it answers only a live, unexpired byte record in memory, finds it
// by the client key's hash and its 2-byte prefix without a stored key being built, and declines (nothing done) every
// case the full Read treats otherwise.
using System.Buffers.Binary;
using System.Text;
using Garnet.storage.Store;
using Garnet.storage.Util;

namespace Garnet.storage.test;

[TestFixture]
public class ReadInMemoryTests
{
    private sealed class Seen { public byte[]? Value; public int Calls; }

    private readonly struct CopyReader(Seen seen, bool accept) : IRecordReader
    {
        public bool TryRead(ref RecordRef record)
        {
            seen.Calls++;
            if (!accept) return false;
            seen.Value = record.Value.ToArray();
            return true;
        }
    }

    private static byte[] Stored(ushort prefix, string key)
    {
        var k = Encoding.ASCII.GetBytes(key);
        var s = new byte[k.Length + 2];
        BinaryPrimitives.WriteUInt16BigEndian(s, prefix);
        k.CopyTo(s, 2);
        return s;
    }

    private static InMemoryRead Read<TF>(StoreSession<TestInput, TestOutput, TF> s, ushort prefix, string key, Seen seen, bool accept = true)
        where TF : struct, IStoreFunctions<TestInput, TestOutput>
    {
        var k = Encoding.ASCII.GetBytes(key);
        var reader = new CopyReader(seen, accept);
        s.HoldEpoch();
        try { return s.ReadInMemory(prefix, k, KeyHash.HashKey(k), ref reader); }
        finally { s.LeaveHeldEpoch(); }
    }

    [Test]
    public void AnswersLiveRecordsAndDeclinesWhatReadTreatsOtherwise()
    {
        var dir = Directory.CreateTempSubdirectory("garnet-rim-").FullName;
        long now = 1_000_000;
        try
        {
            using var store = new KVStore(new KVStoreSettings { Directory = dir, PageBits = 14, SegmentBits = 16, MemoryBytes = 16 << 14, IndexBuckets = 256, Clock = () => now, ObjectSerializer = new TestListSerializer() });
            using var s = store.NewSession<TestInput, TestOutput, TestFunctions>(new TestFunctions(new CompletionLog()));
            var seen = new Seen();

            s.Upsert(Stored(3, "plain"), "value"u8);
            Assert.That(Read(s, 3, "plain", seen), Is.EqualTo(InMemoryRead.Found));
            Assert.That(Encoding.ASCII.GetString(seen.Value!), Is.EqualTo("value"));
            Assert.That(Read(s, 4, "plain", seen = new()), Is.EqualTo(InMemoryRead.NotFound), "the same name under another prefix");
            Assert.That(Read(s, 3, "plainer", seen), Is.EqualTo(InMemoryRead.NotFound));
            Assert.That(Read(s, 3, "plain", seen, accept: false), Is.EqualTo(InMemoryRead.Declined), "the reader declined");
            Assert.That(seen.Calls, Is.EqualTo(1), "the reader ran only for the live record");

            s.Delete(Stored(3, "plain"));
            Assert.That(Read(s, 3, "plain", seen = new()), Is.EqualTo(InMemoryRead.NotFound), "a tombstone");
            Assert.That(seen.Calls, Is.Zero);

            s.Upsert(Stored(3, "ttl"), "soon"u8, expiration: now + 100);
            Assert.That(Read(s, 3, "ttl", seen = new()), Is.EqualTo(InMemoryRead.Found));
            now += 1000;
            Assert.That(Read(s, 3, "ttl", seen = new()), Is.EqualTo(InMemoryRead.Declined), "expired: Read reports it for deletion");
            Assert.That(seen.Calls, Is.Zero);

            s.Upsert(Stored(3, "object"), new TestList());
            Assert.That(Read(s, 3, "object", seen = new()), Is.EqualTo(InMemoryRead.Declined), "an object record");

            var k = Encoding.ASCII.GetBytes("plain");
            var reader = new CopyReader(new Seen(), true);
            Assert.Throws<InvalidOperationException>(() => s.ReadInMemory(3, k, KeyHash.HashKey(k), ref reader), "without HoldEpoch");

            // An old record: first in the read-only part of memory, then on disk. Read copies the first to the tail and
            // reads the second from the device; ReadInMemory declines both.
            s.Upsert(Stored(3, "old"), "aging"u8);
            long oldAddress = store.Log.TailAddress;
            while (store.Log.SafeReadOnlyAddress <= oldAddress) s.Upsert(Stored(3, "fill" + store.Log.TailAddress), new byte[900]);
            Assert.That(store.Log.HeadAddress, Is.LessThanOrEqualTo(oldAddress), "still in memory");
            Assert.That(Read(s, 3, "old", seen = new()), Is.EqualTo(InMemoryRead.Declined), "read-only, in the oldest quarter of memory");
            for (int i = 0; store.Log.HeadAddress <= oldAddress; i++) s.Upsert(Stored(3, "more" + i), new byte[900]);
            Assert.That(s.CompletePending(wait: true), Is.True);
            Assert.That(Read(s, 3, "old", seen = new()), Is.EqualTo(InMemoryRead.Declined), "on disk");
            Assert.That(seen.Calls, Is.Zero);
        }
        finally { Directory.Delete(dir, recursive: true); }
    }
}
