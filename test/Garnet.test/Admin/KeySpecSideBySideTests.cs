// COMMAND GETKEYS / GETKEYSANDFLAGS and COMMAND INFO's key specs, side by side with redis-server 7.0.15: the same requests
// must get the same bytes (RESP2 and RESP3) for argument lists of every command family, and every command both servers
// know must list the same key specs. Skipped: commands redis-server 7.0.15 lacks, and those whose specs changed in 7.2
// (RedisKeySpecData.DifferFromCompared; docs/admin.md "Where 7.2 differs"), and GETKEYSANDFLAGS with one argument (arity
// -3 in 7.2, -4 in 7.0).
using Garnet.client;
using Garnet.server.Commands;
using Garnet.server.Commands.KeySpecs;

namespace Garnet.test.Admin;

[TestFixture]
public class KeySpecSideBySideTests : RedisSideBySide
{
    // One argument list per line, split on spaces ("" stands for an empty argument).
    private static readonly string[] Requests =
    [
        // strings and bitmaps
        "GET k", "SET k v", "SET k v GET", "SET k v EX 10 get", "SET k v NX", "SETNX k v", "SETEX k 10 v", "PSETEX k 10 v", "GETSET k v",
        "GETDEL k", "GETEX k PERSIST", "MGET a b c", "MSET a 1 b 2", "MSETNX a 1 b 2", "APPEND k v", "STRLEN k", "GETRANGE k 0 1",
        "SUBSTR k 0 1", "SETRANGE k 0 v", "INCR k", "DECRBY k 2", "INCRBYFLOAT k 1.5", "LCS a b", "LCS a b LEN",
        "SETBIT k 1 1", "GETBIT k 1", "BITCOUNT k", "BITPOS k 1", "BITOP AND d a b", "BITOP NOT d a",
        "BITFIELD k GET u8 0", "BITFIELD k SET u8 0 1", "BITFIELD k OVERFLOW SAT GET u8 0", "BITFIELD k INCRBY u8 0 1", "BITFIELD k GET u8",
        "BITFIELD k", "BITFIELD_RO k GET u8 0",
        // keyspace
        "DEL a b", "UNLINK a b", "EXISTS a b", "TYPE k", "RENAME a b", "RENAMENX a b", "COPY a b", "COPY a b DB 1", "MOVE k 1",
        "EXPIRE k 10", "PEXPIREAT k 10", "PERSIST k", "TTL k", "EXPIRETIME k", "TOUCH a b", "DUMP k", "RESTORE k 0 x",
        "OBJECT ENCODING k", "OBJECT FREQ k", "MEMORY USAGE k", "SORT k", "SORT k STORE d", "SORT k BY w GET x STORE d LIMIT 0 1",
        "SORT k LIMIT store 1 STORE d", "SORT k STORE", "SORT_RO k BY w", "MIGRATE h 1 k 0 10", "MIGRATE h 1 \"\" 0 10 KEYS a b",
        "MIGRATE h 1 \"\" 0 10 AUTH p KEYS a", "MIGRATE h 1 \"\" 0 10 AUTH2 u p COPY REPLACE KEYS a b", "MIGRATE h 1 k 0 10 KEYS a",
        // lists
        "LPUSH k a b", "RPUSHX k a", "LPOP k", "RPOP k 2", "LMOVE a b LEFT RIGHT", "BLMOVE a b LEFT RIGHT 0", "RPOPLPUSH a b",
        "BRPOPLPUSH a b 0", "BLPOP a b 0", "BRPOP a 0", "LMPOP 2 a b LEFT", "LMPOP 0 a LEFT", "LMPOP x a LEFT", "LMPOP 3 a b LEFT",
        "BLMPOP 0 2 a b LEFT COUNT 2", "LRANGE k 0 1", "LINSERT k BEFORE p v", "LPOS k v", "LREM k 0 v", "LSET k 0 v", "LTRIM k 0 1",
        "LINDEX k 0", "LLEN k",
        // sets
        "SADD k a", "SREM k a", "SMOVE a b m", "SINTER a b", "SINTERSTORE d a b", "SUNION a b", "SUNIONSTORE d a b", "SDIFFSTORE d a b",
        "SINTERCARD 2 a b", "SINTERCARD 2 a b LIMIT 1", "SINTERCARD x a", "SINTERCARD 2abc a b", "SPOP k", "SRANDMEMBER k 2",
        "SMISMEMBER k a b", "SISMEMBER k a", "SCARD k", "SMEMBERS k", "SSCAN k 0",
        // sorted sets
        "ZADD k 1 a", "ZINCRBY k 1 a", "ZUNIONSTORE d 2 a b", "ZINTERSTORE d 2 a b WEIGHTS 1 2", "ZDIFFSTORE d 2 a b", "ZUNIONSTORE d 0 a",
        "ZUNIONSTORE d 3abc a b c", "ZUNIONSTORE d x a", "ZUNION 2 a b", "ZINTER 2 a b WITHSCORES", "ZDIFF 1 a", "ZINTERCARD 2 a b",
        "ZRANGESTORE d s 0 1", "ZMPOP 2 a b MIN", "BZMPOP 0 2 a b MIN", "BZPOPMIN a b 0", "ZRANGE k 0 1", "ZPOPMIN k",
        "ZREMRANGEBYSCORE k 0 1", "ZSCORE k a", "ZMSCORE k a b", "ZRANDMEMBER k",
        // hashes
        "HSET k f v", "HGET k f", "HDEL k f", "HINCRBY k f 1", "HGETALL k", "HSETNX k f v", "HRANDFIELD k", "HSTRLEN k f", "HSCAN k 0",
        // hyperloglog
        "PFADD k a", "PFCOUNT a b", "PFMERGE d a b",
        // geo
        "GEOADD k 0 0 m", "GEODIST k a b", "GEOPOS k a", "GEORADIUS k 0 0 1 km", "GEORADIUS k 0 0 1 km STORE d",
        "GEORADIUS k 0 0 1 km STORE d STOREDIST e", "GEORADIUSBYMEMBER k m 1 km STOREDIST d", "GEORADIUS_RO k 0 0 1 km",
        "GEOSEARCH k FROMLONLAT 0 0 BYRADIUS 1 km", "GEOSEARCHSTORE d s FROMLONLAT 0 0 BYRADIUS 1 km",
        // streams
        "XADD s * f v", "XREAD STREAMS a b 0 0", "XREAD COUNT 1 BLOCK 0 STREAMS a 0", "XREAD STREAMS a b 0", "XREAD COUNT 1 a 0",
        "XREADGROUP GROUP g c STREAMS a 0", "XREADGROUP GROUP g c COUNT 1 NOACK STREAMS a b > >", "XACK s g 1-1", "XGROUP CREATE s g $",
        "XGROUP DESTROY s g", "XGROUP CREATECONSUMER s g c", "XINFO STREAM s", "XINFO GROUPS s", "XDEL s 1-1", "XTRIM s MAXLEN 1",
        "XRANGE s - +", "XLEN s", "XCLAIM s g c 0 1-1", "XAUTOCLAIM s g c 0 0", "XSETID s 1-1", "XPENDING s g",
        // scripting and functions
        "EVAL s 2 a b", "EVAL s 0", "EVAL s x a", "EVAL s 1abc a", "EVALSHA s 1 a", "EVAL_RO s 1 a", "EVALSHA_RO s 2 a b",
        "FCALL f 1 a", "FCALL_RO f 2 a b", "FCALL f 3 a",
        // pub/sub, transactions, errors
        "SPUBLISH c m", "SSUBSCRIBE a b", "WATCH a b", "PING x", "NOPE a", "GET a b", "CLIENT LIST", "CLIENT NOPE x", "OBJECT ENCODING", "XINFO NOPE k", "OBJECT HELP",
    ];

