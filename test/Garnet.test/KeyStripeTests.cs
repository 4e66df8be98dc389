using System.Text;
using Garnet.server.Storage;

namespace Garnet.test;

/// <summary>KeyLocks.StripeOf spreads keys over the stripes (a poor spread makes unrelated keys wait for each other).</summary>
public class KeyStripeTests
{
    [Test]
    public void SequentialKeysOfEveryLengthSpreadOverTheStripes()
    {
        // Keys that differ in one position only, at every length up to 40 (each of KeyHash.HashKey's ways of loading a key, which StripeOf uses):
        // 256 keys per position land on at least 200 distinct stripes of 4096.
        for (int length = 1; length <= 40; length++)
        {
            for (int position = 0; position < length; position++)
            {
                var key = new byte[length];
                Array.Fill(key, (byte)'k');
                var stripes = new HashSet<int>();
                for (int b = 0; b < 256; b++)
                {
                    key[position] = (byte)b;
                    int stripe = KeyLocks.StripeOf(key);
                    Assert.That(stripe, Is.InRange(0, KeyLocks.StripeCount - 1));
                    stripes.Add(stripe);
                }
                Assert.That(stripes.Count, Is.GreaterThan(200), $"length {length}, byte {position}");
            }
        }

        // The usual key shapes: no stripe gets more than three times its share of 200,000 keys.
        var counts = new int[KeyLocks.StripeCount];
        for (int i = 0; i < 200_000; i++) counts[KeyLocks.StripeOf(Encoding.ASCII.GetBytes("key:" + i))]++;
        Assert.That(counts.Max(), Is.LessThan(3 * 200_000 / KeyLocks.StripeCount));
        Assert.That(KeyLocks.StripeOf(ReadOnlySpan<byte>.Empty), Is.InRange(0, KeyLocks.StripeCount - 1));
    }
}
