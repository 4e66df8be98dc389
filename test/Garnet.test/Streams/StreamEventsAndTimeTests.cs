// Stream keyspace events (Redis's names: xadd, xtrim, xdel, xgroup-create, xgroup-createconsumer, xgroup-delconsumer,
// xgroup-setid, xgroup-destroy, xsetid; class t), and the commands that depend on time (idle times of XPENDING,
// XCLAIM and XAUTOCLAIM's min-idle-time, XCLAIM IDLE/TIME, XINFO CONSUMERS) under the server's injectable clock.
using Garnet.client;

namespace Garnet.test.Streams;

[TestFixture]
public class StreamEventsAndTimeTests : ServerFixture
{
    private RespClient C() => _server.Client();

    [Test]
    public void KeyspaceEvents()
    {
        using var c = C();
        c.Execute("CONFIG", "SET", "notify-keyspace-events", "Et");
        try
        {
            using var sub = C();
            sub.Send("SUBSCRIBE", "__keyevent@0__:xadd", "__keyevent@0__:xtrim", "__keyevent@0__:xdel", "__keyevent@0__:xgroup-create",
                "__keyevent@0__:xgroup-createconsumer", "__keyevent@0__:xgroup-delconsumer", "__keyevent@0__:xgroup-setid",
                "__keyevent@0__:xgroup-destroy", "__keyevent@0__:xsetid", "sentinel");
            for (int i = 0; i < 10; i++) sub.Read();
            c.Execute("XADD", "ev:s", "1-1", "f", "v");
            c.Execute("XADD", "ev:s", "MAXLEN", "1", "2-1", "f", "v");   // xadd, then xtrim
            c.Execute("XDEL", "ev:s", "9-9");                            // nothing deleted: no event
            c.Execute("XDEL", "ev:s", "2-1");
            c.Execute("XGROUP", "CREATE", "ev:s", "g", "0");
            c.Execute("XGROUP", "CREATECONSUMER", "ev:s", "g", "c");
            c.Execute("XGROUP", "CREATECONSUMER", "ev:s", "g", "c");     // exists: no event
            c.Execute("XGROUP", "DELCONSUMER", "ev:s", "g", "c");
            c.Execute("XGROUP", "SETID", "ev:s", "g", "0");
            c.Execute("XSETID", "ev:s", "5-5");
            c.Execute("XTRIM", "ev:s", "MAXLEN", "0");                   // already empty: no event
            c.Execute("XGROUP", "DESTROY", "ev:s", "g");
            c.Execute("PUBLISH", "sentinel", "end");
            var events = new List<string>();
            while (true)
            {
                var m = sub.Read().Elements!.Select(e => e.Text).ToArray();
                if (m[1] == "sentinel") break;
                events.Add(m[1]!["__keyevent@0__:".Length..] + " " + m[2]);
            }
            Assert.That(events, Is.EqualTo(new[]
            {
                "xadd ev:s", "xadd ev:s", "xtrim ev:s", "xdel ev:s", "xgroup-create ev:s", "xgroup-createconsumer ev:s",
                "xgroup-delconsumer ev:s", "xgroup-setid ev:s", "xsetid ev:s", "xgroup-destroy ev:s",
            }));
        }
        finally { c.Execute("CONFIG", "SET", "notify-keyspace-events", ""); }
    }

    [Test]
    public void IdleTimesFollowTheServerClock()
    {
        using var c = C();
        var clock = _server.Server.Server.Store.Clock;
        long t0 = 1_800_000_000_000;
        clock.Set(t0);
        try
        {
            c.Execute("XADD", "tm:s", "1-1", "f", "a");
            c.Execute("XADD", "tm:s", "2-1", "f", "b");
            c.Execute("XADD", "tm:s", "3-1", "f", "c");
            c.Execute("XGROUP", "CREATE", "tm:s", "g", "0");
            c.Execute("XREADGROUP", "GROUP", "g", "alice", "COUNT", "1", "STREAMS", "tm:s", ">");
            clock.Set(t0 + 10_000);
            c.Execute("XREADGROUP", "GROUP", "g", "bob", "STREAMS", "tm:s", ">");
            clock.Set(t0 + 15_000);
            var pel = c.Execute("XPENDING", "tm:s", "g", "-", "+", "10").Elements!;
            Assert.That(pel.Select(p => p.Elements![2].Integer), Is.EqualTo(new long[] { 15_000, 5_000, 5_000 }));
            Assert.That(c.Execute("XPENDING", "tm:s", "g", "IDLE", "6000", "-", "+", "10").Elements!.Select(p => p.Elements![0].Text), Is.EqualTo(new[] { "1-1" }));
            // Only entries idle at least min-idle-time are claimed.
            Assert.That(c.Execute("XCLAIM", "tm:s", "g", "carol", "6000", "1-1", "2-1", "JUSTID").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "1-1" }));
            var auto = c.Execute("XAUTOCLAIM", "tm:s", "g", "dave", "5000", "0", "JUSTID");
            Assert.That(auto.Elements![1].Elements!.Select(e => e.Text), Is.EqualTo(new[] { "2-1", "3-1" }));
            // IDLE sets the delivery time in the past; TIME sets it absolutely.
            c.Execute("XCLAIM", "tm:s", "g", "dave", "0", "2-1", "IDLE", "2500");
            c.Execute("XCLAIM", "tm:s", "g", "dave", "0", "3-1", "TIME", (t0 + 14_000).ToString());
            clock.Set(t0 + 16_000);
            pel = c.Execute("XPENDING", "tm:s", "g", "-", "+", "10").Elements!;
            Assert.That(pel.Select(p => p.Elements![2].Integer), Is.EqualTo(new long[] { 1_000, 3_500, 2_000 }));
            var consumers = c.Execute("XINFO", "CONSUMERS", "tm:s", "g").Elements!;
            var alice = consumers[0].Elements!;
            Assert.That(alice[1].Text + " idle " + alice[5].Integer + " inactive " + alice[7].Integer, Is.EqualTo("alice idle 16000 inactive 16000"));
        }
        finally { clock.Release(); }
    }
}
