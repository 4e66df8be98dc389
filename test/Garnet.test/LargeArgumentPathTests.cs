// The paths that keep large values out of copies (docs/keyspace.md, "Large values"): a large bulk argument grows its
// receive buffer in staged steps (ReceiveBuffer), SET keeps that buffer as its value
// (RespServerSession.TakeLargeArgument), and GET sends a large value from its own array (RespWriter references). Each
// must give the same bytes as the copying paths, on both network engines, whatever comes before or after the request in
// the same receive, and where the reply is read back rather than sent (scripts) or thrown away (CLIENT REPLY).
using System.Text;
using Garnet.client;
using Garnet.common.Resp;

namespace Garnet.test;

[TestFixture("epoll"), TestFixture("sockets")]
public class LargeArgumentPathTests(string engine)
{
    private TestServer _server = null!;

    [OneTimeSetUp]
    public void Start() => _server = new TestServer(o => { o.NetworkEngine = engine; o.NetworkThreads = 1; });

    [OneTimeTearDown]
    public void Stop() => _server.Dispose();

    private static byte[] Pattern(int length, int seed)
    {
        var b = new byte[length];
        new Random(seed).NextBytes(b);
        return b;
    }

    private static byte[] Command(params object[] args) => RespClient.Encode(args);

    [Test]
    public void LargeSetSentInSmallPiecesWithRequestsAroundIt()
    {
        using var c = _server.Client(60_000);
        var big = Pattern(9 << 20, 1); // several staged growths (ReceiveBuffer.MovePiece is 512 KB)
        var wire = Command("SET", "la:before", "b").Concat(Command("SET", "la:big", big)).Concat(Command("GET", "la:before")).ToArray();
        // Slow pieces: many receives, each growth's move spread over them.
        for (int at = 0; at < wire.Length; at += 300_000)
        {
            c.SendRaw(wire.AsSpan(at, Math.Min(300_000, wire.Length - at)));
            if (at / 300_000 % 8 == 0) Thread.Sleep(1);
        }
        Assert.That(c.Read().Text, Is.EqualTo("OK"));
        Assert.That(c.Read().Text, Is.EqualTo("OK"));
        Assert.That(c.Read().Text, Is.EqualTo("b"));
        Assert.That(c.Execute("GET", "la:big").Bytes, Is.EqualTo(big));
        Assert.That(c.Execute("STRLEN", "la:big").Integer, Is.EqualTo(big.Length));
    }

    [Test]
    public void TwoLargeArgumentsInOneRequestAndLargeSetsBackToBack()
    {
        using var c = _server.Client(60_000);
        var a = Pattern(3 << 20, 2);
        var b = Pattern(5 << 20, 3);
        Assert.That(c.Execute("MSET", "la:m1", a, "la:m2", b).Text, Is.EqualTo("OK"));
        // Two large SETs in one send: the first is not the last request of its receive.
        c.SendRaw(Command("SET", "la:p1", b).Concat(Command("SET", "la:p2", a)).ToArray());
        Assert.That(c.Read().Text, Is.EqualTo("OK"));
        Assert.That(c.Read().Text, Is.EqualTo("OK"));
        // Both GETs' replies in one batch (two references), then a small one.
        c.SendRaw(Command("GET", "la:m1").Concat(Command("GET", "la:m2")).Concat(Command("GET", "la:p1")).Concat(Command("GET", "la:p2")).Concat(Command("PING")).ToArray());
        Assert.That(c.Read().Bytes, Is.EqualTo(a));
        Assert.That(c.Read().Bytes, Is.EqualTo(b));
        Assert.That(c.Read().Bytes, Is.EqualTo(b));
        Assert.That(c.Read().Bytes, Is.EqualTo(a));
        Assert.That(c.Read().Text, Is.EqualTo("PONG"));
        // The value kept its buffer: overwriting and deleting it leaves the other keys' bytes as they were.
        Assert.That(c.Execute("SET", "la:p1", "small").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("GET", "la:p2").Bytes, Is.EqualTo(a));
        Assert.That(c.Execute("APPEND", "la:p2", "!").Integer, Is.EqualTo(a.Length + 1));
        Assert.That(c.Execute("GETRANGE", "la:p2", "0", "9").Bytes, Is.EqualTo(a[..10]));
    }

