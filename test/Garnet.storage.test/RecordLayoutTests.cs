using Garnet.storage.Log;

namespace Garnet.storage.test;

/// <summary>The record formats (compact and long): sizes, and that every field reads back what was written, with and
/// without an expiration, in both formats.</summary>
[TestFixture]
public unsafe class RecordLayoutTests
{
    [TestCase(0, 0, false, 24)]    // compact: 14 bytes before the key, but never smaller than HeaderSize
    [TestCase(4, 0, false, 24)]
    [TestCase(10, 0, false, 24)]
    [TestCase(11, 0, false, 32)]
    [TestCase(18, 32, false, 64)]  // a 16-byte client key with its 2-byte database prefix, 32-byte value
    [TestCase(19, 32, false, 72)]
    [TestCase(18, 32, true, 80)]   // compact with an expiration: the key at 24; 24 + 18 = 42
    [TestCase(20, 33, true, 88)]
    [TestCase(127, 511, false, 656)] // the largest compact shape: Align8(14 + 127) + Align8(511)
    [TestCase(128, 0, false, 152)] // long: 21 + 128
    [TestCase(18, 512, false, 552)] // long: Align8(21 + 18) + 512
    [TestCase(18, 512, true, 560)] // long with an expiration: 29 + 18
    public void SizeIsTheFixedFieldsAndKeyRoundedUpPlusTheValueRoundedUp(int key, int value, bool expiration, int size) =>
        Assert.That(RecordLayout.Size(key, value, expiration), Is.EqualTo(size));

    [Test]
    public void FieldsReadBackInBothFormatsWithAndWithoutExpiration()
    {
        int[] keyLengths = [0, 1, 2, 3, 7, 13, 18, 20, 126, 127, 128, 130];
        int[] valueLengths = [0, 13, 511, 512, 700];
        foreach (long expiration in new[] { 0L, 1_700_000_000_123L })
            foreach (int keyLength in keyLengths)
                foreach (int valueLength in valueLengths)
                {
                    var key = new byte[keyLength];
                    for (int i = 0; i < keyLength; i++) key[i] = (byte)(0xA0 + i);
                    int size = RecordLayout.Size(keyLength, valueLength, expiration != 0);
                    var buffer = new byte[size + 8];
                    Array.Fill(buffer, (byte)0xEE);
                    fixed (byte* r = buffer)
                    {
                        RecordLayout.Initialize(r, 12345, key, valueLength, expiration, 0);
                        string where = $"key {keyLength}, value {valueLength}, expiration {expiration}";
                        bool compact = keyLength <= 127 && valueLength <= 511;
                        Assert.That(RecordLayout.IsCompact(r), Is.EqualTo(compact), where);
                        byte* value = RecordLayout.ValuePointer(r);
                        Assert.That((long)(value - r) % 8, Is.EqualTo(0), "the value is 8-aligned");
                        for (int i = 0; i < valueLength; i++) value[i] = (byte)i;

                        Assert.That(RecordLayout.TotalSize(r), Is.EqualTo(size), where);
                        Assert.That(RecordLayout.Key(r).ToArray(), Is.EqualTo(key), where);
                        Assert.That(RecordLayout.ValueLength(r), Is.EqualTo(valueLength), where);
                        Assert.That(RecordLayout.Expiration(r), Is.EqualTo(expiration), where);
                        Assert.That(RecordLayout.ObjectKind(r), Is.EqualTo(0), where);
                        Assert.That(RecordLayout.AccessTime(r), Is.EqualTo(AccessClock.NowSeconds).Within(2), where);
                        Assert.That(RecordInfo.PreviousAddress(RecordLayout.Info(r)), Is.EqualTo(12345), where);

                        // The fields written after publication (kind, access time, expiration, length) leave the key and
                        // value as they were.
                        uint idle = AccessClock.NowSeconds - 100_000;
                        RecordLayout.SetObjectKind(r, 0xA);
                        RecordLayout.SetAccessTime(r, idle);
                        if (expiration != 0) RecordLayout.SetExpiration(r, expiration + 1);
                        int shorter = Math.Max(0, valueLength - 9);
                        Assert.That(RecordLayout.TrySetValueLength(r, shorter), Is.True, where);
                        Assert.That(RecordLayout.ObjectKind(r), Is.EqualTo(0xA), where);
                        Assert.That(RecordLayout.AccessTime(r), Is.EqualTo(idle), where);
                        Assert.That(RecordLayout.Key(r).ToArray(), Is.EqualTo(key), where);
                        Assert.That(RecordLayout.ValueLength(r), Is.EqualTo(shorter), where);
                        Assert.That(RecordLayout.Value(r).ToArray(), Is.EqualTo(Enumerable.Range(0, shorter).Select(i => (byte)i).ToArray()), where);
                        Assert.That(RecordLayout.Expiration(r), Is.EqualTo(expiration == 0 ? 0 : expiration + 1), where);
                        RecordLayout.Touch(r);
                        Assert.That(RecordLayout.AccessTime(r), Is.EqualTo(AccessClock.NowSeconds).Within(2), where);
                        Assert.That(RecordLayout.Key(r).ToArray(), Is.EqualTo(key), "a touch keeps the key's bytes in the header word");
                        Assert.That(RecordLayout.ObjectKind(r), Is.EqualTo(0xA), where);
                        Assert.That(RecordLayout.TotalSize(r), Is.EqualTo(size), "an in-place length change keeps the size");
                        Assert.That(buffer[size], Is.EqualTo(0xEE), "nothing is written past the record");
                    }
                }
    }

