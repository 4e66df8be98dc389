// RespReplyScanner: counts of replies, errors and nulls on a stream of every RESP2/RESP3 reply type, fed whole,
// split at every byte position, and byte by byte; cross-checked against the allocating RespReplyParser.
using System.Text;

namespace Garnet.client.test;

[TestFixture]
public class RespReplyScannerTests
{
    // (reply bytes, is or contains an error, is a top-level null, is a push rather than a reply)
    private static readonly (string Text, bool Error, bool Null, bool Push)[] Replies =
    [
        ("+OK\r\n", false, false, false),
        ("-ERR unknown command 'zadd', with args beginning with: \r\n", true, false, false),
        (":1234\r\n", false, false, false),
        (":-7\r\n", false, false, false),
        ("$5\r\nhello\r\n", false, false, false),
        ("$0\r\n\r\n", false, false, false),
        ("$-1\r\n", false, true, false),
        ("$12\r\nwith\r\ninside\r\n", false, false, false),
        ("*0\r\n", false, false, false),
        ("*-1\r\n", false, true, false),
        ("*3\r\n$3\r\nfoo\r\n$-1\r\n:42\r\n", false, false, false),
        ("*2\r\n*2\r\n+a\r\n*1\r\n*0\r\n$1\r\nb\r\n", false, false, false),
        ("*3\r\n+QUEUED\r\n-WRONGTYPE Operation against a key\r\n:1\r\n", true, false, false),
        ("*1\r\n*1\r\n*1\r\n!5\r\nERR x\r\n", true, false, false),
        ("%2\r\n+k1\r\n:1\r\n+k2\r\n*2\r\n#t\r\n#f\r\n", false, false, false),
        ("~3\r\n,3.14\r\n,inf\r\n(3492890328409238509324850943850943825024385\r\n", false, false, false),
        ("_\r\n", false, true, false),
        ("#t\r\n", false, false, false),
        ("=15\r\ntxt:Some string\r\n", false, false, false),
        ("!21\r\nSYNTAX invalid syntax\r\n", true, false, false),
        (">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$5\r\nhello\r\n", false, false, true),
        ("|1\r\n+key-popularity\r\n%1\r\n$1\r\na\r\n,0.19\r\n$3\r\nval\r\n", false, false, false),
        ("*2\r\n|1\r\n+ttl\r\n:3600\r\n+x\r\n:2\r\n", false, false, false),
        ("|0\r\n:5\r\n", false, false, false),
        ("%0\r\n", false, false, false),
        ("*2\r\n>1\r\n+nested push is a value\r\n_\r\n", false, false, false),
    ];

    private static byte[] Stream => Encoding.UTF8.GetBytes(string.Concat(Replies.Select(r => r.Text)));
    private static long ExpectedReplies => Replies.Count(r => !r.Push);
    private static long ExpectedErrors => Replies.Count(r => r.Error);
    private static long ExpectedNulls => Replies.Count(r => r.Null);
    private static long ExpectedPushes => Replies.Count(r => r.Push);

    private static void AssertCounts(RespReplyScanner s)
    {
        Assert.That(s.Replies, Is.EqualTo(ExpectedReplies), "replies");
        Assert.That(s.ErrorReplies, Is.EqualTo(ExpectedErrors), "error replies");
        Assert.That(s.NullReplies, Is.EqualTo(ExpectedNulls), "null replies");
        Assert.That(s.Pushes, Is.EqualTo(ExpectedPushes), "pushes");
        Assert.That(s.AtReplyBoundary);
    }

    /// <summary>Feeds the chunks like a client's receive buffer: unconsumed bytes are kept and prefixed to the next chunk.</summary>
    private static RespReplyScanner Feed(IEnumerable<byte[]> chunks)
    {
        var s = new RespReplyScanner();
        var pending = new List<byte>();
        foreach (var chunk in chunks)
        {
            pending.AddRange(chunk);
            var data = pending.ToArray();
            int used = s.Scan(data);
            Assert.That(used, Is.InRange(0, data.Length));
            pending.RemoveRange(0, used);
            // Whatever is left must be an unfinished line: no CRLF in it.
            Assert.That(Encoding.ASCII.GetString(pending.ToArray()), Does.Not.Contain("\r\n"));
        }
        Assert.That(pending, Is.Empty, "bytes left over at the end");
        return s;
    }

    [Test]
    public void WholeStream()
    {
        var s = new RespReplyScanner();
        Assert.That(s.Scan(Stream), Is.EqualTo(Stream.Length));
        AssertCounts(s);
        Assert.That(s.FirstError, Is.EqualTo("ERR unknown command 'zadd', with args beginning with: "));
    }

    [Test]
    public void SplitAtEveryBytePosition()
    {
        var bytes = Stream;
        for (int split = 0; split <= bytes.Length; split++)
        {
            var s = Feed([bytes[..split], bytes[split..]]);
            AssertCounts(s);
            Assert.That(s.FirstError, Does.StartWith("ERR unknown command"), $"split at {split}");
        }
    }