    private static object[] Args(string line) =>
        line.Split(' ').Select(a => a == "\"\"" ? "" : a).Prepend("GETKEYSANDFLAGS").Prepend("COMMAND").Cast<object>().ToArray();

    [Test]
    public void GetKeysAndFlagsAsRedis([Values(2, 3)] int protocol)
    {
        using var redis = new RawResp(_redis!.Port);
        using var ours = new RawResp(_ours!.Port);
        if (protocol == 3) { redis.Run("HELLO", "3"); ours.Run("HELLO", "3"); }
        int compared = 0;
        var families = new HashSet<string>();
        var commands = new HashSet<string>();
        var skipped = new List<string>();
        foreach (var line in Requests)
        {
            var name = line.Split(' ')[0].ToLowerInvariant();
            if (Skipped(redis, name)) { skipped.Add(line); continue; }
            var args = Args(line);
            string expected = redis.RunText(args);
            Assert.That(ours.RunText(args), Is.EqualTo(expected), line);
            args[1] = "GETKEYS";
            Assert.That(ours.RunText(args), Is.EqualTo(redis.RunText(args)), "GETKEYS " + line);
            compared++;
            if (CommandTable.Default.Find(name) is { } c) { families.Add(c.Group); commands.Add(name); }
        }
        TestContext.Out.WriteLine($"compared {compared} argument lists of {commands.Count} commands; skipped: {string.Join(" | ", skipped)}");
        Assert.That(compared, Is.GreaterThanOrEqualTo(180), "argument lists compared");
        Assert.That(commands.Count, Is.GreaterThanOrEqualTo(120), "commands compared");
        Assert.That(families, Is.SupersetOf(new[] { "string", "bitmap", "generic", "list", "set", "sorted_set", "hash", "hyperloglog", "geo", "stream", "scripting", "pubsub", "transactions" }));
    }

    /// <summary>The command exists in redis-server 7.0.15 and here, and its specs did not change in 7.2.</summary>
    private static bool Skipped(RawResp redis, string name)
    {
        string info = redis.RunText("COMMAND", "INFO", name);
        bool theyKnow = !info.StartsWith("*1\r\n*-1") && !info.StartsWith("*1\r\n$-1") && !info.StartsWith("*1\r\n_"), weKnow = CommandTable.Default.Find(name) is not null;
        return theyKnow != weKnow || RedisKeySpecData.DifferFromCompared.Contains(name); // unknown to both: the errors must agree
    }