    [Test]
    public void ACompactRecordNeverHoldsMoreThanItsValueFieldCanSay()
    {
        int size = RecordLayout.Size(18, 504, false); // compact, capacity 504
        var buffer = new byte[size + 56];
        fixed (byte* r = buffer)
        {
            RecordLayout.Initialize(r, 0, new byte[18], 504, 0, RecordInfo.Invalid);
            Assert.That(RecordLayout.IsCompact(r), Is.True);
            Assert.That(RecordLayout.CanHoldValue(r, 504), Is.True);
            Assert.That(RecordLayout.CanHoldValue(r, 505), Is.False, "beyond the capacity");
            // Reused space with slack: capacity 560, but the compact value field stops at 511.
            RecordLayout.InitializeReused(r, size + 56, new byte[18], 504, 0);
            Assert.That(RecordLayout.TotalSize(r), Is.EqualTo(size + 56));
            Assert.That(RecordLayout.ValueCapacity(r), Is.EqualTo(511));
            Assert.That(RecordLayout.CanHoldValue(r, 511), Is.True);
            Assert.That(RecordLayout.CanHoldValue(r, 512), Is.False);
            Assert.That(RecordLayout.TrySetValueLength(r, 512), Is.False);
            Assert.That(RecordLayout.TrySetValueLength(r, 511), Is.True);
            Assert.That(RecordLayout.ValueLength(r), Is.EqualTo(511));
            Assert.That(RecordLayout.TotalSize(r), Is.EqualTo(size + 56));
        }
    }

