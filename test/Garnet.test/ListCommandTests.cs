// Lists through raw RESP: replies, errors and edge cases as Redis 7.2 gives them.
using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class ListCommandTests : ServerFixture
{
    private RespClient C() => new("127.0.0.1", _server.Port);

    private static string[] Texts(RespValue v) => v.Elements!.Select(e => e.Text!).ToArray();

    [Test]
    public void PushPopAndRange()
    {
        using var c = C();
        Assert.That(c.Execute("RPUSH", "l1", "a", "b", "c").Integer, Is.EqualTo(3));
        Assert.That(c.Execute("LPUSH", "l1", "x", "y").Integer, Is.EqualTo(5));
        Assert.That(Texts(c.Execute("LRANGE", "l1", "0", "-1")), Is.EqualTo(new[] { "y", "x", "a", "b", "c" }));
        Assert.That(Texts(c.Execute("LRANGE", "l1", "-2", "100")), Is.EqualTo(new[] { "b", "c" }));
        Assert.That(c.Execute("LRANGE", "l1", "4", "2").Elements, Is.Empty);
        Assert.That(c.Execute("LRANGE", "nosuch", "0", "-1").Elements, Is.Empty);
        Assert.That(c.Execute("LLEN", "l1").Integer, Is.EqualTo(5));
        Assert.That(c.Execute("LINDEX", "l1", "-1").Text, Is.EqualTo("c"));
        Assert.That(c.Execute("LINDEX", "l1", "9").IsNull);
        Assert.That(c.Execute("LPOP", "l1").Text, Is.EqualTo("y"));
        Assert.That(c.Execute("RPOP", "l1").Text, Is.EqualTo("c"));
        Assert.That(Texts(c.Execute("LPOP", "l1", "2")), Is.EqualTo(new[] { "x", "a" }));
        Assert.That(c.Execute("LPOP", "l1", "0").Elements, Is.Empty);
        Assert.That(c.Execute("LPOP", "l1", "-1").Text, Is.EqualTo("ERR value is out of range, must be positive"));
        Assert.That(Texts(c.Execute("RPOP", "l1", "5")), Is.EqualTo(new[] { "b" }));
        Assert.That(c.Execute("EXISTS", "l1").Integer, Is.EqualTo(0), "the last pop deletes the list");
        Assert.That(c.Execute("LPOP", "l1").IsNull);
        var nullArray = c.Execute("LPOP", "l1", "2");
        Assert.That(nullArray.IsNull && nullArray.IsNullArray, "a missing key with COUNT answers a null array");
        Assert.That(c.Execute("LPUSHX", "l1", "a").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("EXISTS", "l1").Integer, Is.EqualTo(0));
        c.Execute("RPUSH", "l1", "z");
        Assert.That(c.Execute("RPUSHX", "l1", "a", "b").Integer, Is.EqualTo(3));
    }

    [Test]
    public void SetInsertRemoveTrim()
    {
        using var c = C();
        c.Execute("RPUSH", "l2", "a", "b", "c", "b", "d", "b");
        Assert.That(c.Execute("LSET", "l2", "0", "A").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("LSET", "l2", "10", "A").Text, Is.EqualTo("ERR index out of range"));
        Assert.That(c.Execute("LSET", "nosuch", "0", "A").Text, Is.EqualTo("ERR no such key"));
        Assert.That(c.Execute("LINSERT", "l2", "BEFORE", "c", "C").Integer, Is.EqualTo(7));
        Assert.That(c.Execute("LINSERT", "l2", "AFTER", "d", "D").Integer, Is.EqualTo(8));
        Assert.That(c.Execute("LINSERT", "l2", "AFTER", "zz", "D").Integer, Is.EqualTo(-1));
        Assert.That(c.Execute("LINSERT", "nosuch", "AFTER", "zz", "D").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("LINSERT", "l2", "MIDDLE", "c", "D").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(Texts(c.Execute("LRANGE", "l2", "0", "-1")), Is.EqualTo(new[] { "A", "b", "C", "c", "b", "d", "D", "b" }));
        Assert.That(c.Execute("LREM", "l2", "-1", "b").Integer, Is.EqualTo(1));
        Assert.That(Texts(c.Execute("LRANGE", "l2", "0", "-1")), Is.EqualTo(new[] { "A", "b", "C", "c", "b", "d", "D" }));
        Assert.That(c.Execute("LREM", "l2", "0", "b").Integer, Is.EqualTo(2));
        Assert.That(c.Execute("LTRIM", "l2", "1", "-2").Text, Is.EqualTo("OK"));
        Assert.That(Texts(c.Execute("LRANGE", "l2", "0", "-1")), Is.EqualTo(new[] { "C", "c", "d" }));
        Assert.That(c.Execute("LTRIM", "l2", "5", "10").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("EXISTS", "l2").Integer, Is.EqualTo(0), "trimmed to nothing: the key goes");
    }

    [Test]
    public void PositionsFollowRedis()
    {
        using var c = C();
        c.Execute("RPUSH", "l3", "a", "b", "c", "1", "2", "3", "c", "c");
        Assert.That(c.Execute("LPOS", "l3", "c").Integer, Is.EqualTo(2));
        Assert.That(c.Execute("LPOS", "l3", "c", "RANK", "2").Integer, Is.EqualTo(6));
        Assert.That(c.Execute("LPOS", "l3", "c", "RANK", "-1").Integer, Is.EqualTo(7));
        Assert.That(c.Execute("LPOS", "l3", "c", "COUNT", "0").Elements!.Select(e => e.Integer), Is.EqualTo(new long[] { 2, 6, 7 }));
        Assert.That(c.Execute("LPOS", "l3", "c", "RANK", "-1", "COUNT", "2").Elements!.Select(e => e.Integer), Is.EqualTo(new long[] { 7, 6 }));
        Assert.That(c.Execute("LPOS", "l3", "c", "COUNT", "0", "MAXLEN", "3").Elements!.Select(e => e.Integer), Is.EqualTo(new long[] { 2 }));
        Assert.That(c.Execute("LPOS", "l3", "zz").IsNull);
        Assert.That(c.Execute("LPOS", "l3", "c", "RANK", "0").Text, Does.StartWith("ERR RANK can't be zero"));
        Assert.That(c.Execute("LPOS", "l3", "c", "COUNT", "-1").Text, Is.EqualTo("ERR COUNT can't be negative"));
        Assert.That(c.Execute("LPOS", "l3", "c", "MAXLEN", "-1").Text, Is.EqualTo("ERR MAXLEN can't be negative"));
    }

    [Test]
    public void MovesBetweenLists()
    {
        using var c = C();
        c.Execute("RPUSH", "src", "1", "2", "3");
        Assert.That(c.Execute("LMOVE", "src", "dst", "LEFT", "RIGHT").Text, Is.EqualTo("1"));
        Assert.That(c.Execute("RPOPLPUSH", "src", "dst").Text, Is.EqualTo("3"));
        Assert.That(Texts(c.Execute("LRANGE", "dst", "0", "-1")), Is.EqualTo(new[] { "3", "1" }));
        Assert.That(c.Execute("LMOVE", "dst", "dst", "LEFT", "RIGHT").Text, Is.EqualTo("3"), "rotation");
        Assert.That(Texts(c.Execute("LRANGE", "dst", "0", "-1")), Is.EqualTo(new[] { "1", "3" }));
        c.Execute("SET", "astring", "x");
        Assert.That(c.Execute("LMOVE", "src", "astring", "LEFT", "LEFT").Text, Does.StartWith("WRONGTYPE"));
        Assert.That(Texts(c.Execute("LRANGE", "src", "0", "-1")), Is.EqualTo(new[] { "2" }), "a wrong destination leaves the source alone");
        Assert.That(c.Execute("LMOVE", "src", "dst", "UP", "LEFT").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("LMOVE", "nosuch", "dst", "LEFT", "LEFT").IsNull);
        var popped = c.Execute("LMPOP", "3", "nosuch", "src", "dst", "RIGHT", "COUNT", "5");
        Assert.That(popped.Elements![0].Text, Is.EqualTo("src"));
        Assert.That(Texts(popped.Elements[1]), Is.EqualTo(new[] { "2" }));
        Assert.That(c.Execute("LMPOP", "1", "nosuch", "LEFT").IsNull);
        Assert.That(c.Execute("LMPOP", "0", "dst", "LEFT").Text, Is.EqualTo("ERR numkeys should be greater than 0"));
        Assert.That(c.Execute("LMPOP", "1", "dst", "LEFT", "COUNT", "0").Text, Is.EqualTo("ERR count should be greater than 0"));
    }

    [Test]
    public void KeyCommandsAndEncodings()
    {
        using var c = C();
        c.Execute("RPUSH", "l4", "a", "b");
        Assert.That(c.Execute("TYPE", "l4").Text, Is.EqualTo("list"));
        Assert.That(c.Execute("OBJECT", "ENCODING", "l4").Text, Is.EqualTo("listpack"));
        for (int i = 0; i < 2000; i++) c.Send("RPUSH", "l4", new string('x', 20));
        for (int i = 0; i < 2000; i++) c.Read();
        Assert.That(c.Execute("OBJECT", "ENCODING", "l4").Text, Is.EqualTo("quicklist"));
        var dump = c.Execute("DUMP", "l4");
        Assert.That(c.Execute("RESTORE", "l5", "0", dump.Bytes!).Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("LLEN", "l5").Integer, Is.EqualTo(2002));
        Assert.That(c.Execute("LINDEX", "l5", "1").Text, Is.EqualTo("b"));
    }
}
