// Pub/sub as Redis 7.2 has it: raw RESP2 and RESP3 sockets and StackExchange.Redis. Messages reach many subscribers on
// other connections without them sending anything; pattern and shard subscriptions; confirmations and their counts;
// RESP2 subscribed mode; PUBSUB introspection, INFO and CLIENT LIST; RESET and disconnect; MULTI/EXEC; a subscriber that
// never reads is disconnected at client-output-buffer-limit pubsub while memory stays bounded and others go on.
using System.Collections.Concurrent;
using System.Net.Sockets;
using System.Text;
using Garnet.client;
using Garnet.server.Util;
using StackExchange.Redis;

namespace Garnet.test;

[TestFixture]
public class PubSubTests : ServerFixture
{
    private RespClient C(int protocol = 2)
    {
        var c = _server.Client();
        if (protocol == 3) c.Execute("HELLO", "3");
        return c;
    }

    private static string[] Parts(RespValue v)
    {
        Assert.That(v.Elements, Is.Not.Null, $"expected an array or push, got {v}");
        return v.Elements!.Select(e => e.Type == RespType.Integer ? e.Integer.ToString() : e.IsNull ? "(nil)" : e.Text!).ToArray();
    }

    /// <summary>Reads one push (RESP3) or array (RESP2) and checks its parts.</summary>
    private static void ExpectPush(RespClient c, int protocol, params string[] parts)
    {
        var v = c.Read();
        Assert.That(v.Type, Is.EqualTo(protocol == 3 ? RespType.Push : RespType.Array), $"got {v}");
        Assert.That(Parts(v), Is.EqualTo(parts));
    }

    private static void WaitUntil(Func<bool> condition, string what, int timeoutMs = 10_000)
    {
        var deadline = DateTime.UtcNow.AddMilliseconds(timeoutMs);
        while (!condition())
        {
            if (DateTime.UtcNow > deadline) Assert.Fail("timed out waiting for " + what);
            Thread.Sleep(10);
        }
    }

    private long NumSub(RespClient c, string channel) => c.Execute("PUBSUB", "NUMSUB", channel).Elements![1].Integer;

    [TestCase(2)]
    [TestCase(3)]
    public void ConfirmationsCarryTheCount(int protocol)
    {
        using var c = C(protocol);
        string p = "conf" + protocol + ":";
        c.Send("SUBSCRIBE", p + "a", p + "b", p + "a");
        ExpectPush(c, protocol, "subscribe", p + "a", "1");
        ExpectPush(c, protocol, "subscribe", p + "b", "2");
        ExpectPush(c, protocol, "subscribe", p + "a", "2"); // already subscribed: confirmed again, count unchanged
        c.Send("PSUBSCRIBE", p + "*");
        ExpectPush(c, protocol, "psubscribe", p + "*", "3"); // channels + patterns
        c.Send("SSUBSCRIBE", p + "s");
        ExpectPush(c, protocol, "ssubscribe", p + "s", "1"); // shard channels count apart
        c.Send("UNSUBSCRIBE", p + "b", p + "nope");
        ExpectPush(c, protocol, "unsubscribe", p + "b", "2");
        ExpectPush(c, protocol, "unsubscribe", p + "nope", "2");
        c.Send("UNSUBSCRIBE");
        ExpectPush(c, protocol, "unsubscribe", p + "a", "1");
        c.Send("UNSUBSCRIBE");
        ExpectPush(c, protocol, "unsubscribe", "(nil)", "1"); // nothing to leave: one reply with a null name
        c.Send("PUNSUBSCRIBE");
        ExpectPush(c, protocol, "punsubscribe", p + "*", "0");
        c.Send("PUNSUBSCRIBE");
        ExpectPush(c, protocol, "punsubscribe", "(nil)", "0");
        c.Send("SUNSUBSCRIBE");
        ExpectPush(c, protocol, "sunsubscribe", p + "s", "0");
        c.Send("SUNSUBSCRIBE", p + "s");
        ExpectPush(c, protocol, "sunsubscribe", p + "s", "0");
        // Out of subscribed mode again: RESP2 commands run normally.
        RespAssert.Simple(c.Execute("PING"), "PONG");
        RespAssert.Simple(c.Execute("SET", p + "k", "v"), "OK");
    }

    [Test]
    public void NullNameIsRespNull()
    {
        // RESP2 "$-1", RESP3 "_" (Redis's addReplyNull), byte for byte.
        using var c2 = C(2);
        c2.SendRaw(RespClient.Encode("UNSUBSCRIBE"));
        var raw = new byte[64];
        int n = c2.Socket.Receive(raw);
        Assert.That(Encoding.ASCII.GetString(raw, 0, n), Is.EqualTo("*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:0\r\n"));
        using var c3 = C(3);
        c3.SendRaw(RespClient.Encode("PUNSUBSCRIBE"));
        n = c3.Socket.Receive(raw);
        Assert.That(Encoding.ASCII.GetString(raw, 0, n), Is.EqualTo(">3\r\n$12\r\npunsubscribe\r\n_\r\n:0\r\n"));
    }