    [Test]
    public void AccessTimeStoresAndLengthOrKindChangesOnOneCompactWordLoseNothing()
    {
        // The access time is stored without the record's lock, in the same word as the lengths and the kind: each writer
        // must keep what the other wrote (a plain read-modify-write would put back a stale length or access time).
        var buffer = new byte[RecordLayout.Size(18, 40, false)];
        var key = Enumerable.Range(1, 18).Select(i => (byte)i).ToArray();
        fixed (byte* r = buffer) RecordLayout.Initialize(r, 0, key, 40, 0, 0);
        var handle = System.Runtime.InteropServices.GCHandle.Alloc(buffer, System.Runtime.InteropServices.GCHandleType.Pinned);
        try
        {
            nint at = handle.AddrOfPinnedObject();
            string? failure = null;
            const int Rounds = 300_000;
            var toucher = new Thread(() =>
            {
                byte* r = (byte*)at;
                uint now = AccessClock.NowSeconds;
                for (int i = 0; i < Rounds && failure is null; i++)
                {
                    uint t = now - (uint)(i % 1000);
                    RecordLayout.SetAccessTime(r, t);
                    if (RecordLayout.AccessTime(r) != t) failure = $"access time {RecordLayout.AccessTime(r)} after storing {t}";
                }
            });
            var writer = new Thread(() =>
            {
                byte* r = (byte*)at;
                for (int i = 0; i < Rounds && failure is null; i++)
                {
                    int length = (i & 1) == 0 ? 8 : 40;
                    byte kind = (byte)(i % 16);
                    if (!RecordLayout.TrySetValueLength(r, length)) failure = $"length {length} refused";
                    RecordLayout.SetObjectKind(r, kind);
                    if (RecordLayout.ValueLength(r) != length) failure = $"length {RecordLayout.ValueLength(r)} after setting {length}";
                    if (RecordLayout.ObjectKind(r) != kind) failure = $"kind {RecordLayout.ObjectKind(r)} after setting {kind}";
                }
            });
            toucher.Start(); writer.Start();
            toucher.Join(); writer.Join();
            Assert.That(failure, Is.Null);
            byte* rec = (byte*)at;
            Assert.That(RecordLayout.Key(rec).ToArray(), Is.EqualTo(key));
            Assert.That(RecordLayout.TotalSize(rec), Is.EqualTo(buffer.Length));
        }
        finally { handle.Free(); }
    }

    [Test]
    public void KindTagsAbove15AreRefused()
    {
        var buffer = new byte[RecordLayout.Size(4, 8, false)];
        fixed (byte* r = buffer)
        {
            RecordLayout.Initialize(r, 0, new byte[4], 8, 0, 0);
            nint at = (nint)r;
            Assert.Throws<ArgumentOutOfRangeException>(() => RecordLayout.SetObjectKind((byte*)at, 16));
            RecordLayout.SetObjectKind(r, 15);
            Assert.That(RecordLayout.ObjectKind(r), Is.EqualTo(15));
        }
    }

    [TestCase(20, 40, 5, 24)]    // compact into compact
    [TestCase(200, 40, 5, 24)]   // long into compact: the format follows the new lengths
    [TestCase(20, 560, 20, 520)] // long into long
    public void ReusedSpaceTakesAShorterKeyAndKeepsItsSize(int oldKey, int oldValue, int newKey, int newValue)
    {
        int size = RecordLayout.Size(oldKey, oldValue, false);
        var buffer = new byte[size];
        fixed (byte* r = buffer)
        {
            RecordLayout.Initialize(r, 0, new byte[oldKey], oldValue, 0, RecordInfo.Invalid);
            var key = Enumerable.Range(1, newKey).Select(i => (byte)i).ToArray();
            int newSize = RecordLayout.Size(newKey, newValue, false);
            nint at = (nint)r;
            if (size - newSize > 56) { Assert.Throws<InvalidOperationException>(() => RecordLayout.InitializeReused((byte*)at, size, key, newValue, 0)); return; }
            RecordLayout.InitializeReused(r, size, key, newValue, 0);
            Assert.That(RecordLayout.IsCompact(r), Is.EqualTo(newKey <= 127 && newValue <= 511));
            Assert.That(RecordLayout.TotalSize(r), Is.EqualTo(size));
            Assert.That(RecordLayout.Key(r).ToArray(), Is.EqualTo(key));
            Assert.That(RecordLayout.ValueLength(r), Is.EqualTo(newValue));
            Assert.That(RecordLayout.ObjectKind(r), Is.EqualTo(0));
        }
    }
}
