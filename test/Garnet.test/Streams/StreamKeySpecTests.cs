// XREAD/XREADGROUP name their keys after STREAMS (CommandDefinition.KeysAfterKeyword): only the stream keys are keys for
// WATCH, locking and client tracking, not the group, consumer, option or ID arguments. (COMMAND GETKEYS and COMMAND INFO
// are compared with redis-server in RedisStreamCompatTests.KeySpecsMatchRedis.)
using Garnet.client;

namespace Garnet.test.Streams;

[TestFixture]
public class StreamKeySpecTests : ServerFixture
{
    private RespClient C() => new("127.0.0.1", _server.Port, 10000);

    [Test]
    public void XReadGroupTouchesNoWatchedKeyNamedLikeItsOtherArguments()
    {
        using var watcher = C();
        using var reader = C();
        reader.Execute("XADD", "ksw:s", "1-1", "f", "v");
        Assert.That(reader.Execute("XGROUP", "CREATE", "ksw:s", "ksw:g", "0").Text, Is.EqualTo("OK"));
        // keys named like every non-key argument of the XREADGROUP below
        Assert.That(watcher.Execute("WATCH", "GROUP", "ksw:g", "ksw:c", "COUNT", "5", "STREAMS", ">").Text, Is.EqualTo("OK"));
        var read = reader.Execute("XREADGROUP", "GROUP", "ksw:g", "ksw:c", "COUNT", "5", "STREAMS", "ksw:s", ">");
        Assert.That(read.Elements![0].Elements![0].Text, Is.EqualTo("ksw:s"), "the entry was delivered (the group changed)");
        watcher.Execute("MULTI");
        watcher.Execute("SET", "ksw:x", "1");
        var exec = watcher.Execute("EXEC");
        Assert.That(exec.IsNullArray, Is.False, "no watched key was a key of XREADGROUP");
        Assert.That(exec.Elements![0].Text, Is.EqualTo("OK"));

        // the stream key itself is one: an XADD to it breaks a WATCH on it
        watcher.Execute("WATCH", "ksw:s");
        reader.Execute("XADD", "ksw:s", "2-1", "f", "v");
        watcher.Execute("MULTI");
        watcher.Execute("SET", "ksw:x", "2");
        Assert.That(watcher.Execute("EXEC").IsNullArray, Is.True);
    }

    [Test]
    public void XReadTracksOnlyTheStreamKeys()
    {
        using var tracker = C();
        using var writer = C();
        writer.Execute("XADD", "kst:s", "1-1", "f", "v");
        Assert.That(tracker.Execute("HELLO", "3").Elements, Is.Not.Null);
        Assert.That(tracker.Execute("CLIENT", "TRACKING", "ON").Text, Is.EqualTo("OK"));
        var read = tracker.Execute("XREAD", "COUNT", "1", "STREAMS", "kst:s", "0");
        Assert.That(read.Elements, Is.Not.Null);
        // a write to a key named like XREAD's ID argument sends no invalidation; one to the stream does
        writer.Execute("SET", "0", "x");
        writer.Execute("XADD", "kst:s", "2-1", "f", "v");
        var push = tracker.Read();
        Assert.That(push.Elements![0].Text, Is.EqualTo("invalidate"));
        Assert.That(push.Elements![1].Elements!.Select(e => e.Text), Is.EqualTo(new[] { "kst:s" }), "the first invalidation is the stream's");
        writer.Execute("DEL", "0");
    }
}