    [Test]
    public void MessagesReachEverySubscriberWithoutThemSendingAnything()
    {
        const int Resp2Subscribers = 20, Resp3Subscribers = 10, Messages = 50;
        var subscribers = new List<(RespClient c, int protocol)>();
        try
        {
            for (int i = 0; i < Resp2Subscribers + Resp3Subscribers; i++)
            {
                int protocol = i < Resp2Subscribers ? 2 : 3;
                var c = C(protocol);
                c.Send("SUBSCRIBE", "fanout");
                ExpectPush(c, protocol, "subscribe", "fanout", "1");
                subscribers.Add((c, protocol));
            }
            using var pub = C();
            Assert.That(NumSub(pub, "fanout"), Is.EqualTo(Resp2Subscribers + Resp3Subscribers));
            for (int m = 0; m < Messages; m++)
                RespAssert.Integer(pub.Execute("PUBLISH", "fanout", "m" + m), Resp2Subscribers + Resp3Subscribers);
            foreach (var (c, protocol) in subscribers)
                for (int m = 0; m < Messages; m++) ExpectPush(c, protocol, "message", "fanout", "m" + m); // in publish order
            RespAssert.Integer(pub.Execute("PUBLISH", "nobody-listens", "x"), 0);
        }
        finally
        {
            foreach (var (c, _) in subscribers) c.Dispose();
        }
    }

    [Test]
    public void BinaryChannelsAndMessages()
    {
        using var sub = C(3);
        using var pub = C();
        var channel = new byte[] { 0, 1, 0xFF, (byte)'\r', (byte)'\n', 0xC3, 0xA9 };
        var message = new byte[70_000]; // larger than the stack buffer used for small messages
        new Random(7).NextBytes(message);
        sub.Send("SUBSCRIBE", channel);
        sub.Read();
        sub.Send("PSUBSCRIBE", new byte[] { 0, (byte)'*' });
        sub.Read();
        RespAssert.Integer(pub.Execute("PUBLISH", channel, message), 2);
        var m = sub.Read();
        Assert.That(m.Type, Is.EqualTo(RespType.Push));
        Assert.That(m.Elements![1].Bytes, Is.EqualTo(channel));
        Assert.That(m.Elements[2].Bytes, Is.EqualTo(message));
        var pm = sub.Read();
        Assert.That(pm.Elements![0].Text, Is.EqualTo("pmessage"));
        Assert.That(pm.Elements[1].Bytes, Is.EqualTo(new byte[] { 0, (byte)'*' }));
        Assert.That(pm.Elements[2].Bytes, Is.EqualTo(channel));
        Assert.That(pm.Elements[3].Bytes, Is.EqualTo(message));
        RespAssert.Integer(pub.Execute("PUBLISH", "", ""), 0);
    }

