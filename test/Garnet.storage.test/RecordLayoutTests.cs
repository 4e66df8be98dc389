using Garnet.storage.Log;

namespace Garnet.storage.test;

/// <summary>The record format: sizes, and that every field reads back what was written with and without an expiration.</summary>
[TestFixture]
public unsafe class RecordLayoutTests
{
    [TestCase(0, 0, false, 24)]
    [TestCase(3, 0, false, 24)]    // 21 + 3: the key fills the header's last word
    [TestCase(4, 0, false, 32)]
    [TestCase(18, 32, false, 72)]  // a 16-byte client key with its 2-byte database prefix, 32-byte value
    [TestCase(19, 32, false, 72)]
    [TestCase(20, 32, false, 80)]
    [TestCase(18, 32, true, 80)]   // 29 + 18 = 47
    [TestCase(19, 32, true, 80)]
    [TestCase(20, 33, true, 96)]
    public void SizeIsTheFixedFieldsAndKeyRoundedUpPlusTheValueRoundedUp(int key, int value, bool expiration, int size) =>
        Assert.That(RecordLayout.Size(key, value, expiration), Is.EqualTo(size));

    [Test]
    public void FieldsReadBackForEveryKeyLengthWithAndWithoutExpiration()
    {
        foreach (long expiration in new[] { 0L, 1_700_000_000_123L })
            for (int keyLength = 0; keyLength <= 20; keyLength++)
            {
                var key = new byte[keyLength];
                for (int i = 0; i < keyLength; i++) key[i] = (byte)(0xA0 + i);
                int valueLength = 13;
                int size = RecordLayout.Size(keyLength, valueLength, expiration != 0);
                var buffer = new byte[size + 8];
                Array.Fill(buffer, (byte)0xEE);
                fixed (byte* r = buffer)
                {
                    RecordLayout.Initialize(r, 12345, key, valueLength, expiration, 0);
                    byte* value = RecordLayout.ValuePointer(r);
                    Assert.That((long)(value - r) % 8, Is.EqualTo(0), "the value is 8-aligned");
                    for (int i = 0; i < valueLength; i++) value[i] = (byte)i;

                    string where = $"key {keyLength}, expiration {expiration}";
                    Assert.That(RecordLayout.TotalSize(r), Is.EqualTo(size), where);
                    Assert.That(RecordLayout.Key(r).ToArray(), Is.EqualTo(key), where);
                    Assert.That(RecordLayout.Expiration(r), Is.EqualTo(expiration), where);
                    Assert.That(RecordLayout.ObjectKind(r), Is.EqualTo(0), where);
                    Assert.That(RecordLayout.AccessTime(r), Is.EqualTo(AccessClock.NowSeconds).Within(2), where);
                    Assert.That(RecordInfo.PreviousAddress(RecordLayout.Info(r)), Is.EqualTo(12345), where);

                    // The fields written after publication (kind, access time, expiration, length) leave the key and
                    // value as they were.
                    RecordLayout.SetObjectKind(r, 0x5A);
                    RecordLayout.SetAccessTime(r, 0xFFFF_FFFF);
                    if (expiration != 0) RecordLayout.SetExpiration(r, expiration + 1);
                    Assert.That(RecordLayout.TrySetValueLength(r, 9), Is.True);
                    Assert.That(RecordLayout.ObjectKind(r), Is.EqualTo(0x5A), where);
                    Assert.That(RecordLayout.AccessTime(r), Is.EqualTo(0xFFFF_FFFF), where);
                    Assert.That(RecordLayout.Key(r).ToArray(), Is.EqualTo(key), where);
                    Assert.That(RecordLayout.Value(r).ToArray(), Is.EqualTo(new byte[] { 0, 1, 2, 3, 4, 5, 6, 7, 8 }), where);
                    Assert.That(RecordLayout.Expiration(r), Is.EqualTo(expiration == 0 ? 0 : expiration + 1), where);
                    Assert.That(RecordLayout.TotalSize(r), Is.EqualTo(size), "an in-place length change keeps the size");
                    Assert.That(buffer[size], Is.EqualTo(0xEE), "nothing is written past the record");
                }
            }
    }

    [Test]
    public void ReusedSpaceTakesAShorterKeyAndKeepsItsSize()
    {
        int size = RecordLayout.Size(20, 40, false);
        var buffer = new byte[size];
        fixed (byte* r = buffer)
        {
            RecordLayout.Initialize(r, 0, new byte[20], 40, 0, RecordInfo.Invalid);
            var key = new byte[] { 1, 2, 3, 4, 5 };
            RecordLayout.InitializeReused(r, size, key, 24, 0);
            Assert.That(RecordLayout.TotalSize(r), Is.EqualTo(size));
            Assert.That(RecordLayout.Key(r).ToArray(), Is.EqualTo(key));
            Assert.That(RecordLayout.ValueLength(r), Is.EqualTo(24));
            Assert.That(RecordLayout.ValueCapacity(r), Is.EqualTo(size - RecordLayout.Size(5, 0, false)));
            Assert.That(RecordLayout.ObjectKind(r), Is.EqualTo(0));
        }
    }
}
