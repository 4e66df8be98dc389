// CLIENT TRACKING (server-assisted client-side caching) through raw RESP3 sockets: invalidations pushed without the
// tracking client sending anything, one-shot per read, NOLOOP, BCAST prefixes, OPTIN/OPTOUT with CLIENT CACHING,
// redirection (and its breaking), flushes, and Redis's errors.
using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class ClientTrackingTests : ServerFixture
{
    private RespClient Resp3()
    {
        var c = _server.Client();
        c.Execute("HELLO", "3");
        return c;
    }

    /// <summary>The next push must be an invalidation of exactly keys (null: of everything).</summary>
    private static void ExpectInvalidation(RespClient c, params string[]? keys)
    {
        var push = c.Read();
        Assert.That(push.Type, Is.EqualTo(RespType.Push), "an invalidation push, got " + push);
        Assert.That(push.Elements![0].Text, Is.EqualTo("invalidate"));
        if (keys is null) Assert.That(push.Elements[1].IsNull, "a flush invalidates everything (null)");
        else Assert.That(push.Elements[1].Elements!.Select(e => e.Text), Is.EqualTo(keys));
    }

    /// <summary>Nothing was pushed before: the next reply is PING's.</summary>
    private static void ExpectNothingPushed(RespClient c)
    {
        var r = c.Execute("PING");
        Assert.That(r.Text, Is.EqualTo("PONG"), "no push was pending, got " + r);
    }

    [Test]
    public void ReadKeysAreInvalidatedOnceWhenAnotherClientWritesThem()
    {
        using var a = Resp3();
        using var b = _server.Client();
        b.Execute("SET", "ct1:k", "1");
        Assert.That(a.Execute("CLIENT", "TRACKING", "ON").Text, Is.EqualTo("OK"));
        Assert.That(a.Execute("GET", "ct1:k").Text, Is.EqualTo("1"));
        a.Execute("HGETALL", "ct1:h");
        b.Execute("SET", "ct1:k", "2");
        ExpectInvalidation(a, "ct1:k"); // pushed without a sending anything
        b.Execute("SET", "ct1:k", "3");
        ExpectNothingPushed(a); // one-shot: not read again since
        b.Execute("HSET", "ct1:h", "f", "v");
        ExpectInvalidation(a, "ct1:h");
        b.Execute("SET", "ct1:unread", "x");
        ExpectNothingPushed(a);
        // Off: nothing more.
        a.Execute("GET", "ct1:k");
        Assert.That(a.Execute("CLIENT", "TRACKING", "OFF").Text, Is.EqualTo("OK"));
        b.Execute("SET", "ct1:k", "4");
        ExpectNothingPushed(a);
    }

    [Test]
    public void OwnWritesAndNoLoop()
    {
        using var a = Resp3();
        a.Execute("CLIENT", "TRACKING", "ON");
        a.Execute("GET", "ct2:k");
        Assert.That(a.Execute("SET", "ct2:k", "1").Text, Is.EqualTo("OK"), "the reply comes before the invalidation");
        ExpectInvalidation(a, "ct2:k");
        a.Execute("CLIENT", "TRACKING", "ON", "NOLOOP");
        a.Execute("GET", "ct2:k");
        a.Execute("SET", "ct2:k", "2");
        ExpectNothingPushed(a);
        a.Execute("GET", "ct2:k"); // as Redis: the own write dropped the entry (unsent); read again to be tracked again
        using var b = _server.Client();
        b.Execute("SET", "ct2:k", "3");
        ExpectInvalidation(a, "ct2:k");
    }

    [Test]
    public void BroadcastPrefixes()
    {
        using var a = Resp3();
        using var b = _server.Client();
        Assert.That(a.Execute("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "ct3:user:", "PREFIX", "ct3:cfg").Text, Is.EqualTo("OK"));
        b.Execute("SET", "ct3:user:1", "x"); // never read by a: BCAST does not need reads
        ExpectInvalidation(a, "ct3:user:1");
        b.Execute("SET", "ct3:other", "x");
        ExpectNothingPushed(a);
        b.Execute("DEL", "ct3:cfg");
        ExpectNothingPushed(a); // DEL of a missing key changed nothing
        b.Execute("SET", "ct3:cfgx", "1");
        ExpectInvalidation(a, "ct3:cfgx");
        var info = a.Execute("CLIENT", "TRACKINGINFO");
        var map = Enumerable.Range(0, info.Elements!.Length / 2).ToDictionary(i => info.Elements[2 * i].Text!, i => info.Elements[2 * i + 1]);
        Assert.That(map["flags"].Elements!.Select(e => e.Text), Is.EqualTo(new[] { "on", "bcast" }));
        Assert.That(map["prefixes"].Elements!.Select(e => e.Text).Order(), Is.EqualTo(new[] { "ct3:cfg", "ct3:user:" }));
        Assert.That(a.Execute("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "ct3:user:1").Text,
            Is.EqualTo("ERR Prefix 'ct3:user:1' overlaps with an existing prefix 'ct3:user:'. Prefixes for a single client must not overlap."));
        Assert.That(a.Execute("CLIENT", "TRACKING", "ON").Text, Does.StartWith("ERR You can't switch BCAST mode on/off"));
    }

    [Test]
    public void OptInAndOptOut()
    {
        using var a = Resp3();
        using var b = _server.Client();
        a.Execute("CLIENT", "TRACKING", "ON", "OPTIN");
        a.Execute("GET", "ct4:notcached");
        Assert.That(a.Execute("CLIENT", "CACHING", "YES").Text, Is.EqualTo("OK"));
        a.Execute("GET", "ct4:cached");
        a.Execute("GET", "ct4:after"); // CACHING YES covered the one command after it only
        b.Execute("MSET", "ct4:notcached", "1", "ct4:after", "1");
        ExpectNothingPushed(a);
        b.Execute("SET", "ct4:cached", "1");
        ExpectInvalidation(a, "ct4:cached");
        Assert.That(a.Execute("CLIENT", "CACHING", "NO").Text, Is.EqualTo("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode."));
        a.Execute("CLIENT", "TRACKING", "OFF");
        a.Execute("CLIENT", "TRACKING", "ON", "OPTOUT");
        a.Execute("CLIENT", "CACHING", "NO");
        a.Execute("GET", "ct4:skipped");
        a.Execute("GET", "ct4:tracked");
        b.Execute("SET", "ct4:skipped", "1");
        ExpectNothingPushed(a);
        b.Execute("SET", "ct4:tracked", "1");
        ExpectInvalidation(a, "ct4:tracked");
    }

    [Test]
    public void RedirectionFlushesAndErrors()
    {
        using var a = _server.Client();
        using var b = _server.Client();
        var target = Resp3();
        long targetId = target.Execute("CLIENT", "ID").Integer;
        Assert.That(a.Execute("CLIENT", "TRACKING", "ON", "REDIRECT", targetId.ToString()).Text, Is.EqualTo("OK"));
        Assert.That(a.Execute("CLIENT", "GETREDIR").Integer, Is.EqualTo(targetId));
        a.Execute("GET", "ct5:k");
        b.Execute("SET", "ct5:k", "1");
        ExpectInvalidation(target, "ct5:k"); // to the redirection, not to RESP2 a
        Assert.That(a.Execute("PING").Text, Is.EqualTo("PONG"));
        a.Execute("GET", "ct5:k");
        b.Execute("FLUSHALL");
        ExpectInvalidation(target, null);
        // The redirection goes away: a RESP3 client is told; TRACKINGINFO shows it.
        using var c = Resp3();
        c.Execute("CLIENT", "TRACKING", "ON", "REDIRECT", targetId.ToString());
        c.Execute("GET", "ct5:j");
        target.Dispose();
        for (int i = 0; i < 2000 && b.Execute("CLIENT", "LIST", "ID", targetId.ToString()).Text!.Length > 0; i++) Thread.Sleep(10);
        Assert.That(b.Execute("CLIENT", "LIST", "ID", targetId.ToString()).Text, Is.Empty, "the server saw the target close");
        b.Execute("SET", "ct5:j", "1");
        var broken = c.Read();
        Assert.That(broken.Type, Is.EqualTo(RespType.Push));
        Assert.That(broken.Elements![0].Text, Is.EqualTo("tracking-redir-broken"));
        Assert.That(broken.Elements[1].Integer, Is.EqualTo(targetId));
        var info = c.Execute("CLIENT", "TRACKINGINFO");
        Assert.That(info.Elements![1].Elements!.Select(e => e.Text), Does.Contain("broken_redirect"));
        // Errors, as Redis words them.
        Assert.That(a.Execute("CLIENT", "TRACKING", "ON", "REDIRECT", "999999").Text, Is.EqualTo("ERR The client ID you want redirect to does not exist"));
        Assert.That(a.Execute("CLIENT", "TRACKING", "ON", "PREFIX", "x").Text, Is.EqualTo("ERR PREFIX option requires BCAST mode to be enabled"));
        Assert.That(b.Execute("CLIENT", "TRACKING", "ON", "OPTIN", "OPTOUT").Text, Is.EqualTo("ERR You can't specify both OPTIN mode and OPTOUT mode"));
        Assert.That(b.Execute("CLIENT", "TRACKING", "ON", "BCAST", "OPTIN").Text, Is.EqualTo("ERR OPTIN and OPTOUT are not compatible with BCAST"));
        Assert.That(b.Execute("CLIENT", "TRACKING", "MAYBE").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(b.Execute("CLIENT", "CACHING", "YES").Text, Is.EqualTo("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled"));
        Assert.That(b.Execute("CLIENT", "GETREDIR").Integer, Is.EqualTo(-1));
        Assert.That(b.Execute("CLIENT", "TRACKINGINFO").Elements![1].Elements!.Select(e => e.Text), Is.EqualTo(new[] { "off" }));
    }

    [Test]
    public void WritesInsideExecInvalidate()
    {
        using var a = Resp3();
        using var b = _server.Client();
        a.Execute("CLIENT", "TRACKING", "ON");
        a.Execute("MGET", "ct6:x", "ct6:y");
        b.Execute("MULTI");
        b.Execute("SET", "ct6:x", "1");
        b.Execute("INCR", "ct6:y");
        b.Execute("EXEC");
        var first = c2(a);
        var second = c2(a);
        Assert.That(new[] { first, second }.Order(), Is.EqualTo(new[] { "ct6:x", "ct6:y" }));

        static string c2(RespClient c)
        {
            var push = c.Read();
            Assert.That(push.Type, Is.EqualTo(RespType.Push));
            return push.Elements![1].Elements![0].Text!;
        }
    }

    [Test]
    public void Resp2RedirectionToASubscribedClient()
    {
        using var a = _server.Client();
        using var b = _server.Client();
        using var sub = _server.Client();
        long subId = sub.Execute("CLIENT", "ID").Integer;
        var confirm = sub.Execute("SUBSCRIBE", "__redis__:invalidate");
        Assert.That(confirm.Elements![0].Text, Is.EqualTo("subscribe"));
        a.Execute("CLIENT", "TRACKING", "ON", "REDIRECT", subId.ToString());
        a.Execute("GET", "ct7:k");
        b.Execute("SET", "ct7:k", "1");
        var m = sub.Read();
        Assert.That(m.Elements!.Length, Is.EqualTo(3));
        Assert.That(m.Elements[0].Text, Is.EqualTo("message"));
        Assert.That(m.Elements[1].Text, Is.EqualTo("__redis__:invalidate"));
        Assert.That(m.Elements[2].Elements!.Select(e => e.Text), Is.EqualTo(new[] { "ct7:k" }));
    }

    [Test]
    public void AnExpiredKeyIsInvalidated()
    {
        using var a = Resp3();
        using var b = _server.Client();
        // A second of TTL: a's GET must find the key before it expires, even on a stalled machine (30 ms could not promise
        // it). A PEXPIRE after the GET would not do: changing the TTL is itself a write that invalidates.
        b.Execute("SET", "ct8:k", "v", "PX", "1000");
        a.Execute("CLIENT", "TRACKING", "ON");
        Assert.That(a.Execute("GET", "ct8:k").Text, Is.EqualTo("v"));
        // Expiry, lazy (b's read meets it) or active: either way a is told once.
        for (int i = 0; i < 1000 && b.Execute("EXISTS", "ct8:k").Integer == 1; i++) Thread.Sleep(10);
        ExpectInvalidation(a, "ct8:k");
    }
}
