// Keyspace notifications (notify-keyspace-events): Redis's class parsing and CONFIG GET form, the __keyspace@<db>__ and
// __keyevent@<db>__ channels, and each family's events in Redis's order (checked against redis-server 7.0.15, whose
// events for these commands are 7.2's), "new" and the "del" of an emptied collection, "expired" (lazy and active)
// exactly once, "keymiss", class filtering, and nothing at all while off.
using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class KeyspaceEventsTests : ServerFixture
{
    private RespClient C() => _server.Client();

    /// <summary>A RESP2 subscriber of every keyevent channel and of a sentinel channel.</summary>
    private RespClient Subscriber(string pattern = "__keyevent@*")
    {
        var sub = C();
        sub.Send("PSUBSCRIBE", pattern);
        sub.Read();
        sub.Send("SUBSCRIBE", "sentinel");
        sub.Read();
        return sub;
    }

    /// <summary>Runs the commands on c, then publishes a sentinel from c: what sub got before it is exactly what the
    /// commands published (one publisher's messages arrive in order). Events as "db event key" (keyevent channels) or
    /// "channel message" (others), for keys that start with the first command's key prefix (up to its ':'), so that
    /// keys of other tests that active expiry happens to announce meanwhile do not count.</summary>
    private static List<string> Events(RespClient c, RespClient sub, params string[][] commands) =>
        Events(c, sub, commands.Length > 0 ? commands[0][1][..(commands[0][1].IndexOf(':') + 1)] : "", commands);

    private static List<string> Events(RespClient c, RespClient sub, string prefix, params string[][] commands)
    {
        foreach (var cmd in commands)
        {
            var reply = c.Execute(cmd);
            Assert.That(reply.IsError, Is.False, $"{string.Join(' ', cmd)}: {reply}");
        }
        c.Execute("PUBLISH", "sentinel", "end");
        var events = new List<string>();
        while (true)
        {
            var m = sub.Read();
            var parts = m.Elements!.Select(e => e.Text).ToArray();
            if (parts[0] == "message" && parts[1] == "sentinel") return events;
            Assert.That(parts[0], Is.EqualTo("pmessage"), m.ToString());
            string channel = parts[2]!, message = parts[3]!;
            if (channel.StartsWith("__keyevent@"))
            {
                int at = channel.IndexOf("__:", StringComparison.Ordinal);
                if (message.StartsWith(prefix, StringComparison.Ordinal)) events.Add(channel[11..at] + " " + channel[(at + 3)..] + " " + message);
            }
            else if (channel[(channel.IndexOf("__:", StringComparison.Ordinal) + 3)..].StartsWith(prefix, StringComparison.Ordinal)) events.Add(channel + " " + message);
        }
    }

    private static string[] Cmd(string line) => line.Split(' ');

    private static List<string> Run(RespClient c, RespClient sub, params string[] lines) => Events(c, sub, lines.Select(Cmd).ToArray());

    private void SetClasses(string classes)
    {
        using var c = C();
        RespAssert.Simple(c.Execute("CONFIG", "SET", "notify-keyspace-events", classes), "OK");
    }

    [TearDown]
    public void Off() => SetClasses("");

    [Test]
    public void OffByDefaultAndNothingIsPublished()
    {
        using var c = C();
        Assert.That(RespAssert.Map(c.Execute("CONFIG", "GET", "notify-keyspace-events"))["notify-keyspace-events"].Text, Is.EqualTo(""));
        using var sub = Subscriber();
        var events = Run(c, sub, "SET off:k v", "DEL off:k", "LPUSH off:l a", "LPOP off:l", "SET off:t v PX 1", "INCR off:n", "GET off:none");
        Thread.Sleep(50);
        Assert.That(Run(c, sub, "GET off:t", "HSET off:h f v", "DEL off:n off:h"), Is.Empty);
        Assert.That(events, Is.Empty);
        // Classes without K or E publish nothing either.
        SetClasses("A");
        Assert.That(Run(c, sub, "SET off:k v", "DEL off:k"), Is.Empty);
    }

    [TestCase("KEA", "AKE")]
    [TestCase("KEAnm", "AKEm")] // Redis's form leaves n out once A is there
    [TestCase("Kg$", "g$K")]
    [TestCase("Ex", "xE")]
    [TestCase("gx$lshzetdnKEm", "AKEm")]
    [TestCase("EK$$", "$KE")]
    [TestCase("", "")]
    public void ClassesParseAndPrintAsRedis(string set, string shown)
    {
        using var c = C();
        RespAssert.Simple(c.Execute("CONFIG", "SET", "notify-keyspace-events", set), "OK");
        Assert.That(RespAssert.Map(c.Execute("CONFIG", "GET", "notify-keyspace-events"))["notify-keyspace-events"].Text, Is.EqualTo(shown));
    }

    [Test]
    public void InvalidClassIsRefused()
    {
        using var c = C();
        RespAssert.Error(c.Execute("CONFIG", "SET", "notify-keyspace-events", "KEX"),
            "ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
        var o = Garnet.Options.OptionsParser.Parse(["--notify-keyspace-events", "Kq"], TextWriter.Null, out _, out _)!;
        Assert.Throws<Garnet.Options.OptionsException>(() => Garnet.Options.SettingsBuilder.Build(o));
        o = Garnet.Options.OptionsParser.Parse(["--notify-keyspace-events", "Elg"], TextWriter.Null, out _, out _)!;
        Assert.That(Garnet.server.PubSub.KeyspaceEvents.Format((Garnet.server.PubSub.NotifyClass)Garnet.Options.SettingsBuilder.Build(o).NotifyKeyspaceEvents), Is.EqualTo("glE"));
        var path = Path.GetTempFileName();
        File.WriteAllText(path, "notify-keyspace-events \"Ex\"\n");
        try
        {
            o = Garnet.Options.OptionsParser.Parse(["--config", path], TextWriter.Null, out _, out var ignored)!;
            Assert.That(ignored, Is.Empty);
            Assert.That(Garnet.Options.SettingsBuilder.Build(o).NotifyKeyspaceEvents, Is.EqualTo((int)(Garnet.server.PubSub.NotifyClass.Keyevent | Garnet.server.PubSub.NotifyClass.Expired)));
        }
        finally { File.Delete(path); }
    }

    [Test]
    public void KeyspaceAndKeyeventChannels()
    {
        SetClasses("KE$g");
        using var c = C();
        using var sub = Subscriber("__key*");
        c.Execute("SELECT", "3");
        Assert.That(Run(c, sub, "SET kc:k v", "DEL kc:k"), Is.EqualTo(new[]
        {
            "__keyspace@3__:kc:k set", "3 set kc:k", "__keyspace@3__:kc:k del", "3 del kc:k",
        }));
        SetClasses("K$");
        Assert.That(Run(c, sub, "SET kc:k v", "DEL kc:k"), Is.EqualTo(new[] { "__keyspace@3__:kc:k set" }), "only K, only strings");
    }

    [Test]
    public void StringEvents()
    {
        SetClasses("KEA");
        using var c = C();
        using var sub = Subscriber();
        Assert.That(Run(c, sub,
            "SET s:k v", "SET s:k v2 EX 100", "SET s:k v NX", "SETNX s:k2 v", "GETSET s:k2 x", "GETDEL s:k2", "GETDEL s:k2",
            "GETEX s:k EX 50", "GETEX s:k PERSIST", "GETEX s:k PERSIST", "APPEND s:k abc", "SETRANGE s:k 0 zz", "INCR s:n",
            "DECRBY s:n 5", "INCRBYFLOAT s:n 1.5", "MSET s:a 1 s:b 2", "MSETNX s:a 1 s:c 2", "SETEX s:e 100 v",
            "SETBIT s:bits 3 1", "BITOP AND s:dest s:bits s:a", "BITOP AND s:dest s:none", "BITFIELD s:bf SET u8 0 5",
            "BITFIELD s:bf OVERFLOW FAIL INCRBY u2 0 10", "PFADD s:hll a", "PFADD s:hll a", "PFMERGE s:hll2 s:hll"),
            Is.EqualTo(new[]
            {
                "0 set s:k", "0 set s:k", "0 expire s:k", "0 set s:k2", "0 set s:k2", "0 del s:k2", "0 expire s:k", "0 persist s:k",
                "0 append s:k", "0 setrange s:k", "0 incrby s:n", "0 incrby s:n", "0 incrbyfloat s:n", "0 set s:a", "0 set s:b",
                "0 set s:e", "0 expire s:e", "0 setbit s:bits", "0 set s:dest", "0 del s:dest", "0 setbit s:bf", "0 pfadd s:hll",
                "0 pfadd s:hll2",
            }));
    }

    [Test]
    public void GenericEvents()
    {
        using var c = C();
        c.Execute("SET", "g:a", "1");
        c.Execute("SET", "g:b", "1");
        var dump = c.Execute("DUMP", "g:a").Bytes!;
        SetClasses("KEA");
        using var sub = Subscriber("__keyevent@*");
        var events = Run(c, sub, "DEL g:a g:none", "EXPIRE g:b 100", "EXPIRE g:b 100 NX", "PERSIST g:b", "PERSIST g:b",
            "RENAME g:b g:c", "COPY g:c g:d", "MOVE g:d 2", "PEXPIRE g:c -1", "EXPIRE g:none 10");
        Assert.That(events, Is.EqualTo(new[]
        {
            "0 del g:a", "0 expire g:b", "0 persist g:b", "0 rename_from g:b", "0 rename_to g:c", "0 copy_to g:d",
            "0 move_from g:d", "2 move_to g:d", "0 del g:c",
        }));
        c.Execute("RESTORE", "g:r", "0", dump);
        c.Execute("RESTORE", "g:r", "1", dump, "REPLACE", "ABSTTL"); // already expired: the old key goes
        Assert.That(Events(c, sub, "g:"), Is.EqualTo(new[] { "0 restore g:r", "0 del g:r" }));
    }

    [Test]
    public void NewKeysAndKeyMisses()
    {
        SetClasses("KEAnm");
        using var c = C();
        using var sub = Subscriber();
        Assert.That(Run(c, sub, "SET n:k v", "SET n:k w", "RPUSH n:l a", "RPUSH n:l b", "GET n:none", "GET n:k", "RENAME n:k n:l"),
            Is.EqualTo(new[]
            {
                "0 new n:k", "0 set n:k", "0 set n:k", "0 new n:l", "0 rpush n:l", "0 rpush n:l", "0 keymiss n:none",
                "0 new n:l", "0 rename_from n:k", "0 rename_to n:l", // Redis deletes the destination and adds it anew
            }));
    }

    [Test]
    public void ListEvents()
    {
        SetClasses("KEA");
        using var c = C();
        using var sub = Subscriber();
        Assert.That(Run(c, sub, "LPUSH l:l a b", "RPUSH l:l c", "LPUSHX l:none a", "LINSERT l:l BEFORE a x", "LINSERT l:l BEFORE nope x",
            "LSET l:l 0 y", "LREM l:l 1 y", "LTRIM l:l 0 -1", "LPOP l:l", "RPOP l:l 5",
            "RPUSH l:2 a b c", "LMOVE l:2 l:3 LEFT RIGHT", "RPOPLPUSH l:2 l:3", "LMOVE l:2 l:3 LEFT LEFT", "LMPOP 2 l:none l:3 RIGHT COUNT 1",
            "BLPOP l:none l:3 1"),
            Is.EqualTo(new[]
            {
                "0 lpush l:l", "0 rpush l:l", "0 linsert l:l", "0 lset l:l", "0 lrem l:l", "0 ltrim l:l", "0 lpop l:l",
                "0 rpop l:l", "0 del l:l", "0 rpush l:2", "0 rpush l:3", "0 lpop l:2", "0 lpush l:3", "0 rpop l:2",
                "0 lpush l:3", "0 lpop l:2", "0 del l:2", "0 rpop l:3", "0 lpop l:3",
            }));
    }

    [Test]
    public void ServedBlockedClientAnnouncesItsPop()
    {
        SetClasses("KEl");
        using var c = C();
        using var waiter = C();
        using var sub = Subscriber();
        waiter.Send("BRPOP", "bl:l", "0");
        var deadline = DateTime.UtcNow.AddSeconds(10);
        while (new InfoText(c.Execute("INFO", "clients").Text!).Long("blocked_clients") == 0 && DateTime.UtcNow < deadline) Thread.Sleep(10);
        c.Execute("LPUSH", "bl:l", "x");
        Assert.That(waiter.Read().Elements!.Select(e => e.Text), Is.EqualTo(new[] { "bl:l", "x" }));
        // The waiter's events come from its own thread: wait for them before the sentinel.
        var first = sub.Read();
        var second = sub.Read();
        Assert.That(new[] { first, second }.Select(m => m.Elements![2].Text + " " + m.Elements[3].Text),
            Is.EqualTo(new[] { "__keyevent@0__:lpush bl:l", "__keyevent@0__:rpop bl:l" }));
    }

    [Test]
    public void HashSetAndSortedSetEvents()
    {
        SetClasses("KEA");
        using var c = C();
        using var sub = Subscriber();
        Assert.That(Run(c, sub, "HSET h:h f v g w", "HSET h:h f v", "HSETNX h:h f v", "HSETNX h:h z v", "HINCRBY h:h n 2",
            "HINCRBYFLOAT h:h m 1.5", "HDEL h:h nope", "HDEL h:h f g z n m"),
            Is.EqualTo(new[] { "0 hset h:h", "0 hset h:h", "0 hset h:h", "0 hincrby h:h", "0 hincrbyfloat h:h", "0 hdel h:h", "0 del h:h" }));
        Assert.That(Run(c, sub, "SADD t:s a b", "SADD t:s a", "SREM t:s x", "SREM t:s a", "SPOP t:s", "SADD t:2 a b", "SPOP t:2 0",
            "SADD t:4 q", "SMOVE t:4 t:5 q", "SADD t:x1 a b", "SADD t:x2 b c", "SINTERSTORE t:i t:x1 t:x2", "SUNIONSTORE t:u t:x1 t:x2",
            "SDIFFSTORE t:d t:x1 t:x2", "SINTERSTORE t:i t:x1 t:none"),
            Is.EqualTo(new[]
            {
                "0 sadd t:s", "0 srem t:s", "0 spop t:s", "0 del t:s", "0 sadd t:2", "0 sadd t:4", "0 srem t:4", "0 del t:4",
                "0 sadd t:5", "0 sadd t:x1", "0 sadd t:x2", "0 sinterstore t:i", "0 sunionstore t:u", "0 sdiffstore t:d", "0 del t:i",
            }));
        Assert.That(Run(c, sub, "ZADD z:z 1 a 2 b", "ZADD z:z 1 a", "ZADD z:z 3 a", "ZADD z:z INCR 1 a", "ZINCRBY z:z 1 b", "ZREM z:z nope",
            "ZREM z:z a", "ZADD z:z 1 c 2 d", "ZREMRANGEBYSCORE z:z 1 1", "ZREMRANGEBYRANK z:z 0 0", "ZREMRANGEBYLEX z:z [a [z",
            "ZADD z:2 1 a 2 b 3 c", "ZPOPMIN z:2", "ZPOPMAX z:2 5", "ZADD z:3 1 a 2 b", "ZADD z:4 1 b", "ZINTERSTORE z:i 2 z:3 z:4",
            "ZUNIONSTORE z:u 2 z:3 z:4", "ZDIFFSTORE z:d 2 z:3 z:4", "ZRANGESTORE z:r z:3 0 -1", "ZRANGESTORE z:r z:3 5 6",
            "ZMPOP 1 z:3 MIN COUNT 5"),
            Is.EqualTo(new[]
            {
                "0 zadd z:z", "0 zadd z:z", "0 zincr z:z", "0 zincr z:z", "0 zrem z:z", "0 zadd z:z", "0 zremrangebyscore z:z",
                "0 zremrangebyrank z:z", "0 zremrangebylex z:z", "0 del z:z", "0 zadd z:2", "0 zpopmin z:2", "0 zpopmax z:2", "0 del z:2",
                "0 zadd z:3", "0 zadd z:4", "0 zinterstore z:i", "0 zunionstore z:u", "0 zdiffstore z:d", "0 zrangestore z:r",
                "0 del z:r", "0 zpopmin z:3", "0 del z:3",
            }));
    }

    [Test, CancelAfter(60_000)]
    public void ExpiredOnceWhetherLazyOrActive()
    {
        SetClasses("Ex");
        using var c = C();
        using var sub = Subscriber();
        // Read right after expiry (usually before active expiry's next 100 ms tick), and never read: each announced once.
        for (int i = 0; i < 20; i++) c.Execute("SET", "x:lazy" + i, "v", "PX", "1");
        for (int i = 0; i < 20; i++) c.Execute("SET", "x:active" + i, "v", "PX", "1");
        c.Execute("RPUSH", "x:list", "a");
        c.Execute("PEXPIRE", "x:list", "1");
        Thread.Sleep(5);
        for (int i = 0; i < 20; i++) Assert.That(c.Execute("GET", "x:lazy" + i).IsNull);
        Assert.That(c.Execute("LPUSH", "x:list", "b").Integer, Is.EqualTo(1), "an expired list is a new one");
        var got = new List<string>();
        var deadline = DateTime.UtcNow.AddSeconds(20);
        while (got.Count < 41 && DateTime.UtcNow < deadline)
        {
            var m = sub.Read();
            Assert.That(m.Elements![2].Text, Is.EqualTo("__keyevent@0__:expired"));
            if (m.Elements[3].Text!.StartsWith("x:")) got.Add(m.Elements[3].Text!);
        }
        Assert.That(got.OrderBy(x => x, StringComparer.Ordinal), Is.EqualTo(
            Enumerable.Range(0, 20).SelectMany(i => new[] { "x:active" + i, "x:lazy" + i }).Append("x:list").OrderBy(x => x, StringComparer.Ordinal)));
        // No second announcement, and nothing for the live list: two more active-expiry ticks run (each deletes and
        // announces a marker key set after the previous marker's event), and no "x:" event comes before the second's.
        var late = new List<string>();
        foreach (var marker in new[] { "marker:1", "marker:2" })
        {
            c.Execute("SET", marker, "v", "PX", "1");
            for (string key = ""; key != marker;)
            {
                key = sub.Read().Elements![3].Text!;
                if (key.StartsWith("x:", StringComparison.Ordinal)) late.Add(key);
            }
        }
        Assert.That(late, Is.Empty, "announced again");
        Assert.That(Events(c, sub, "x:"), Is.Empty);
        Assert.That(new InfoText(c.Execute("INFO", "stats").Text!).Long("expired_keys"), Is.GreaterThanOrEqualTo(40));
    }

    [Test]
    public void LazyExpiryAnnouncesOnAccess()
    {
        // The server's clock runs 200 s ahead: commands find the keys expired, active expiry (wall clock) does not, so
        // only an access can delete and announce them: before that access's own events.
        using var c = C();
        c.Execute("SET", "lz:get", "v", "EX", "100");
        c.Execute("SET", "lz:set", "v", "EX", "100");
        c.Execute("HSET", "lz:hash", "f", "v");
        c.Execute("EXPIRE", "lz:hash", "100");
        c.Execute("SET", "lz:del", "v", "EX", "100");
        SetClasses("KEAm");
        using var sub = Subscriber();
        var clock = _server.Server.Server.Store.Clock;
        clock.Set(DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() + 200_000);
        try
        {
            Assert.That(Run(c, sub, "GET lz:get", "GET lz:get", "SET lz:set w", "HSET lz:hash g w", "DEL lz:del"), Is.EqualTo(new[]
            {
                "0 expired lz:get", "0 keymiss lz:get", "0 keymiss lz:get", "0 expired lz:set", "0 set lz:set",
                "0 expired lz:hash", "0 hset lz:hash", "0 expired lz:del",
            }));
        }
        finally { clock.Release(); }
        Assert.That(c.Execute("HGETALL", "lz:hash").Elements, Has.Length.EqualTo(2), "a new hash, without the expired field");
        Assert.That(c.Execute("TTL", "lz:set").Integer, Is.EqualTo(-1));
    }

    [Test]
    public void Resp3SubscriberSeesItsOwnEventsAfterTheReply()
    {
        SetClasses("E$");
        using var c = C();
        c.Execute("HELLO", "3");
        c.Send("SUBSCRIBE", "__keyevent@0__:set");
        c.Read();
        c.Send("SET", "self:k", "v");
        RespAssert.Simple(c.Read(), "OK");
        var push = c.Read();
        Assert.That(push.Type, Is.EqualTo(RespType.Push));
        Assert.That(push.Elements!.Select(e => e.Text), Is.EqualTo(new[] { "message", "__keyevent@0__:set", "self:k" }));
    }
}