    [Test]
    public void CommandInfoKeySpecsAsRedis()
    {
        using var redis = new RespClient("127.0.0.1", _redis!.Port);
        using var ours = new RespClient("127.0.0.1", _ours!.Port);
        redis.Execute("HELLO", "3");
        ours.Execute("HELLO", "3");
        int compared = 0, withSpecs = 0;
        foreach (var c in CommandTable.Default.AllWithSubcommands)
        {
            if (RedisKeySpecData.DifferFromCompared.Contains(c.FullName)) continue;
            var theirs = redis.Execute("COMMAND", "INFO", c.FullName).Elements![0];
            if (theirs.IsNull) continue; // not in redis-server 7.0.15
            var mine = ours.Execute("COMMAND", "INFO", c.FullName).Elements![0];
            Assert.That(Describe(mine.Elements![8]), Is.EqualTo(Describe(theirs.Elements![8])), c.FullName + " key specs");
            compared++;
            if (theirs.Elements![8].Elements!.Length > 0) withSpecs++;
        }
        Assert.That(compared, Is.GreaterThanOrEqualTo(200));
        Assert.That(withSpecs, Is.GreaterThanOrEqualTo(150), "commands with key specs compared");
    }

    /// <summary>The reply with its RESP3 types, so a set and an array, or a bulk and a simple string, differ.</summary>
    private static string Describe(RespValue v) => v.Type switch
    {
        RespType.Array or RespType.Set or RespType.Map or RespType.Push => v.Type + "[" + string.Join(", ", v.Elements!.Select(Describe)) + "]",
        RespType.Integer => ":" + v.Integer,
        RespType.Null => "null",
        _ => v.Type + ":" + v.Text,
    };

    /// <summary>Commands this server lacks (SORT, MIGRATE) still have Redis's specs and key-finding functions: a table row
    /// of that name finds the keys and flags redis-server does.</summary>
    [Test]
    public void KeyFindersOfCommandsWeLackAsRedis()
    {
        using var redis = new RespClient("127.0.0.1", _redis!.Port);
        var table = new CommandTable([
            new CommandDefinition { Name = "sort", Arity = -2, Flags = CommandFlags.Write | CommandFlags.MovableKeys, Keys = new KeyRange(1, 1, 1) },
            new CommandDefinition { Name = "sort_ro", Arity = -2, Flags = CommandFlags.ReadOnly | CommandFlags.MovableKeys, Keys = new KeyRange(1, 1, 1) },
            new CommandDefinition { Name = "migrate", Arity = -6, Flags = CommandFlags.Write | CommandFlags.MovableKeys, Keys = new KeyRange(3, 3, 1) },
        ]);
        int compared = 0;
        foreach (var line in Requests.Where(l => l.StartsWith("SORT") || l.StartsWith("MIGRATE")))
        {
            var args = Args(line);
            var reply = redis.Execute(args);
            var theirs = reply.IsError ? [reply.Text!] : reply.Elements!.Select(e => e.Elements![0].Text + " " + string.Join(" ", e.Elements![1].Elements!.Select(f => f.Text)));
            var argv = args.Skip(2).Select(a => System.Text.Encoding.UTF8.GetBytes((string)a)).ToArray();
            var keys = new List<(int Pos, KeySpecFlags Flags)>();
            KeyFinder.Find(table.Find(argv[0])!, argv.Length, i => argv[i], keys);
            var ours = keys.Count == 0 ? ["ERR Invalid arguments specified for command"] : keys.Select(k => System.Text.Encoding.UTF8.GetString(argv[k.Pos]) + " " + string.Join(" ", KeySpec.ReplyNames(k.Flags)));
            Assert.That(ours, Is.EqualTo(theirs), line);
            compared++;
        }
        Assert.That(compared, Is.EqualTo(11));
    }

    [Test]
    public void GeneratedSpecsParseAndRoundTrip()
    {
        foreach (var (name, compact) in RedisKeySpecData.Specs)
            Assert.That(string.Join("; ", KeySpec.Parse(compact).Select(s => s.ToString())), Is.EqualTo(compact), name);
        Assert.That(() => KeySpec.Parse("RW NOPE @1 R0,1,0"), Throws.InstanceOf<FormatException>());
        Assert.That(() => KeySpec.Parse("RW @1 X0"), Throws.InstanceOf<FormatException>());
        // rows Redis has no specs for get one from their key positions
        var lmove = CommandTable.Default.Find("lmove")!;
        Assert.That(lmove.Specs.Select(s => s.ToString()), Is.EqualTo(new[] { "RW ACCESS DELETE @1 R0,1,0", "RW INSERT @2 R0,1,0" }));
        var own = new CommandTable([new CommandDefinition { Name = "x", Arity = -2, Flags = CommandFlags.Write, Keys = new KeyRange(1, -1, 2) }]).Find("x")!;
        Assert.That(own.Specs.Single().ToString(), Is.EqualTo("RW UPDATE @1 R-1,2,0"));
    }
}
