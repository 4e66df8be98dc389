using System.Text;
using Garnet.common.Resp;

namespace Garnet.test;

/// <summary>RespRequestParser: a whole request in one receive (the one-pass path) parses exactly as the same bytes
/// arriving one at a time (the general path, which keeps its place between calls).</summary>
public class RespParserTests
{
    private static readonly string[] Requests =
    [
        "*2\r\n$3\r\nGET\r\n$12\r\nkey:00000001\r\n",
        "*1\r\n$4\r\nPING\r\n",
        "*3\r\n$3\r\nSET\r\n$0\r\n\r\n$100\r\n" + new string('v', 100) + "\r\n",
        "*2\r\n$3\r\nGET\r\n$999\r\n" + new string('k', 999) + "\r\n",
        "*2\r\n$3\r\nGET\r\n$1000\r\n" + new string('k', 1000) + "\r\n",         // 4 digits: the general path
        "*9\r\n" + string.Concat(Enumerable.Repeat("$1\r\na\r\n", 9)),
        "*10\r\n" + string.Concat(Enumerable.Repeat("$1\r\na\r\n", 10)),          // 2-digit count
        "*2\r\n$3\r\nGET\r\n$3\r\nabcXY",                                          // the two bytes after an argument are skipped
        "*2\r\n$03\r\nGET\r\n$1\r\nk\r\n",                                         // leading zero: invalid bulk length
        "*2\r\n$3\r\nGET\r\n$-1\r\n",                                              // negative length
        "*2\r\n$3\r\nGET\r\n:1\r\n",                                               // not '$'
        "*2\r\n$3\r\nGET\r\n$1x\r\nk\r\n",                                         // junk in the length
        "*2\r\n$3\r\nGET\r\n$1\rXk\r\n",                                           // '\r' then not '\n' (Redis does not check it)
        "*0\r\n",
        "*1\r\n$0\r\n\r\n",
        "*2\r\n$3\r\nGET\r\n$17000\r\n" + new string('k', 17000) + "\r\n",       // over the unauthenticated bulk limit
    ];

    private static (ParseStatus Status, int Consumed, string[] Args, string? Error) Whole(byte[] bytes)
    {
        var parser = new RespRequestParser(new RespLimits());
        var status = parser.TryParse(bytes, out int consumed);
        return (status, consumed, ArgsOf(parser, bytes, status), parser.Error);
    }

    private static (ParseStatus Status, int Consumed, string[] Args, string? Error) ByteByByte(byte[] bytes)
    {
        var parser = new RespRequestParser(new RespLimits());
        for (int n = 1; ; n++)
        {
            var status = parser.TryParse(bytes.AsSpan(0, n), out int consumed);
            if (status != ParseStatus.Incomplete || n == bytes.Length)
                return (status, consumed, ArgsOf(parser, bytes, status), parser.Error);
        }
    }

    private static string[] ArgsOf(RespRequestParser parser, byte[] bytes, ParseStatus status) => status == ParseStatus.Complete
        ? Enumerable.Range(0, parser.ArgCount).Select(i => Encoding.ASCII.GetString(parser.GetArg(i, bytes))).ToArray()
        : [];

    [Test]
    public void AWholeRequestParsesAsTheSameBytesOneAtATime()
    {
        foreach (var request in Requests)
        {
            var bytes = Encoding.ASCII.GetBytes(request);
            var whole = Whole(bytes);
            var split = ByteByByte(bytes);
            string shown = request.Replace("\r", "\\r").Replace("\n", "\\n");
            Assert.That(whole.Status, Is.EqualTo(split.Status), shown);
            Assert.That(whole.Consumed, Is.EqualTo(split.Consumed), shown);
            Assert.That(whole.Args, Is.EqualTo(split.Args), shown);
            Assert.That(whole.Error, Is.EqualTo(split.Error), shown);
        }
        Assert.That(Whole(Encoding.ASCII.GetBytes(Requests[0])).Args, Is.EqualTo(new[] { "GET", "key:00000001" }));
        Assert.That(Whole(Encoding.ASCII.GetBytes(Requests[8])).Error, Is.EqualTo("Protocol error: invalid bulk length"));
    }

    [Test]
    public void RequestsBackToBackInOneBufferParseInTurn()
    {
        // A pipeline: each request is taken from the unconsumed rest, as the session does; a cut-off last one is Incomplete.
        var text = string.Concat(Requests.Take(7)) + "*2\r\n$3\r\nGET\r\n$5\r\nab";
        var bytes = Encoding.ASCII.GetBytes(text);
        var parser = new RespRequestParser(new RespLimits());
        int at = 0, complete = 0;
        while (true)
        {
            var status = parser.TryParse(bytes.AsSpan(at), out int consumed);
            if (status == ParseStatus.Incomplete) break;
            Assert.That(status, Is.EqualTo(ParseStatus.Complete));
            Assert.That(Encoding.ASCII.GetString(bytes, at, consumed), Is.EqualTo(Requests[complete]));
            at += consumed;
            complete++;
        }
        Assert.That(complete, Is.EqualTo(7));
        Assert.That(parser.TryParse(Encoding.ASCII.GetBytes("*2\r\n$3\r\nGET\r\n$5\r\nabcde\r\n"), out int last), Is.EqualTo(ParseStatus.Complete),
            "the cut-off request completes once its bytes are there");
        Assert.That(last, Is.EqualTo(24));
        Assert.That(Encoding.ASCII.GetString(parser.GetArg(1, Encoding.ASCII.GetBytes("*2\r\n$3\r\nGET\r\n$5\r\nabcde\r\n"))), Is.EqualTo("abcde"));
    }

    [Test]
    public void ALengthOverProtoMaxBulkLenIsRefusedOnBothPaths()
    {
        var limits = new RespLimits { ProtoMaxBulkLen = 10 };
        var bytes = Encoding.ASCII.GetBytes("*2\r\n$3\r\nGET\r\n$11\r\nkkkkkkkkkkk\r\n");
        var parser = new RespRequestParser(limits);
        Assert.That(parser.TryParse(bytes, out _), Is.EqualTo(ParseStatus.ProtocolError));
        Assert.That(parser.Error, Is.EqualTo("Protocol error: invalid bulk length"));
    }
}
