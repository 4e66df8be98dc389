// Sets through raw RESP: replies, errors and edge cases as Redis 7.2 gives them, encodings as Redis decides them,
// WRONGTYPE, RESP3 reply types, key commands and DUMP/RESTORE on sets.
using System.Text;
using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class SetCommandTests : ServerFixture
{
    private const string WrongType = "WRONGTYPE Operation against a key holding the wrong kind of value";

    private RespClient C() => new("127.0.0.1", _server.Port);

    private static string[] Texts(RespValue v) => v.Elements!.Select(e => e.Text!).ToArray();

    private static string[] Sorted(RespValue v) => Texts(v).OrderBy(t => t, StringComparer.Ordinal).ToArray();

    private static object[] Cmd(params object[] head) => head;

    [Test]
    public void AddRemoveAndMembership()
    {
        using var c = C();
        Assert.That(c.Execute("SADD", "s1", "a", "b", "c", "a").Integer, Is.EqualTo(3), "a repeated argument counts once");
        Assert.That(c.Execute("SADD", "s1", "c", "d").Integer, Is.EqualTo(1), "only new members count");
        Assert.That(c.Execute("SCARD", "s1").Integer, Is.EqualTo(4));
        Assert.That(c.Execute("SCARD", "nosuch").Integer, Is.EqualTo(0));
        Assert.That(Sorted(c.Execute("SMEMBERS", "s1")), Is.EqualTo(new[] { "a", "b", "c", "d" }));
        var none = c.Execute("SMEMBERS", "nosuch");
        Assert.That(none.Type, Is.EqualTo(RespType.Array));
        Assert.That(none.Elements, Is.Empty);
        Assert.That(c.Execute("SISMEMBER", "s1", "b").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("SISMEMBER", "s1", "z").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("SISMEMBER", "nosuch", "z").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("SMISMEMBER", "s1", "a", "z", "d").Elements!.Select(e => e.Integer), Is.EqualTo(new long[] { 1, 0, 1 }));
        Assert.That(c.Execute("SMISMEMBER", "nosuch", "a", "b").Elements!.Select(e => e.Integer), Is.EqualTo(new long[] { 0, 0 }));
        Assert.That(c.Execute("SREM", "s1", "a", "zz", "a").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("SREM", "nosuch", "a").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("SREM", "s1", "b", "c", "d").Integer, Is.EqualTo(3));
        Assert.That(c.Execute("EXISTS", "s1").Integer, Is.EqualTo(0), "Redis never keeps an empty set");
        Assert.That(c.Execute("SADD", "s1").Text, Is.EqualTo("ERR wrong number of arguments for 'sadd' command"));
        Assert.That(c.Execute("SISMEMBER", "s1").Text, Is.EqualTo("ERR wrong number of arguments for 'sismember' command"));
        // Binary members: arbitrary bytes, empty member allowed.
        var bin = new byte[] { 0, 255, 13, 10 };
        Assert.That(c.Execute("SADD", "s1b", bin, "").Integer, Is.EqualTo(2));
        Assert.That(c.Execute("SISMEMBER", "s1b", bin).Integer, Is.EqualTo(1));
        Assert.That(c.Execute("SISMEMBER", "s1b", "").Integer, Is.EqualTo(1));
    }

    [Test]
    public void EncodingsFollowRedis()
    {
        using var c = C();
        c.Execute("SADD", "e1", "3", "1", "-2", "10");
        Assert.That(c.Execute("OBJECT", "ENCODING", "e1").Text, Is.EqualTo("intset"));
        Assert.That(Texts(c.Execute("SMEMBERS", "e1")), Is.EqualTo(new[] { "-2", "1", "3", "10" }), "an intset lists in numeric order");
        c.Execute("SADD", "e1", "x");
        Assert.That(c.Execute("OBJECT", "ENCODING", "e1").Text, Is.EqualTo("listpack"));
        c.Execute("SREM", "e1", "x");
        Assert.That(c.Execute("OBJECT", "ENCODING", "e1").Text, Is.EqualTo("listpack"), "never converts back");

        // Only canonical 64-bit decimals are integers (Redis's string2ll).
        foreach (var notInt in new[] { "01", "+1", "-0", " 1", "1.0", "9223372036854775808", "-9223372036854775809" })
        {
            c.Execute("DEL", "e2");
            c.Execute("SADD", "e2", notInt);
            Assert.That(c.Execute("OBJECT", "ENCODING", "e2").Text, Is.EqualTo("listpack"), notInt);
        }
        c.Execute("DEL", "e2");
        c.Execute("SADD", "e2", "9223372036854775807", "-9223372036854775808", "0");
        Assert.That(c.Execute("OBJECT", "ENCODING", "e2").Text, Is.EqualTo("intset"));

        // More than set-max-intset-entries (512) integers: hashtable.
        for (int i = 0; i < 512; i++) c.Send("SADD", "e3", i.ToString());
        for (int i = 0; i < 512; i++) c.Read();
        Assert.That(c.Execute("OBJECT", "ENCODING", "e3").Text, Is.EqualTo("intset"));
        c.Execute("SADD", "e3", "512");
        Assert.That(c.Execute("OBJECT", "ENCODING", "e3").Text, Is.EqualTo("hashtable"));
        c.Execute("SREM", "e3", "1", "2", "3");
        Assert.That(c.Execute("OBJECT", "ENCODING", "e3").Text, Is.EqualTo("hashtable"));

        // set-max-listpack-entries (128) strings, then one more.
        for (int i = 0; i < 128; i++) c.Send("SADD", "e4", "m" + i);
        for (int i = 0; i < 128; i++) c.Read();
        Assert.That(c.Execute("OBJECT", "ENCODING", "e4").Text, Is.EqualTo("listpack"));
        c.Execute("SADD", "e4", "m128");
        Assert.That(c.Execute("OBJECT", "ENCODING", "e4").Text, Is.EqualTo("hashtable"));

        // A member longer than set-max-listpack-value (64).
        c.Execute("SADD", "e5", new string('x', 64));
        Assert.That(c.Execute("OBJECT", "ENCODING", "e5").Text, Is.EqualTo("listpack"));
        c.Execute("SADD", "e5", new string('y', 65));
        Assert.That(c.Execute("OBJECT", "ENCODING", "e5").Text, Is.EqualTo("hashtable"));

        // An intset of 128 members meeting a string: past the listpack limit, so hashtable.
        for (int i = 0; i < 128; i++) c.Send("SADD", "e6", i.ToString());
        for (int i = 0; i < 128; i++) c.Read();
        c.Execute("SADD", "e6", "s");
        Assert.That(c.Execute("OBJECT", "ENCODING", "e6").Text, Is.EqualTo("hashtable"));

        // SADD's argument count is a size hint (setTypeCreate / setTypeMaybeConvert), even with repeats.
        var many = Cmd("SADD", "e7").Concat(Enumerable.Repeat((object)"dup", 200)).ToArray();
        Assert.That(c.Execute(many).Integer, Is.EqualTo(1));
        Assert.That(c.Execute("OBJECT", "ENCODING", "e7").Text, Is.EqualTo("hashtable"));
        c.Execute("SADD", "e8", "a");
        Assert.That(c.Execute(Cmd("SADD", "e8").Concat(Enumerable.Repeat((object)"a", 129)).ToArray()).Integer, Is.EqualTo(0));
        Assert.That(c.Execute("OBJECT", "ENCODING", "e8").Text, Is.EqualTo("hashtable"));
        Assert.That(c.Execute(Cmd("SADD", "e9").Concat(Enumerable.Repeat((object)"7", 200)).ToArray()).Integer, Is.EqualTo(1));
        Assert.That(c.Execute("OBJECT", "ENCODING", "e9").Text, Is.EqualTo("intset"), "integers: the intset limit (512) applies");
    }

    [Test]
    public void PopRemovesRandomMembers()
    {
        using var c = C();
        c.Execute("SADD", "p1", "a", "b", "c", "d", "e");
        var one = c.Execute("SPOP", "p1").Text!;
        Assert.That(new[] { "a", "b", "c", "d", "e" }, Does.Contain(one));
        Assert.That(c.Execute("SISMEMBER", "p1", one).Integer, Is.EqualTo(0));
        var two = Texts(c.Execute("SPOP", "p1", "2"));
        Assert.That(two.Distinct().Count(), Is.EqualTo(2));
        Assert.That(two, Does.Not.Contain(one));
        Assert.That(c.Execute("SCARD", "p1").Integer, Is.EqualTo(2));
        Assert.That(c.Execute("SPOP", "p1", "0").Elements, Is.Empty);
        Assert.That(c.Execute("SCARD", "p1").Integer, Is.EqualTo(2));
        var rest = Texts(c.Execute("SPOP", "p1", "100"));
        Assert.That(rest, Has.Length.EqualTo(2));
        Assert.That(rest.Concat(two).Append(one), Is.EquivalentTo(new[] { "a", "b", "c", "d", "e" }));
        Assert.That(c.Execute("EXISTS", "p1").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("SPOP", "p1").IsNull);
        var empty = c.Execute("SPOP", "p1", "3");
        Assert.That(empty.Type, Is.EqualTo(RespType.Array));
        Assert.That(empty.Elements, Is.Empty);
        Assert.That(c.Execute("SPOP", "p1", "-1").Text, Is.EqualTo("ERR value is out of range, must be positive"));
        Assert.That(c.Execute("SPOP", "p1", "x").Text, Is.EqualTo("ERR value is out of range, must be positive"));
        Assert.That(c.Execute("SPOP", "p1", "1", "2").Text, Is.EqualTo("ERR syntax error"));
        c.Execute("SADD", "p2", "only");
        Assert.That(c.Execute("SPOP", "p2", long.MaxValue.ToString()).Elements!.Select(e => e.Text), Is.EqualTo(new[] { "only" }));
        Assert.That(c.Execute("EXISTS", "p2").Integer, Is.EqualTo(0));
    }

    [Test]
    public void RandomMembersFollowRedis()
    {
        using var c = C();
        for (int i = 0; i < 20; i++) c.Execute("SADD", "r1", "m" + i);
        Assert.That(c.Execute("SRANDMEMBER", "r1").Text, Does.StartWith("m"));
        Assert.That(c.Execute("SRANDMEMBER", "nosuch").IsNull);
        var five = Texts(c.Execute("SRANDMEMBER", "r1", "5"));
        Assert.That(five.Distinct().Count(), Is.EqualTo(5), "a positive count gives distinct members");
        Assert.That(Sorted(c.Execute("SRANDMEMBER", "r1", "50")), Has.Length.EqualTo(20), "at most every member once");
        Assert.That(c.Execute("SRANDMEMBER", "r1", long.MaxValue.ToString()).Elements!, Has.Length.EqualTo(20));
        var repeats = Texts(c.Execute("SRANDMEMBER", "r1", "-100"));
        Assert.That(repeats, Has.Length.EqualTo(100), "a negative count allows repeats");
        Assert.That(repeats.Distinct().Count(), Is.LessThan(100));
        Assert.That(c.Execute("SRANDMEMBER", "r1", "0").Elements, Is.Empty);
        Assert.That(c.Execute("SCARD", "r1").Integer, Is.EqualTo(20), "nothing removed");
        Assert.That(c.Execute("SRANDMEMBER", "nosuch", "5").Elements, Is.Empty);
        Assert.That(c.Execute("SRANDMEMBER", "nosuch", "-9223372036854775807").Elements, Is.Empty);
        Assert.That(c.Execute("SRANDMEMBER", "r1", "-9223372036854775808").Text,
            Is.EqualTo("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"));
        Assert.That(c.Execute("SRANDMEMBER", "r1", "x").Text, Is.EqualTo("ERR value is not an integer or out of range"));
        Assert.That(c.Execute("SRANDMEMBER", "r1", "1", "2").Text, Is.EqualTo("ERR syntax error"));
        c.Execute("SADD", "r2", "solo");
        Assert.That(Texts(c.Execute("SRANDMEMBER", "r2", "-3")), Is.EqualTo(new[] { "solo", "solo", "solo" }));
    }

    [Test]
    public void MoveBetweenSets()
    {
        using var c = C();
        c.Execute("SADD", "mv:a", "x", "y");
        c.Execute("SADD", "mv:b", "z");
        Assert.That(c.Execute("SMOVE", "mv:a", "mv:b", "x").Integer, Is.EqualTo(1));
        Assert.That(Sorted(c.Execute("SMEMBERS", "mv:a")), Is.EqualTo(new[] { "y" }));
        Assert.That(Sorted(c.Execute("SMEMBERS", "mv:b")), Is.EqualTo(new[] { "x", "z" }));
        Assert.That(c.Execute("SMOVE", "mv:a", "mv:b", "nope").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("SMOVE", "mv:a", "mv:a", "y").Integer, Is.EqualTo(1), "same key: whether it is a member");
        Assert.That(c.Execute("SMOVE", "mv:a", "mv:a", "q").Integer, Is.EqualTo(0));
        c.Execute("SADD", "mv:b", "y");
        Assert.That(c.Execute("SMOVE", "mv:a", "mv:b", "y").Integer, Is.EqualTo(1), "already in the destination: still moved");
        Assert.That(c.Execute("EXISTS", "mv:a").Integer, Is.EqualTo(0), "the emptied source is deleted");
        Assert.That(c.Execute("SCARD", "mv:b").Integer, Is.EqualTo(3));
        Assert.That(c.Execute("SMOVE", "mv:b", "mv:new", "z").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("TYPE", "mv:new").Text, Is.EqualTo("set"));
        c.Execute("SET", "mv:str", "v");
        Assert.That(c.Execute("SMOVE", "mv:nosuch", "mv:str", "x").Integer, Is.EqualTo(0), "a missing source answers 0 first");
        Assert.That(c.Execute("SMOVE", "mv:b", "mv:str", "x").Text, Is.EqualTo(WrongType));
        Assert.That(c.Execute("SISMEMBER", "mv:b", "x").Integer, Is.EqualTo(1), "nothing moved");
        Assert.That(c.Execute("SMOVE", "mv:str", "mv:b", "x").Text, Is.EqualTo(WrongType));
    }

    [Test]
    public void IntersectUnionDifference()
    {
        using var c = C();
        c.Execute("SADD", "{o}1", "a", "b", "c", "d");
        c.Execute("SADD", "{o}2", "c", "d", "e");
        c.Execute("SADD", "{o}3", "a", "c", "e", "f");
        Assert.That(Sorted(c.Execute("SINTER", "{o}1", "{o}2")), Is.EqualTo(new[] { "c", "d" }));
        Assert.That(Sorted(c.Execute("SINTER", "{o}1", "{o}2", "{o}3")), Is.EqualTo(new[] { "c" }));
        Assert.That(Sorted(c.Execute("SINTER", "{o}1")), Is.EqualTo(new[] { "a", "b", "c", "d" }));
        Assert.That(c.Execute("SINTER", "{o}1", "{o}missing").Elements, Is.Empty);
        Assert.That(Sorted(c.Execute("SINTER", "{o}1", "{o}1")), Is.EqualTo(new[] { "a", "b", "c", "d" }));
        Assert.That(Sorted(c.Execute("SUNION", "{o}1", "{o}2", "{o}missing")), Is.EqualTo(new[] { "a", "b", "c", "d", "e" }));
        Assert.That(c.Execute("SUNION", "{o}missing").Elements, Is.Empty);
        Assert.That(Sorted(c.Execute("SDIFF", "{o}1", "{o}2")), Is.EqualTo(new[] { "a", "b" }));
        Assert.That(Sorted(c.Execute("SDIFF", "{o}1", "{o}2", "{o}3")), Is.EqualTo(new[] { "b" }));
        Assert.That(Sorted(c.Execute("SDIFF", "{o}1", "{o}missing")), Is.EqualTo(new[] { "a", "b", "c", "d" }));
        Assert.That(c.Execute("SDIFF", "{o}missing", "{o}1").Elements, Is.Empty);
        Assert.That(c.Execute("SDIFF", "{o}1", "{o}1").Elements, Is.Empty);
        // Integers come back in numeric order when the result is an intset (as Redis's SUNION of intsets).
        c.Execute("SADD", "{o}i1", "30", "1");
        c.Execute("SADD", "{o}i2", "-5", "2");
        Assert.That(Texts(c.Execute("SUNION", "{o}i1", "{o}i2")), Is.EqualTo(new[] { "-5", "1", "2", "30" }));

        // WRONGTYPE for any input of another type, also after a missing key.
        c.Execute("SET", "{o}str", "v");
        Assert.That(c.Execute("SINTER", "{o}1", "{o}str").Text, Is.EqualTo(WrongType));
        Assert.That(c.Execute("SINTER", "{o}missing", "{o}str").Text, Is.EqualTo(WrongType));
        Assert.That(c.Execute("SUNION", "{o}str", "{o}1").Text, Is.EqualTo(WrongType));
        Assert.That(c.Execute("SDIFF", "{o}1", "{o}missing", "{o}str").Text, Is.EqualTo(WrongType));
        Assert.That(c.Execute("SINTERSTORE", "{o}d", "{o}1", "{o}str").Text, Is.EqualTo(WrongType));
        Assert.That(c.Execute("EXISTS", "{o}d").Integer, Is.EqualTo(0));
    }

    [Test]
    public void StoreFormsReplaceOrDeleteTheDestination()
    {
        using var c = C();
        c.Execute("SADD", "{t}1", "a", "b", "c");
        c.Execute("SADD", "{t}2", "b", "c", "d");
        Assert.That(c.Execute("SINTERSTORE", "{t}d", "{t}1", "{t}2").Integer, Is.EqualTo(2));
        Assert.That(Sorted(c.Execute("SMEMBERS", "{t}d")), Is.EqualTo(new[] { "b", "c" }));
        Assert.That(c.Execute("SUNIONSTORE", "{t}d", "{t}1", "{t}2").Integer, Is.EqualTo(4));
        Assert.That(Sorted(c.Execute("SMEMBERS", "{t}d")), Is.EqualTo(new[] { "a", "b", "c", "d" }));
        Assert.That(c.Execute("SDIFFSTORE", "{t}d", "{t}1", "{t}2").Integer, Is.EqualTo(1));
        Assert.That(Sorted(c.Execute("SMEMBERS", "{t}d")), Is.EqualTo(new[] { "a" }));
        // An empty result deletes the destination.
        Assert.That(c.Execute("SINTERSTORE", "{t}d", "{t}1", "{t}missing").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("EXISTS", "{t}d").Integer, Is.EqualTo(0));
        c.Execute("SADD", "{t}d", "z");
        Assert.That(c.Execute("SDIFFSTORE", "{t}d", "{t}1", "{t}1").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("EXISTS", "{t}d").Integer, Is.EqualTo(0));
        // A destination of another type is overwritten, its TTL dropped.
        c.Execute("SET", "{t}s", "string", "EX", "100");
        Assert.That(c.Execute("SUNIONSTORE", "{t}s", "{t}1").Integer, Is.EqualTo(3));
        Assert.That(c.Execute("TYPE", "{t}s").Text, Is.EqualTo("set"));
        Assert.That(c.Execute("TTL", "{t}s").Integer, Is.EqualTo(-1));
        c.Execute("RPUSH", "{t}l", "x");
        Assert.That(c.Execute("SINTERSTORE", "{t}l", "{t}missing").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("EXISTS", "{t}l").Integer, Is.EqualTo(0), "deleted whatever its type");
        // The destination may be one of the sources.
        Assert.That(c.Execute("SDIFFSTORE", "{t}1", "{t}1", "{t}2").Integer, Is.EqualTo(1));
        Assert.That(Sorted(c.Execute("SMEMBERS", "{t}1")), Is.EqualTo(new[] { "a" }));
        // The stored set is independent of its sources.
        Assert.That(c.Execute("SUNIONSTORE", "{t}copy", "{t}2").Integer, Is.EqualTo(3));
        c.Execute("SADD", "{t}copy", "new");
        Assert.That(c.Execute("SCARD", "{t}2").Integer, Is.EqualTo(3));
        // Encodings of stored results are decided as Redis does from their members.
        c.Execute("SADD", "{t}n1", "1", "2", "3", "x");
        c.Execute("SADD", "{t}n2", "2", "3", "y");
        Assert.That(c.Execute("OBJECT", "ENCODING", "{t}n1").Text, Is.EqualTo("listpack"));
        c.Execute("SINTERSTORE", "{t}nd", "{t}n1", "{t}n2");
        Assert.That(c.Execute("OBJECT", "ENCODING", "{t}nd").Text, Is.EqualTo("intset"));
        Assert.That(c.Execute("SINTERSTORE", "{t}d").Text, Is.EqualTo("ERR wrong number of arguments for 'sinterstore' command"));
    }

    [Test]
    public void InterCardArgumentsAndLimit()
    {
        using var c = C();
        c.Execute("SADD", "{c}1", "a", "b", "c", "d");
        c.Execute("SADD", "{c}2", "b", "c", "d", "e");
        Assert.That(c.Execute("SINTERCARD", "2", "{c}1", "{c}2").Integer, Is.EqualTo(3));
        Assert.That(c.Execute("SINTERCARD", "1", "{c}1").Integer, Is.EqualTo(4));
        Assert.That(c.Execute("SINTERCARD", "2", "{c}1", "{c}2", "LIMIT", "2").Integer, Is.EqualTo(2));
        Assert.That(c.Execute("SINTERCARD", "2", "{c}1", "{c}2", "limit", "0").Integer, Is.EqualTo(3), "0 is no limit");
        Assert.That(c.Execute("SINTERCARD", "2", "{c}1", "{c}2", "LIMIT", "10").Integer, Is.EqualTo(3));
        Assert.That(c.Execute("SINTERCARD", "2", "{c}1", "{c}missing").Integer, Is.EqualTo(0));
        Assert.That(c.Execute("SINTERCARD", "0", "{c}1").Text, Is.EqualTo("ERR numkeys should be greater than 0"));
        Assert.That(c.Execute("SINTERCARD", "-1", "{c}1").Text, Is.EqualTo("ERR numkeys should be greater than 0"));
        Assert.That(c.Execute("SINTERCARD", "x", "{c}1").Text, Is.EqualTo("ERR numkeys should be greater than 0"));
        Assert.That(c.Execute("SINTERCARD", "3", "{c}1", "{c}2").Text, Is.EqualTo("ERR Number of keys can't be greater than number of args"));
        Assert.That(c.Execute("SINTERCARD", "2", "{c}1", "{c}2", "LIMIT", "-1").Text, Is.EqualTo("ERR LIMIT can't be negative"));
        Assert.That(c.Execute("SINTERCARD", "2", "{c}1", "{c}2", "LIMIT", "x").Text, Is.EqualTo("ERR LIMIT can't be negative"));
        Assert.That(c.Execute("SINTERCARD", "2", "{c}1", "{c}2", "LIMIT").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("SINTERCARD", "1", "{c}1", "{c}2").Text, Is.EqualTo("ERR syntax error"));
        c.Execute("SET", "{c}str", "v");
        Assert.That(c.Execute("SINTERCARD", "2", "{c}missing", "{c}str").Text, Is.EqualTo(WrongType));
    }

    [Test]
    public void ScanMembers()
    {
        using var c = C();
        for (int i = 0; i < 20; i++) c.Execute("SADD", "sc1", "k" + i);
        var scan = c.Execute("SSCAN", "sc1", "0", "MATCH", "k1*");
        Assert.That(scan.Elements![0].Text, Is.EqualTo("0"));
        Assert.That(Texts(scan.Elements[1]), Is.EquivalentTo(new[] { "k1", "k10", "k11", "k12", "k13", "k14", "k15", "k16", "k17", "k18", "k19" }));
        var missing = c.Execute("SSCAN", "nosuch", "0");
        Assert.That(missing.Elements![0].Text, Is.EqualTo("0"));
        Assert.That(missing.Elements[1].Elements, Is.Empty);
        Assert.That(c.Execute("SSCAN", "sc1", "x").Text, Is.EqualTo("ERR invalid cursor"));
        Assert.That(c.Execute("SSCAN", "sc1", "0", "COUNT", "0").Text, Is.EqualTo("ERR syntax error"));
        Assert.That(c.Execute("SSCAN", "sc1", "0", "NOVALUES").Text, Is.EqualTo("ERR syntax error"), "NOVALUES is HSCAN's only");
        // A large set is walked COUNT at a time and every member is seen once.
        for (int i = 0; i < 1000; i++) c.Send("SADD", "sc2", "big" + i);
        for (int i = 0; i < 1000; i++) c.Read();
        var seen = new List<string>();
        string cursor = "0";
        int calls = 0;
        do
        {
            var r = c.Execute("SSCAN", "sc2", cursor, "COUNT", "100");
            cursor = r.Elements![0].Text!;
            seen.AddRange(Texts(r.Elements[1]));
            calls++;
        } while (cursor != "0" && calls < 1000);
        Assert.That(calls, Is.GreaterThan(1));
        Assert.That(seen, Is.EquivalentTo(Enumerable.Range(0, 1000).Select(i => "big" + i)));
        c.Execute("SET", "sc3", "v");
        Assert.That(c.Execute("SSCAN", "sc3", "0").Text, Is.EqualTo(WrongType));
    }

    [Test]
    public void WrongTypeBothWays()
    {
        using var c = C();
        c.Execute("SET", "w:str", "v");
        c.Execute("SADD", "w:set", "a");
        c.Execute("HSET", "w:hash", "f", "v");
        foreach (var cmd in new[]
        {
            Cmd("SADD", "w:str", "a"), Cmd("SREM", "w:str", "a"), Cmd("SMEMBERS", "w:str"), Cmd("SISMEMBER", "w:str", "a"),
            Cmd("SMISMEMBER", "w:str", "a"), Cmd("SCARD", "w:str"), Cmd("SPOP", "w:str"), Cmd("SPOP", "w:str", "0"),
            Cmd("SRANDMEMBER", "w:str"), Cmd("SRANDMEMBER", "w:str", "2"), Cmd("SADD", "w:hash", "a"), Cmd("SCARD", "w:hash"),
            Cmd("GET", "w:set"), Cmd("HSET", "w:set", "f", "v"), Cmd("LPUSH", "w:set", "x"), Cmd("INCR", "w:set"),
        })
            Assert.That(c.Execute(cmd).Text, Is.EqualTo(WrongType), string.Join(' ', cmd));
        Assert.That(c.Execute("GET", "w:str").Text, Is.EqualTo("v"), "nothing changed");
        Assert.That(Texts(c.Execute("SMEMBERS", "w:set")), Is.EqualTo(new[] { "a" }), "nothing changed");
        Assert.That(c.Execute("SET", "w:set", "now a string").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("TYPE", "w:set").Text, Is.EqualTo("string"));
    }

    [Test]
    public void Resp3ReplyTypes()
    {
        using var c = C();
        c.Execute("HELLO", "3");
        c.Execute("SADD", "{3}a", "x", "y");
        c.Execute("SADD", "{3}b", "y", "z");
        foreach (var cmd in new[] { Cmd("SMEMBERS", "{3}a"), Cmd("SINTER", "{3}a", "{3}b"), Cmd("SUNION", "{3}a", "{3}b"), Cmd("SDIFF", "{3}a", "{3}b"), Cmd("SMEMBERS", "{3}none"), Cmd("SPOP", "{3}none", "2") })
            Assert.That(c.Execute(cmd).Type, Is.EqualTo(RespType.Set), string.Join(' ', cmd));
        Assert.That(c.Execute("SISMEMBER", "{3}a", "x").Type, Is.EqualTo(RespType.Integer), "Redis 7.2 keeps integers");
        Assert.That(c.Execute("SMISMEMBER", "{3}a", "x").Elements![0].Type, Is.EqualTo(RespType.Integer));
        Assert.That(c.Execute("SRANDMEMBER", "{3}a", "-3").Type, Is.EqualTo(RespType.Array), "repeats: an array");
        Assert.That(c.Execute("SPOP", "{3}none").IsNull);
        var popped = c.Execute("SPOP", "{3}b", "1");
        Assert.That(popped.Type, Is.EqualTo(RespType.Set));
        Assert.That(popped.Elements!, Has.Length.EqualTo(1));
    }

    [Test]
    public void KeyCommandsWorkOnSets()
    {
        using var c = C();
        c.Execute("SADD", "ks", "a", "b", "1");
        Assert.That(c.Execute("TYPE", "ks").Text, Is.EqualTo("set"));
        Assert.That(c.Execute("EXPIRE", "ks", "100").Integer, Is.EqualTo(1));
        Assert.That(c.Execute("TTL", "ks").Integer, Is.InRange(99, 100));
        c.Execute("SADD", "ks", "c");
        Assert.That(c.Execute("TTL", "ks").Integer, Is.InRange(99, 100), "a change keeps the TTL");
        Assert.That(c.Execute("RENAME", "ks", "ks2").Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("COPY", "ks2", "ks3").Integer, Is.EqualTo(1));
        c.Execute("SREM", "ks3", "a");
        Assert.That(c.Execute("SISMEMBER", "ks2", "a").Integer, Is.EqualTo(1), "a copy is independent");
        Assert.That(c.Execute("MEMORY", "USAGE", "ks2").Integer, Is.GreaterThan(0));
        var scan = c.Execute("SCAN", "0", "MATCH", "ks*", "TYPE", "set", "COUNT", "1000");
        Assert.That(Texts(scan.Elements![1]), Is.EquivalentTo(new[] { "ks2", "ks3" }));
        Assert.That(c.Execute("DEL", "ks2", "ks3").Integer, Is.EqualTo(2));
    }

    [Test]
    public void DumpAndRestore()
    {
        using var c = C();
        c.Execute("SADD", "d1", "a", "b", "1");
        var dump = c.Execute("DUMP", "d1").Bytes!;
        Assert.That(dump[0], Is.EqualTo(2), "RDB_TYPE_SET");
        Assert.That(c.Execute("RESTORE", "d2", "0", dump).Text, Is.EqualTo("OK"));
        Assert.That(Sorted(c.Execute("SMEMBERS", "d2")), Is.EqualTo(new[] { "1", "a", "b" }));
        Assert.That(c.Execute("TYPE", "d2").Text, Is.EqualTo("set"));
        Assert.That(c.Execute("OBJECT", "ENCODING", "d2").Text, Is.EqualTo("listpack"));
        Assert.That(c.Execute("RESTORE", "d2", "0", dump).Text, Is.EqualTo("BUSYKEY Target key name already exists."));
        // An intset dumps and restores as an intset.
        c.Execute("SADD", "d3", "5", "-1");
        Assert.That(c.Execute("RESTORE", "d4", "0", c.Execute("DUMP", "d3").Bytes!).Text, Is.EqualTo("OK"));
        Assert.That(c.Execute("OBJECT", "ENCODING", "d4").Text, Is.EqualTo("intset"));
        Assert.That(Texts(c.Execute("SMEMBERS", "d4")), Is.EqualTo(new[] { "-1", "5" }));
        // A payload in Redis's plain set encoding, built by hand: type 2, count, members, version 10, CRC64.
        Assert.That(c.Execute("RESTORE", "d5", "0", Payload(2, "x", "y")).Text, Is.EqualTo("OK"));
        Assert.That(Sorted(c.Execute("SMEMBERS", "d5")), Is.EqualTo(new[] { "x", "y" }));
        Assert.That(c.Execute("RESTORE", "d6", "0", Payload(2, "x", "x")).Text, Is.EqualTo("ERR Bad data format"), "a repeated member");
        Assert.That(c.Execute("RESTORE", "d6", "0", Payload(0)).Text, Is.EqualTo("ERR Bad data format"), "an empty set");
        Assert.That(c.Execute("EXISTS", "d6").Integer, Is.EqualTo(0));
    }

    private static byte[] Payload(int count, params string[] members)
    {
        var body = new List<byte> { 2, (byte)count };
        foreach (var m in members) { body.Add((byte)m.Length); body.AddRange(Encoding.ASCII.GetBytes(m)); }
        body.Add(10); body.Add(0);
        var crc = BitConverter.GetBytes(Garnet.server.Persistence.RdbEncoding.Crc64(0, body.ToArray()));
        return body.Concat(crc).ToArray();
    }

    [Test]
    public void CommandInfoRows()
    {
        using var c = C();
        var info = c.Execute("COMMAND", "INFO", "sadd", "sintercard", "smove", "srandmember");
        Assert.That(info.Elements![0].Elements![0].Text, Is.EqualTo("sadd"));
        Assert.That(info.Elements[0].Elements![1].Integer, Is.EqualTo(-3));
        Assert.That(Texts(info.Elements[0].Elements![2]), Is.EquivalentTo(new[] { "write", "denyoom", "fast" }));
        Assert.That(Texts(info.Elements[1].Elements![2]), Is.EquivalentTo(new[] { "readonly", "movablekeys" }));
        Assert.That(info.Elements[2].Elements![3].Integer, Is.EqualTo(1));
        Assert.That(info.Elements[2].Elements![4].Integer, Is.EqualTo(2));
        Assert.That(Texts(info.Elements[3].Elements![2]), Is.EquivalentTo(new[] { "readonly" }));
        Assert.That(Texts(info.Elements[0].Elements![6]), Does.Contain("@set"));
    }
}