    [Test]
    public void SplitAtEveryPairOfPositionsInOneReplyOfEachKind()
    {
        // Three chunks: every (i, j) split of each single reply.
        foreach (var r in Replies)
        {
            var bytes = Encoding.UTF8.GetBytes(r.Text);
            for (int i = 0; i <= bytes.Length; i++)
                for (int j = i; j <= bytes.Length; j++)
                {
                    var s = Feed([bytes[..i], bytes[i..j], bytes[j..]]);
                    Assert.That(s.Replies + s.Pushes, Is.EqualTo(1), r.Text);
                    Assert.That(s.ErrorReplies, Is.EqualTo(r.Error ? 1 : 0), r.Text);
                    Assert.That(s.NullReplies, Is.EqualTo(r.Null ? 1 : 0), r.Text);
                }
        }
    }

    [Test]
    public void ByteByByte()
    {
        AssertCounts(Feed(Stream.Select(b => new[] { b })));
    }

    [Test]
    public void AgreesWithTheAllocatingParser()
    {
        // Every RESP2 reply and the RESP3 ones the parser knows (not attributes): same reply count and error status.
        foreach (var r in Replies.Where(r => !r.Text.Contains('|')))
        {
            var bytes = Encoding.UTF8.GetBytes(r.Text);
            Assert.That(RespReplyParser.TryParse(bytes, out var value, out int consumed), Is.True, r.Text);
            Assert.That(consumed, Is.EqualTo(bytes.Length));
            var s = new RespReplyScanner();
            Assert.That(s.Scan(bytes), Is.EqualTo(bytes.Length));
            Assert.That(s.ErrorReplies == 1, Is.EqualTo(ContainsError(value!)), r.Text);
            Assert.That(s.NullReplies == 1, Is.EqualTo(value!.IsNull), r.Text);
        }
    }

    private static bool ContainsError(RespValue v) => v.IsError || (v.Elements?.Any(ContainsError) ?? false);

    [Test]
    public void MaxRepliesStopsAfterThatMany()
    {
        var bytes = Encoding.ASCII.GetBytes("+a\r\n-ERR b\r\n:3\r\n");
        var s = new RespReplyScanner();
        int used = s.Scan(bytes, 1);
        Assert.That(used, Is.EqualTo(4));
        Assert.That(s.Replies, Is.EqualTo(1));
        Assert.That(s.LastReplyWasError, Is.False);
        used += s.Scan(bytes.AsSpan(used), 1);
        Assert.That(s.Replies, Is.EqualTo(2));
        Assert.That(s.LastReplyWasError, Is.True);
        used += s.Scan(bytes.AsSpan(used), 5);
        Assert.That(used, Is.EqualTo(bytes.Length));
        Assert.That(s.Replies, Is.EqualTo(3));
        Assert.That(s.ErrorReplies, Is.EqualTo(1));
    }

    [Test]
    public void BulkErrorTextIsCapturedAcrossChunks()
    {
        var bytes = Encoding.ASCII.GetBytes("+OK\r\n!21\r\nSYNTAX invalid syntax\r\n-ERR later\r\n");
        for (int split = 0; split <= bytes.Length; split++)
        {
            var s = Feed([bytes[..split], bytes[split..]]);
            Assert.That(s.FirstError, Is.EqualTo("SYNTAX invalid syntax"), $"split at {split}");
            Assert.That(s.ErrorReplies, Is.EqualTo(2));
        }
    }

    [Test]
    public void LargeBulkIsSkippedWithoutBuffering()
    {
        // 1 MB value fed in 1000-byte chunks: nothing but a header line is ever left unconsumed.
        var value = new byte[1 << 20];
        Array.Fill(value, (byte)'x');
        var bytes = Encoding.ASCII.GetBytes($"${value.Length}\r\n").Concat(value).Concat("\r\n:1\r\n"u8.ToArray()).ToArray();
        var chunks = bytes.Chunk(1000).ToList();
        var s = Feed(chunks);
        Assert.That(s.Replies, Is.EqualTo(2));
    }

    [Test]
    public void DeepNestingGrowsThenIsRefused()
    {
        var s = new RespReplyScanner();
        string deep = string.Concat(Enumerable.Repeat("*1\r\n", 100)) + ":1\r\n";
        s.Scan(Encoding.ASCII.GetBytes(deep));
        Assert.That(s.Replies, Is.EqualTo(1));
        string tooDeep = string.Concat(Enumerable.Repeat("*1\r\n", RespReplyScanner.MaxDepth + 1)) + ":1\r\n";
        Assert.Throws<FormatException>(() => new RespReplyScanner().Scan(Encoding.ASCII.GetBytes(tooDeep)));
    }

    [TestCase("?what\r\n")]
    [TestCase("$3\r\nabcd\r\n")]
    [TestCase("$3\r\nabc\n\r")]
    [TestCase("$x\r\n")]
    [TestCase("*1a\r\n")]
    [TestCase("+OK\rX")]
    public void MalformedRepliesThrow(string text)
    {
        Assert.Throws<FormatException>(() => new RespReplyScanner().Scan(Encoding.ASCII.GetBytes(text)));
    }

    [Test]
    public void UnfinishedLineIsLeftForTheNextCall()
    {
        var s = new RespReplyScanner();
        Assert.That(s.Scan("+OK\r\n$12"u8), Is.EqualTo(5));
        Assert.That(s.Scan("$12\r"u8), Is.EqualTo(0));
        Assert.That(s.Scan("$12\r\nhello"u8), Is.EqualTo(10));
        Assert.That(s.AtReplyBoundary, Is.False);
        Assert.That(s.Scan(" world!\r\n"u8), Is.EqualTo(9));
        Assert.That(s.Replies, Is.EqualTo(2));
        Assert.That(s.AtReplyBoundary);
    }
}