    [Test]
    public void LargeGetInTransactionsScriptsAndMutedReplies()
    {
        using var c = _server.Client(60_000);
        var big = Pattern(2 << 20, 4);
        Assert.That(c.Execute("SET", "la:t", big).Text, Is.EqualTo("OK"));
        // MULTI/EXEC: the reference is part of the EXEC reply.
        Assert.That(c.Execute("MULTI").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("GET", "la:t").Text, Is.EqualTo("QUEUED"));
        Assert.That(c.Execute("SET", "la:t2", big).Text, Is.EqualTo("QUEUED"));
        Assert.That(c.Execute("STRLEN", "la:t").Text, Is.EqualTo("QUEUED"));
        var exec = c.Execute("EXEC");
        Assert.That(exec.Elements![0].Bytes, Is.EqualTo(big));
        Assert.That(exec.Elements![2].Integer, Is.EqualTo(big.Length));
        Assert.That(c.Execute("GET", "la:t2").Bytes, Is.EqualTo(big));
        // A script reads the reply back from the buffer: it must hold the bytes, not a reference.
        Assert.That(c.Execute("EVAL", "return redis.call('GET', KEYS[1])", "1", "la:t").Bytes, Is.EqualTo(big));
        Assert.That(c.Execute("EVAL", "return #redis.call('GET', KEYS[1])", "1", "la:t").Integer, Is.EqualTo(big.Length));
        Assert.That(c.Execute("EVAL", "return redis.call('SET', KEYS[1], ARGV[1])", "1", "la:t3", big).Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("GET", "la:t3").Bytes, Is.EqualTo(big));
        // CLIENT REPLY SKIP drops the next reply, reference included; the one after it arrives whole.
        c.SendRaw(Command("CLIENT", "REPLY", "SKIP").Concat(Command("GET", "la:t")).Concat(Command("ECHO", "after")).ToArray());
        Assert.That(c.Read().Text, Is.EqualTo("after"));
        Assert.That(c.Execute("GET", "la:t").Bytes, Is.EqualTo(big));
    }

    [Test]
    public void ReplyLimitCountsReferencedBytes()
    {
        using var admin = _server.Client();
        Assert.That(admin.Execute("CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0").Text, Is.EqualTo("OK"));
        try
        {
            using var c = _server.Client(60_000);
            Assert.That(c.Execute("SET", "la:limit", Pattern(2 << 20, 5)).Text, Is.EqualTo("OK"));
            c.Send("GET", "la:limit");
            Assert.That(c.IsClosedByServer(), Is.True, "a 2 MB reply is over a 1 MB hard limit");
        }
        finally { admin.Execute("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0"); }
    }

    [Test]
    public void WriterSegmentsAndTruncate()
    {
        var w = new RespWriter { AllowReferences = true };
        var big = Pattern(RespWriter.ReferenceMin, 6);
        w.WriteOk();
        int mark = w.Length;
        w.WriteBulkReference(big);
        Assert.That(w.TotalLength, Is.EqualTo(5 + 10 + big.Length + 2)); // +OK, $1048576\r\n, bytes, CRLF
        Assert.That(w.SegmentCount, Is.EqualTo(3));
        var all = Enumerable.Range(0, w.SegmentCount).SelectMany(i => w.Segment(i).ToArray()).ToArray();
        Assert.That(all, Is.EqualTo(Encoding.ASCII.GetBytes("+OK\r\n$1048576\r\n").Concat(big).Concat("\r\n"u8.ToArray()).ToArray()));
        Assert.That(Enumerable.Range(0, w.SegmentCount).All(i => !w.Segment(i).IsEmpty), "no empty segment");
        w.Truncate(mark);
        Assert.That(w.TotalLength, Is.EqualTo(5));
        Assert.That(w.SegmentCount, Is.EqualTo(1));
        w.AllowReferences = false;
        w.WriteBulkReference(big); // copied
        Assert.That(w.SegmentCount, Is.EqualTo(1));
        Assert.That(w.TotalLength, Is.EqualTo(w.Length));
        w.Dispose();
    }
}