    // (pattern, channel, matches): each checked against redis-server 7.0.15 (PSUBSCRIBE pattern, PUBLISH channel).
    private static readonly object[] s_globCases =
    [
        new object[] { "h?llo", "hello", true }, new object[] { "h?llo", "hllo", false }, new object[] { "h*llo", "hllo", true },
        new object[] { "h*llo", "heeeello", true }, new object[] { "h[ae]llo", "hallo", true }, new object[] { "h[ae]llo", "hillo", false },
        new object[] { "h[^e]llo", "hallo", true }, new object[] { "h[^e]llo", "hello", false }, new object[] { "h[a-b]llo", "hbllo", true },
        new object[] { "h[a-b]llo", "hcllo", false }, new object[] { "h[b-a]llo", "hbllo", true }, new object[] { "h\\*llo", "h*llo", true },
        new object[] { "h\\*llo", "hello", false }, new object[] { "h[\\]]llo", "h]llo", true }, new object[] { "a[", "a[", false },
        new object[] { "a[", "ab", false }, new object[] { "a[b", "ab", true }, new object[] { "a[b", "a", false },
        new object[] { "a[^", "ab", true }, new object[] { "a[^", "a", false }, new object[] { "*", "", false }, new object[] { "", "", true },
        new object[] { "a*", "a", true }, new object[] { "*a", "ba", true }, new object[] { "a\\", "a\\", true }, new object[] { "a\\", "a", false },
        new object[] { "[a-]", "-", false }, new object[] { "[a-]", "a", true }, new object[] { "[-a]", "-", true },
        new object[] { "[]a]", "a", false }, new object[] { "[]a]", "]", false }, new object[] { "ab*c*d", "abxxcyyd", true },
        new object[] { "ab*c*d", "abxxcyy", false }, new object[] { "a*b*c*d*e*f", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaf", false },
        new object[] { "**a", "a", true }, new object[] { "x?", "x", false }, new object[] { "H*", "hello", false },
        new object[] { "[A-Z]*", "hello", false }, new object[] { "\u00c3\u00a9*", "\u00c3\u00a9t\u00c3\u00a9", true },
        new object[] { "?", "\u00c3\u00a9", false }, new object[] { "??", "\u00c3\u00a9", true }, new object[] { "[\u00c3][\u00a9]", "\u00c3\u00a9", true },
        new object[] { "news.*", "news.art", true }, new object[] { "*.art", "news.art", true }, new object[] { "[!a]x", "bx", false },
        new object[] { "[!a]x", "!x", true }, new object[] { "a[b-d]*", "ac123", true },
    ];

    [TestCaseSource(nameof(s_globCases))]
    public void GlobMatchesAsRedis(string pattern, string channel, bool matches)
    {
        // The strings stand for bytes (Latin-1), as the channels Redis matched: "\u00c3\u00a9" is UTF-8 'é', two bytes.
        var p = Encoding.Latin1.GetBytes(pattern);
        var ch = Encoding.Latin1.GetBytes(channel);
        Assert.That(GlobPattern.Matches(p, ch), Is.EqualTo(matches), "bytes");
        Assert.That(GlobPattern.Matches(pattern, channel), Is.EqualTo(matches), "chars");
    }

    [Test]
    public void GlobCaseInsensitiveIsAsciiAndSwapsRangesFirst()
    {
        Assert.That(GlobPattern.Matches("H[A-C]LLO", "hbllo", ignoreCase: true), Is.True);
        Assert.That(GlobPattern.Matches("\u00c9", "\u00e9", ignoreCase: true), Is.False, "C's tolower folds ASCII only");
        // Redis swaps a reversed range before lower-casing it: [Z-a] becomes z..a, which nothing is in.
        Assert.That(GlobPattern.Matches("[Z-a]", "b", ignoreCase: true), Is.False);
        Assert.That(GlobPattern.Matches("[Z-a]", "_"), Is.True);
        Assert.That(GlobPattern.Matches(new string('*', 5000) + "x", new string('a', 5000)), Is.False, "many stars stay cheap");
    }

    [Test]
    public void PatternSubscriptionsGetPMessages()
    {
        using var sub = C();
        using var pub = C();
        sub.Send("PSUBSCRIBE", "pm:*", "pm:h?llo", "pm:[ab]*");
        for (int i = 1; i <= 3; i++) sub.Read();
        RespAssert.Integer(pub.Execute("PUBLISH", "pm:hello", "1"), 2);
        var got = new[] { Parts(sub.Read()), Parts(sub.Read()) }.Select(p => string.Join("|", p)).OrderBy(x => x, StringComparer.Ordinal).ToArray();
        Assert.That(got, Is.EqualTo(new[] { "pmessage|pm:*|pm:hello|1", "pmessage|pm:h?llo|pm:hello|1" }));
        RespAssert.Integer(pub.Execute("PUBLISH", "pm:bee", "2"), 2);
        got = new[] { Parts(sub.Read()), Parts(sub.Read()) }.Select(p => string.Join("|", p)).OrderBy(x => x, StringComparer.Ordinal).ToArray();
        Assert.That(got, Is.EqualTo(new[] { "pmessage|pm:*|pm:bee|2", "pmessage|pm:[ab]*|pm:bee|2" }));
        // A client subscribed by channel and by pattern gets both (and PUBLISH counts both).
        sub.Send("SUBSCRIBE", "pm:x");
        sub.Read();
        RespAssert.Integer(pub.Execute("PUBLISH", "pm:x", "3"), 2);
        var kinds = new[] { Parts(sub.Read())[0], Parts(sub.Read())[0] }.OrderBy(x => x, StringComparer.Ordinal);
        Assert.That(kinds, Is.EqualTo(new[] { "message", "pmessage" }));
        // Shard messages never match patterns.
        RespAssert.Integer(pub.Execute("SPUBLISH", "pm:x", "4"), 0);
        RespAssert.Integer(pub.Execute("PUBSUB", "NUMPAT"), 3);
        sub.Send("PUNSUBSCRIBE", "pm:*");
        sub.Read();
        RespAssert.Integer(pub.Execute("PUBLISH", "pm:zzz", "5"), 0);
    }

    [Test]
    public void ShardChannelsAreTheirOwnNamespace()
    {
        using var sub = C(3);
        using var pub = C();
        sub.Send("SSUBSCRIBE", "sh:1", "sh:2");
        ExpectPush(sub, 3, "ssubscribe", "sh:1", "1");
        ExpectPush(sub, 3, "ssubscribe", "sh:2", "2");
        RespAssert.Integer(pub.Execute("PUBLISH", "sh:1", "plain"), 0);
        RespAssert.Integer(pub.Execute("SPUBLISH", "sh:1", "sharded"), 1);
        ExpectPush(sub, 3, "smessage", "sh:1", "sharded");
        Assert.That(Parts(pub.Execute("PUBSUB", "SHARDNUMSUB", "sh:1", "sh:9")), Is.EqualTo(new[] { "sh:1", "1", "sh:9", "0" }));
        Assert.That(Parts(pub.Execute("PUBSUB", "SHARDCHANNELS", "sh:*")).OrderBy(x => x, StringComparer.Ordinal), Is.EqualTo(new[] { "sh:1", "sh:2" }));
        Assert.That(Parts(pub.Execute("PUBSUB", "NUMSUB", "sh:1")), Is.EqualTo(new[] { "sh:1", "0" }));
        // The shard commands' channel arguments are NOT_KEY key specs: described by COMMAND INFO, but no keys.
        RespAssert.Error(pub.Execute("COMMAND", "GETKEYS", "SPUBLISH", "ch", "m"), "ERR The command has no key arguments");
        var info = pub.Execute("COMMAND", "INFO", "spublish").Elements![0];
        Assert.That(info.Elements![3].Integer, Is.EqualTo(1));
        Assert.That(info.Elements[8].Elements![0].Elements![1].Elements!.Select(e => e.Text), Is.EqualTo(new[] { "not_key" }));
    }

    [Test]
    public void Resp2SubscribedModeAllowsOnlyPubSubCommands()
    {
        using var c = C();
        c.Send("SUBSCRIBE", "mode:a");
        c.Read();
        const string Only = "only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context";
        RespAssert.Error(c.Execute("SET", "k", "v"), "ERR Can't execute 'set': " + Only);
        RespAssert.Error(c.Execute("CLIENT", "LIST"), "ERR Can't execute 'client|list': " + Only);
        RespAssert.Error(c.Execute("PUBLISH", "mode:a", "x"), "ERR Can't execute 'publish': " + Only);
        RespAssert.Error(c.Execute("MULTI"), "ERR Can't execute 'multi': " + Only);
        RespAssert.Error(c.Execute("EXEC"), "EXECABORT Transaction discarded because of: Can't execute 'exec': " + Only);
        // Checks that come first still win.
        Assert.That(c.Execute("NOSUCH").Text, Does.StartWith("ERR unknown command 'NOSUCH'"));
        RespAssert.Error(c.Execute("GET"), "ERR wrong number of arguments for 'get' command");
        // PING answers as a message-shaped array.
        Assert.That(Parts(c.Execute("PING")), Is.EqualTo(new[] { "pong", "" }));
        Assert.That(Parts(c.Execute("PING", "hi")), Is.EqualTo(new[] { "pong", "hi" }));
        c.Send("PSUBSCRIBE", "mode:*");
        c.Read();
        c.Send("UNSUBSCRIBE");
        c.Read();
        RespAssert.Error(c.Execute("GET", "k"), "ERR Can't execute 'get': " + Only); // still a pattern left
        c.Send("PUNSUBSCRIBE");
        c.Read();
        RespAssert.Simple(c.Execute("PING"), "PONG");
        // QUIT is allowed.
        c.Send("SUBSCRIBE", "mode:a");
        c.Read();
        RespAssert.Simple(c.Execute("QUIT"), "OK");
        Assert.That(c.IsClosedByServer(), Is.True);
    }

    [Test]
    public void Resp3AllowsEveryCommandAndMessagesInterleave()
    {
        using var c = C(3);
        using var pub = C();
        c.Send("SUBSCRIBE", "r3:a");
        ExpectPush(c, 3, "subscribe", "r3:a", "1");
        RespAssert.Simple(c.Execute("SET", "r3:k", "v"), "OK");
        RespAssert.Bulk(c.Execute("GET", "r3:k"), "v");
        RespAssert.Simple(c.Execute("PING"), "PONG");
        RespAssert.Integer(pub.Execute("PUBLISH", "r3:a", "between"), 1);
        // Pushed at once to the idle connection.
        WaitUntil(() => c.Socket.Available > 0, "the message");
        ExpectPush(c, 3, "message", "r3:a", "between");
        RespAssert.Bulk(c.Execute("GET", "r3:k"), "v");
        // A message to itself follows the reply of the command that published it (Redis 7.2), also after EXEC's array.
        c.Send("PUBLISH", "r3:a", "self");
        RespAssert.Integer(c.Read(), 1);
        ExpectPush(c, 3, "message", "r3:a", "self");
        c.Execute("MULTI");
        c.Execute("PUBLISH", "r3:a", "in-exec");
        c.Execute("GET", "r3:k");
        var exec = c.Execute("EXEC");
        Assert.That(Parts(exec), Is.EqualTo(new[] { "1", "v" }));
        ExpectPush(c, 3, "message", "r3:a", "in-exec");
        // Switching to RESP2 while subscribed enters subscribed mode.
        c.Execute("HELLO", "2");
        Assert.That(c.Execute("GET", "r3:k").Text, Does.StartWith("ERR Can't execute 'get'"));
    }

    [Test]
    public void BlockedResp3ClientStillGetsMessages()
    {
        using var c = C(3);
        using var pub = C();
        c.Send("SUBSCRIBE", "blk:a");
        c.Read();
        c.Send("BLPOP", "blk:list", "0");
        WaitUntil(() => new InfoText(pub.Execute("INFO", "clients").Text!).Long("blocked_clients") == 1, "the BLPOP to block");
        RespAssert.Integer(pub.Execute("PUBLISH", "blk:a", "while-blocked"), 1);
        ExpectPush(c, 3, "message", "blk:a", "while-blocked");
        pub.Execute("RPUSH", "blk:list", "x");
        Assert.That(Parts(c.Read()), Is.EqualTo(new[] { "blk:list", "x" }));
    }

    [Test]
    public void IntrospectionInfoAndClientList()
    {
        using var a = C();
        using var b = C(3);
        using var q = C();
        a.Send("SUBSCRIBE", "in:x", "in:y");
        a.Read(); a.Read();
        a.Send("PSUBSCRIBE", "in:*");
        a.Read();
        b.Send("SUBSCRIBE", "in:x");
        b.Read();
        b.Send("SSUBSCRIBE", "in:s");
        b.Read();
        Assert.That(Parts(q.Execute("PUBSUB", "NUMSUB", "in:x", "in:y", "in:z")), Is.EqualTo(new[] { "in:x", "2", "in:y", "1", "in:z", "0" }));
        Assert.That(q.Execute("PUBSUB", "NUMSUB").Elements, Is.Empty);
        Assert.That(q.Execute("PUBSUB", "NUMPAT").Integer, Is.GreaterThanOrEqualTo(1));
        Assert.That(Parts(q.Execute("PUBSUB", "CHANNELS", "in:*")).OrderBy(x => x, StringComparer.Ordinal), Is.EqualTo(new[] { "in:x", "in:y" }));
        Assert.That(Parts(q.Execute("PUBSUB", "CHANNELS")), Is.SupersetOf(new[] { "in:x", "in:y" }));
        Assert.That(Parts(q.Execute("PUBSUB", "SHARDCHANNELS")), Does.Contain("in:s"));
        RespAssert.Error(q.Execute("PUBSUB", "CHANNELS", "a", "b"), "ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. Try PUBSUB HELP.");
        RespAssert.Error(q.Execute("PUBSUB", "NUMPAT", "x"), "ERR wrong number of arguments for 'pubsub|numpat' command");
        RespAssert.Error(q.Execute("PUBSUB", "FOO"), "ERR unknown subcommand 'FOO'. Try PUBSUB HELP.");
        Assert.That(q.Execute("PUBSUB", "HELP").Elements![0].Text, Is.EqualTo("PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));

        var stats = new InfoText(q.Execute("INFO").Text!);
        Assert.That(stats.Long("pubsub_channels"), Is.GreaterThanOrEqualTo(2));
        Assert.That(stats.Long("pubsub_patterns"), Is.GreaterThanOrEqualTo(1));
        Assert.That(stats.Long("pubsubshard_channels"), Is.GreaterThanOrEqualTo(1));
        Assert.That(stats.Long("pubsub_clients"), Is.GreaterThanOrEqualTo(2));

        // CLIENT LIST: counts, flag P, TYPE pubsub / normal.
        long aId = IdOf(a), bId = IdOf(b, "CLIENT");
        string aLine = q.Execute("CLIENT", "LIST", "ID", aId.ToString()).Text!;
        Assert.That(aLine, Does.Contain(" flags=P ").And.Contain(" sub=2 psub=1 ssub=0 "));
        string bLine = b.Execute("CLIENT", "INFO").Text!;
        Assert.That(bLine, Does.Contain(" flags=P ").And.Contain(" sub=1 psub=0 ssub=1 ").And.Contain(" resp=3 "));
        string pubsubClients = q.Execute("CLIENT", "LIST", "TYPE", "pubsub").Text!;
        Assert.That(pubsubClients, Does.Contain($"id={aId} ").And.Contain($"id={bId} "));
        Assert.That(pubsubClients, Does.Not.Contain($"id={IdOf(q, "CLIENT")} "));
        Assert.That(q.Execute("CLIENT", "LIST", "TYPE", "normal").Text, Does.Not.Contain($"id={aId} "));
    }

    /// <summary>A client's id: from CLIENT ID when it may run it, otherwise from CLIENT LIST by its local port.</summary>
    private long IdOf(RespClient c, string? how = null)
    {
        if (how == "CLIENT") return c.Execute("CLIENT", "ID").Integer;
        int port = ((System.Net.IPEndPoint)c.Socket.LocalEndPoint!).Port;
        using var q = C();
        var line = q.Execute("CLIENT", "LIST").Text!.Split('\n').First(l => l.Contains($" addr=127.0.0.1:{port} "));
        return long.Parse(line[3..line.IndexOf(' ')]);
    }

    [Test]
    public void ResetAndDisconnectLeaveEverything()
    {
        using var q = C();
        var c = C();
        c.Send("SUBSCRIBE", "rs:a");
        c.Read();
        c.Send("PSUBSCRIBE", "rs:*");
        c.Read();
        c.Send("SSUBSCRIBE", "rs:s");
        c.Read();
        RespAssert.Simple(c.Execute("RESET"), "RESET"); // allowed in subscribed mode; no unsubscribe confirmations
        Assert.That(NumSub(q, "rs:a"), Is.EqualTo(0));
        Assert.That(Parts(q.Execute("PUBSUB", "SHARDNUMSUB", "rs:s"))[1], Is.EqualTo("0"));
        RespAssert.Integer(q.Execute("PUBLISH", "rs:a", "x"), 0);
        RespAssert.Simple(c.Execute("SET", "rs:k", "v"), "OK"); // out of subscribed mode
        Assert.That(c.Execute("CLIENT", "INFO").Text, Does.Contain(" flags=N ").And.Contain(" sub=0 psub=0 ssub=0 "));

        c.Send("SUBSCRIBE", "rs:a");
        c.Read();
        Assert.That(NumSub(q, "rs:a"), Is.EqualTo(1));
        c.Dispose();
        WaitUntil(() => NumSub(q, "rs:a") == 0, "the disconnect to unsubscribe");
    }

    [Test]
    public void SubscribeInsideMultiRunsAtExec()
    {
        using var c = C();
        using var pub = C();
        RespAssert.Simple(c.Execute("MULTI"), "OK");
        RespAssert.Simple(c.Execute("SUBSCRIBE", "mx:a"), "QUEUED");
        RespAssert.Simple(c.Execute("SSUBSCRIBE", "mx:s"), "QUEUED");
        RespAssert.Simple(c.Execute("PSUBSCRIBE", "mx:*"), "QUEUED");
        Assert.That(NumSub(pub, "mx:a"), Is.EqualTo(0), "nothing before EXEC");
        var exec = c.Execute("EXEC");
        Assert.That(exec.Elements, Has.Length.EqualTo(3));
        Assert.That(Parts(exec.Elements![0]), Is.EqualTo(new[] { "subscribe", "mx:a", "1" }));
        RespAssert.Error(exec.Elements[1], "ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client");
        Assert.That(Parts(exec.Elements[2]), Is.EqualTo(new[] { "psubscribe", "mx:*", "2" }));
        RespAssert.Integer(pub.Execute("PUBLISH", "mx:a", "hi"), 2);
        ExpectPush(c, 2, "message", "mx:a", "hi");
        ExpectPush(c, 2, "pmessage", "mx:*", "mx:a", "hi");
        Assert.That(c.Execute("GET", "x").Text, Does.StartWith("ERR Can't execute 'get'"));
    }

    [Test]
    public void CommandTableRows()
    {
        using var c = C();
        var info = c.Execute("COMMAND", "INFO", "subscribe", "publish", "pubsub|numsub", "pubsub|help");
        string Flags(RespValue v) => string.Join(",", v.Elements![2].Elements!.Select(e => e.Text));
        string Acl(RespValue v) => string.Join(",", v.Elements![6].Elements!.Select(e => e.Text));
        Assert.That(info.Elements![0].Elements![1].Integer, Is.EqualTo(-2));
        Assert.That(Flags(info.Elements[0]), Is.EqualTo("pubsub,noscript,loading,stale"));
        Assert.That(Acl(info.Elements[0]), Is.EqualTo("@pubsub,@slow"));
        Assert.That(info.Elements[1].Elements![1].Integer, Is.EqualTo(3));
        Assert.That(Flags(info.Elements[1]), Is.EqualTo("pubsub,loading,stale,fast"));
        Assert.That(Acl(info.Elements[1]), Is.EqualTo("@pubsub,@fast"));
        Assert.That(Flags(info.Elements[2]), Is.EqualTo("pubsub,loading,stale"));
        Assert.That(Flags(info.Elements[3]), Is.EqualTo("loading,stale"));
        Assert.That(Acl(info.Elements[3]), Is.EqualTo("@slow"));
    }

    [Test]
    public void OutputBufferLimitConfig()
    {
        using var server = new TestServer();
        using var c = server.Client();
        Assert.That(RespAssert.Map(c.Execute("CONFIG", "GET", "client-output-buffer-limit"))["client-output-buffer-limit"].Text,
            Is.EqualTo("normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"));
        RespAssert.Simple(c.Execute("CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb 512kb 10 normal 1gb 0 0"), "OK");
        Assert.That(RespAssert.Map(c.Execute("CONFIG", "GET", "client-output-buffer-limit"))["client-output-buffer-limit"].Text,
            Is.EqualTo("normal 1073741824 0 0 slave 268435456 67108864 60 pubsub 1048576 524288 10"));
        var push = server.Server.Settings.Limits.Push;
        Assert.That((push.Hard, push.Soft, push.SoftSeconds), Is.EqualTo((1048576L, 524288L, 10)));
        RespAssert.Error(c.Execute("CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb 512kb"),
            "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - Wrong number of arguments in buffer limit configuration.");
        RespAssert.Error(c.Execute("CONFIG", "SET", "client-output-buffer-limit", "master 1mb 1mb 1"),
            "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - Invalid client class specified in buffer limit configuration.");
        RespAssert.Error(c.Execute("CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb x 1"),
            "ERR CONFIG SET failed (possibly related to argument 'client-output-buffer-limit') - Error in hard, soft or soft_seconds setting in buffer limit configuration.");
        Assert.That(push.Hard, Is.EqualTo(1048576L), "a refused CONFIG SET changes nothing");
    }

    [Test]
    public void OutputBufferLimitOptions()
    {
        var path = Path.GetTempFileName();
        File.WriteAllText(path, "client-output-buffer-limit normal 0 0 0\nclient-output-buffer-limit pubsub 2mb 1mb 5\nclient-output-buffer-limit replica 1mb 1mb 1\n");
        try
        {
            var o = Garnet.Options.OptionsParser.Parse(["--config", path], TextWriter.Null, out _, out var ignored)!;
            var s = Garnet.Options.SettingsBuilder.Build(o);
            Assert.That((s.Limits.Push.Hard, s.Limits.Push.Soft, s.Limits.Push.SoftSeconds), Is.EqualTo((2L << 20, 1L << 20, 5)));
            Assert.That(ignored, Is.Empty);
            // The command line wins for the classes it names; a plain size is the normal class's hard limit.
            o = Garnet.Options.OptionsParser.Parse(["--config", path, "--client-output-buffer-limit", "pubsub 4mb 0 0"], TextWriter.Null, out _, out _)!;
            s = Garnet.Options.SettingsBuilder.Build(o);
            Assert.That((s.Limits.Push.Hard, s.Limits.Push.Soft), Is.EqualTo((4L << 20, 0L)));
            o = Garnet.Options.OptionsParser.Parse(["--client-output-buffer-limit", "64mb"], TextWriter.Null, out _, out _)!;
            s = Garnet.Options.SettingsBuilder.Build(o);
            Assert.That(s.OutputBufferHardLimit, Is.EqualTo(64L << 20));
            Assert.That(s.Limits.Push.Hard, Is.EqualTo(32L << 20), "Redis's default pubsub class");
            o = Garnet.Options.OptionsParser.Parse(["--client-output-buffer-limit", "pubsub 1mb"], TextWriter.Null, out _, out _)!;
            Assert.Throws<Garnet.Options.OptionsException>(() => Garnet.Options.SettingsBuilder.Build(o));
        }
        finally { File.Delete(path); }
    }

    [Test, CancelAfter(180_000)]
    public void SlowSubscriberIsDisconnectedAndMemoryStaysBounded()
    {
        const int MessageSize = 64 * 1024, Messages = 1600; // 100 MB published in all
        using var server = new TestServer();
        using var admin = server.Client(30_000);
        RespAssert.Simple(admin.Execute("CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb 512kb 60"), "OK");

        // A subscriber that never reads, with a small receive window.
        using var slow = new Socket(SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = 4096, ReceiveTimeout = 30_000 };
        slow.Connect("127.0.0.1", server.Port);
        slow.Send(RespClient.Encode("SUBSCRIBE", "firehose"));
        WaitUntil(() => admin.Execute("PUBSUB", "NUMSUB", "firehose").Elements![1].Integer == 1, "the slow subscriber");
        long slowId = long.Parse(admin.Execute("CLIENT", "LIST", "TYPE", "pubsub").Text!.Split(' ')[0][3..]);

        // A subscriber that reads everything, on its own thread.
        using var fast = server.Client(30_000);
        fast.Send("SUBSCRIBE", "firehose");
        fast.Read();
        int fastGot = 0;
        var reader = new Thread(() =>
        {
            try
            {
                while (fastGot < Messages)
                {
                    var m = fast.Read();
                    if (m.Elements is { Length: 3 } && m.Elements[2].Bytes!.Length == MessageSize) Interlocked.Increment(ref fastGot);
                }
            }
            catch (Exception) { }
        }) { IsBackground = true };
        reader.Start();

        using var publisher = server.Client(30_000);
        var payload = new byte[MessageSize];
        new Random(1).NextBytes(payload);
        var publish = RespClient.Encode("PUBLISH", "firehose", payload); // encoded once: the test itself makes no garbage per message
        long baseline = GC.GetTotalMemory(forceFullCollection: true);
        long peak = 0;
        int slowGoneAt = -1;
        for (int i = 0; i < Messages; i++)
        {
            publisher.SendRaw(publish);
            long receivers = publisher.Read().Integer;
            if (receivers == 1 && slowGoneAt < 0) slowGoneAt = i;
            // Stay close to the fast reader, so that only the slow subscriber can fall behind.
            WaitUntil(() => Volatile.Read(ref fastGot) >= i - 4, "the fast subscriber", 30_000);
            if (i % 100 == 99) peak = Math.Max(peak, GC.GetTotalMemory(forceFullCollection: true) - baseline);
            if (i % 200 == 0) RespAssert.Simple(admin.Execute("SET", "still-working", i.ToString()), "OK");
        }
        Assert.That(peak, Is.LessThan(40L << 20), $"memory grew by {peak >> 20} MB while 100 MB were published");
        Assert.That(slowGoneAt, Is.GreaterThan(0).And.LessThan(Messages / 2), "the slow subscriber was dropped early, once past the limit");
        WaitUntil(() => Volatile.Read(ref fastGot) == Messages, "the fast subscriber to get every message", 30_000);
        Assert.That(admin.Execute("CLIENT", "LIST", "ID", slowId.ToString()).Text, Is.Empty, "no longer listed");
        Assert.That(admin.Execute("PUBSUB", "NUMSUB", "firehose").Elements![1].Integer, Is.EqualTo(1));
        RespAssert.Bulk(admin.Execute("GET", "still-working"), "1400");

        // The slow subscriber's socket ends (after what the kernel buffered) instead of delivering all 100 MB.
        long received = 0;
        var buffer = new byte[64 * 1024];
        try
        {
            while (true)
            {
                int n = slow.Receive(buffer);
                if (n == 0) break;
                received += n;
            }
        }
        catch (SocketException ex) when (ex.SocketErrorCode == SocketError.ConnectionReset) { }
        Assert.That(received, Is.LessThan(Messages * (long)MessageSize / 4));
    }

    [Test, CancelAfter(60_000)]
    public void PendingMessagesShowAsOmemAndSoftLimitNeedsTime()
    {
        using var server = new TestServer();
        using var admin = server.Client();
        // Soft limit 256 KB for 3 s: a short burst over it is tolerated; staying over it for longer is not.
        RespAssert.Simple(admin.Execute("CONFIG", "SET", "client-output-buffer-limit", "pubsub 0 256kb 3"), "OK");
        using var slow = new Socket(SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = 4096 };
        slow.Connect("127.0.0.1", server.Port);
        slow.Send(RespClient.Encode("SUBSCRIBE", "soft"));
        WaitUntil(() => admin.Execute("PUBSUB", "NUMSUB", "soft").Elements![1].Integer == 1, "the subscriber");
        var payload = new byte[64 * 1024];
        var line = () => admin.Execute("CLIENT", "LIST", "TYPE", "pubsub").Text!;
        long Omem() { var l = line(); return l.Length == 0 ? -1 : long.Parse(l.Split(' ').First(f => f.StartsWith("omem="))[5..]); }
        // Fill the kernel buffers until messages wait on the server.
        for (int i = 0; i < 2000 && Omem() < 300 * 1024; i++) admin.Execute("PUBLISH", "soft", payload);
        Assert.That(Omem(), Is.GreaterThan(256 * 1024), "pending pushed bytes are omem");
        admin.Execute("PUBLISH", "soft", payload); // over the soft limit, but not for long yet
        Assert.That(Omem(), Is.GreaterThan(0), "still connected");
        Thread.Sleep(3500);
        admin.Execute("PUBLISH", "soft", payload); // over it for more than 3 s: dropped
        WaitUntil(() => admin.Execute("PUBSUB", "NUMSUB", "soft").Elements![1].Integer == 0, "the disconnect");
    }

    // ---- StackExchange.Redis ----

    [Test, CancelAfter(60_000)]
    public async Task StackExchangeSubscribers([Values(RedisProtocol.Resp2, RedisProtocol.Resp3)] RedisProtocol protocol)
    {
        string p = "se" + protocol + ":";
        using var subMux = _server.Multiplexer(protocol);
        using var pubMux = _server.Multiplexer(protocol);
        var sub = subMux.GetSubscriber();
        var got = new ConcurrentQueue<string>();
        await sub.SubscribeAsync(RedisChannel.Literal(p + "news"), (ch, msg) => got.Enqueue("literal " + ch + " " + msg));
        await sub.SubscribeAsync(RedisChannel.Pattern(p + "n*"), (ch, msg) => got.Enqueue("pattern " + ch + " " + msg));
        var queue = await sub.SubscribeAsync(RedisChannel.Literal(p + "queue"));

        var publisher = pubMux.GetSubscriber();
        Assert.That(await publisher.PublishAsync(RedisChannel.Literal(p + "news"), "hello"), Is.EqualTo(2));
        Assert.That(await publisher.PublishAsync(RedisChannel.Literal(p + "nothing"), "x"), Is.EqualTo(1)); // the pattern only
        Assert.That(await publisher.PublishAsync(RedisChannel.Literal(p + "queue"), "q1"), Is.EqualTo(1));
        var q1 = await queue.ReadAsync(new CancellationTokenSource(10_000).Token);
        Assert.That((string?)q1.Message, Is.EqualTo("q1"));
        WaitUntil(() => got.Count == 3, "3 messages");
        Assert.That(got.OrderBy(x => x, StringComparer.Ordinal), Is.EqualTo(new[] { $"literal {p}news hello", $"pattern {p}news hello", $"pattern {p}nothing x" }));

        // Over RESP3 the subscribing connection keeps running commands too.
        var db = subMux.GetDatabase();
        await db.StringSetAsync(p + "k", "v");
        Assert.That((string?)await db.StringGetAsync(p + "k"), Is.EqualTo("v"));

        var server = pubMux.GetServer(pubMux.GetEndPoints()[0]);
        Assert.That(await server.SubscriptionSubscriberCountAsync(RedisChannel.Literal(p + "news")), Is.EqualTo(1));
        Assert.That(await server.SubscriptionPatternCountAsync(), Is.GreaterThanOrEqualTo(1));
        Assert.That((await server.SubscriptionChannelsAsync(RedisChannel.Pattern(p + "*"))).Select(c => (string?)c).OrderBy(c => c, StringComparer.Ordinal),
            Is.EqualTo(new[] { p + "news", p + "queue" }));

        await sub.UnsubscribeAsync(RedisChannel.Literal(p + "news"));
        await sub.UnsubscribeAsync(RedisChannel.Pattern(p + "n*"));
        Assert.That(await publisher.PublishAsync(RedisChannel.Literal(p + "news"), "late"), Is.EqualTo(0));
        await sub.UnsubscribeAllAsync();
        WaitUntil(() => server.SubscriptionSubscriberCount(RedisChannel.Literal(p + "queue")) == 0, "unsubscribe all");
    }

    [Test, CancelAfter(60_000)]
    public async Task StackExchangeManySubscriberConnections([Values(RedisProtocol.Resp2, RedisProtocol.Resp3)] RedisProtocol protocol)
    {
        const int Subscribers = 8, Messages = 100;
        string channel = "se-many-" + protocol;
        var muxes = new List<ConnectionMultiplexer>();
        try
        {
            var counts = new int[Subscribers];
            for (int i = 0; i < Subscribers; i++)
            {
                var mux = _server.Multiplexer(protocol);
                muxes.Add(mux);
                int me = i;
                await mux.GetSubscriber().SubscribeAsync(RedisChannel.Literal(channel), (_, _) => Interlocked.Increment(ref counts[me]));
            }
            using var pubMux = _server.Multiplexer(protocol);
            var publisher = pubMux.GetSubscriber();
            for (int m = 0; m < Messages; m++)
                Assert.That(await publisher.PublishAsync(RedisChannel.Literal(channel), "m" + m), Is.EqualTo(Subscribers));
            WaitUntil(() => Enumerable.Range(0, Subscribers).All(i => Volatile.Read(ref counts[i]) == Messages), "every subscriber to get every message");
        }
        finally
        {
            foreach (var m in muxes) m.Dispose();
        }
    }
}
