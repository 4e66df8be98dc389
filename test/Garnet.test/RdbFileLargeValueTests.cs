using Garnet.server.Persistence;

namespace Garnet.test;

/// <summary>
/// RDB files with values larger than the reader's buffer: the reader streams them into arrays of their own (with
/// headroom for the consumer), skips them when validating, and still checks the CRC over every byte; the writer writes
/// them straight to the file.
/// </summary>
[TestFixture]
public class RdbFileLargeValueTests
{
    private string _path = null!;

    [SetUp]
    public void SetUp() => _path = Path.Combine(Path.GetTempPath(), "garnet-rdb-" + Guid.NewGuid().ToString("N") + ".rdb");

    [TearDown]
    public void TearDown() { try { File.Delete(_path); } catch (IOException) { } }

    private static byte[] Bytes(int length, int seed)
    {
        var b = new byte[length];
        new Random(seed).NextBytes(b);
        return b;
    }

    /// <summary>small, large (3 MB), small, large (5 MB + 7) with an expiration, small.</summary>
    private (string key, byte[] value, long expiration)[] WriteFile()
    {
        var entries = new[]
        {
            ("a", Bytes(10, 1), 0L),
            ("big1", Bytes(3 << 20, 2), 0L),
            ("b", Bytes(1000, 3), 0L),
            ("big2", Bytes((5 << 20) + 7, 4), 4102444800000L),
            ("c", "12345"u8.ToArray(), 0L),
        };
        using var w = new RdbFileWriter(_path);
        foreach (var (k, v, e) in entries) w.WriteString(0, System.Text.Encoding.ASCII.GetBytes(k), v, e);
        w.Finish();
        return entries;
    }

    [Test]
    public void LargeValuesAreReadIntoTheirOwnArraysWithHeadroom()
    {
        var written = WriteFile();
        var bytes = File.ReadAllBytes(_path);
        Assert.That(BitConverter.ToUInt64(bytes, bytes.Length - 8), Is.EqualTo(RdbEncoding.Crc64(0, bytes.AsSpan(0, bytes.Length - 8))),
            "the CRC covers the large values written straight to the file");
        var read = new List<RdbEntry>();
        using (var r = new RdbFileReader(_path) { LargeStringHeadroom = 1 }) r.Read(read.Add);
        Assert.That(read.Select(e => System.Text.Encoding.ASCII.GetString(e.Key)), Is.EqualTo(written.Select(w => w.key)));
        for (int i = 0; i < written.Length; i++)
        {
            Assert.That(read[i].Value.Span.SequenceEqual(written[i].value), $"value of {written[i].key}");
            Assert.That(read[i].ExpirationMs, Is.EqualTo(written[i].expiration));
            bool large = written[i].value.Length > RdbFileReader.LargeString;
            Assert.That(read[i].ValueArrayWithHeadroom(1) is not null, Is.EqualTo(large), $"{written[i].key}: own array with one spare byte in front");
        }
    }

    [Test]
    public void SkipValuesChecksEverythingButKeepsNoValue()
    {
        WriteFile();
        var read = new List<RdbEntry>();
        using (var r = new RdbFileReader(_path) { SkipValues = true }) r.Read(read.Add);
        Assert.That(read.Select(e => System.Text.Encoding.ASCII.GetString(e.Key)), Is.EqualTo(new[] { "a", "big1", "b", "big2", "c" }));
        Assert.That(read.Take(4).All(e => e.Value.IsEmpty), "plain values are not kept");
        Assert.That(read[3].ExpirationMs, Is.EqualTo(4102444800000L));
    }

    [TestCase(false)]
    [TestCase(true)]
    public void ACorruptByteInsideALargeValueFailsTheChecksum(bool skipValues)
    {
        WriteFile();
        var bytes = File.ReadAllBytes(_path);
        int at = bytes.AsSpan().IndexOf("big2"u8) + 4 + 5 + (4 << 20); // deep inside big2's bytes, past any buffer
        bytes[at] ^= 0x55;
        File.WriteAllBytes(_path, bytes);
        using var r = new RdbFileReader(_path) { SkipValues = skipValues, LargeStringHeadroom = 1 };
        var ex = Assert.Throws<InvalidDataException>(() => r.Read(_ => { }));
        Assert.That(ex!.Message, Does.Contain("checksum mismatch"));
    }

    [TestCase(false)]
    [TestCase(true)]
    public void AFileCutInsideALargeValueIsReportedAsTruncated(bool skipValues)
    {
        WriteFile();
        var bytes = File.ReadAllBytes(_path);
        int cut = bytes.AsSpan().IndexOf("big2"u8) + 4 + 5 + (2 << 20);
        File.WriteAllBytes(_path, bytes.AsSpan(0, cut).ToArray());
        using var r = new RdbFileReader(_path) { SkipValues = skipValues };
        var ex = Assert.Throws<InvalidDataException>(() => r.Read(_ => { }));
        Assert.That(ex!.Message, Does.Contain("ends in the middle of an item").And.Contain($"at offset {cut}"));
    }
}
