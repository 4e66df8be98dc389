// Lua scripting and functions through raw RESP (RESP2 and RESP3) and StackExchange.Redis: EVAL/EVALSHA/SCRIPT, reply
// conversion both ways, Redis's error texts, the sandbox, read-only scripts, commands not allowed from scripts, the
// libraries (cjson, cmsgpack, bit), FUNCTION/FCALL, atomicity against a concurrent writer, BUSY / SCRIPT KILL /
// UNKILLABLE, the memory cap, and functions surviving a restart through the AOF.
using Garnet.client;
using StackExchange.Redis;

namespace Garnet.test;

[TestFixture]
public class ScriptingTests : ServerFixture
{
    private RespClient C() => _server.Client();

    [Test]
    public void EvalEvalShaAndScriptCommands()
    {
        using var c = C();
        RespAssert.Integer(c.Execute("EVAL", "return 1 + 2", "0"), 3);
        RespAssert.Integer(c.Execute("EVAL", "return 1, 2", "0"), 1); // several values: the first is the reply, as Redis
        RespAssert.Integer(c.Execute("EVAL", "return string.find('abc', 'b')", "0"), 2);
        RespAssert.Bulk(c.Execute("EVAL", "redis.call('SET', KEYS[1], ARGV[1]); return redis.call('GET', KEYS[1])", "1", "sc:k", "v1"), "v1");
        string sha = c.Execute("SCRIPT", "LOAD", "return ARGV[1] .. #KEYS").Text!;
        Assert.That(sha, Is.EqualTo(Sha("return ARGV[1] .. #KEYS")));
        RespAssert.Bulk(c.Execute("EVALSHA", sha, "2", "a", "b", "x"), "x2");
        RespAssert.Bulk(c.Execute("EVALSHA", sha.ToUpperInvariant(), "0", "y"), "y0");
        var exists = c.Execute("SCRIPT", "EXISTS", sha, "0000000000000000000000000000000000000000");
        Assert.That(exists.Elements!.Select(e => e.Integer), Is.EqualTo(new long[] { 1, 0 }));
        RespAssert.Error(c.Execute("EVALSHA", "0000000000000000000000000000000000000000", "0"), "NOSCRIPT No matching script. Please use EVAL.");
        RespAssert.Simple(c.Execute("SCRIPT", "FLUSH", "SYNC"), "OK");
        RespAssert.Error(c.Execute("EVALSHA", sha, "0"), "NOSCRIPT No matching script. Please use EVAL.");
        RespAssert.Error(c.Execute("SCRIPT", "FLUSH", "LATER"), "ERR SCRIPT FLUSH only support SYNC|ASYNC option");
        RespAssert.Error(c.Execute("EVAL", "return 1", "2", "a"), "ERR Number of keys can't be greater than number of args");
        RespAssert.Error(c.Execute("EVAL", "return 1", "-1"), "ERR Number of keys can't be negative");
        RespAssert.Error(c.Execute("EVAL", "return 1", "x"), "ERR value is not an integer or out of range");
        Assert.That(c.Execute("EVAL", "return (", "0").Text, Does.StartWith("ERR Error compiling script (new function): user_script:1:"));
        RespAssert.Error(c.Execute("SCRIPT", "KILL"), "NOTBUSY No scripts in execution right now.");
        Assert.That(c.Execute("SCRIPT", "HELP").Elements!.Length, Is.GreaterThan(5));
    }

    [Test]
    public void ReplyConversionResp2()
    {
        using var c = new RawResp(_server.Port);
        Assert.That(c.RunText("EVAL", "return {1, 2, 3.7, -3.7, 'x', {ok='fine'}, {err='bad'}, false, true, nil, 5}", "0"),
            Is.EqualTo("*9\r\n:1\r\n:2\r\n:3\r\n:-3\r\n$1\r\nx\r\n+fine\r\n-bad\r\n$-1\r\n:1\r\n"));
        Assert.That(c.RunText("EVAL", "return {err='My Error'}", "0"), Is.EqualTo("-My Error\r\n"));
        Assert.That(c.RunText("EVAL", "return redis.error_reply('-WRONG x')", "0"), Is.EqualTo("-WRONG x\r\n"));
        Assert.That(c.RunText("EVAL", "return redis.status_reply('PONG')", "0"), Is.EqualTo("+PONG\r\n"));
        Assert.That(c.RunText("EVAL", "return {double=3.5}", "0"), Is.EqualTo("$3\r\n3.5\r\n"));
        Assert.That(c.RunText("EVAL", "return nil", "0"), Is.EqualTo("$-1\r\n"));
        // Redis replies as a script sees them: nil bulk -> false, status -> {ok=}, error -> {err=} (pcall), integer.
        c.Run("DEL", "sc:none");
        Assert.That(c.RunText("EVAL", "local v = redis.call('GET', 'sc:none'); return type(v) .. tostring(v)", "0"), Is.EqualTo("$12\r\nbooleanfalse\r\n"));
        Assert.That(c.RunText("EVAL", "return redis.call('SET', 'sc:s', 'x').ok", "0"), Is.EqualTo("$2\r\nOK\r\n"));
        Assert.That(c.RunText("EVAL", "return redis.pcall('INCR', 'sc:s').err", "0"), Is.EqualTo("$43\r\nERR value is not an integer or out of range\r\n"));
        Assert.That(c.RunText("EVAL", "return math.type(redis.call('STRLEN', 'sc:s'))", "0"), Is.EqualTo("$7\r\ninteger\r\n"));
    }

    [Test]
    public void ReplyConversionResp3()
    {
        using var c = new RawResp(_server.Port);
        c.Run("HELLO", "3");
        Assert.That(c.RunText("EVAL", "redis.setresp(3); return {double=3.5}", "0"), Is.EqualTo(",3.5\r\n"));
        Assert.That(c.RunText("EVAL", "redis.setresp(3); return {true, false}", "0"), Is.EqualTo("*2\r\n#t\r\n#f\r\n"));
        Assert.That(c.RunText("EVAL", "return {true, false}", "0"), Is.EqualTo("*2\r\n:1\r\n_\r\n"));
        Assert.That(c.RunText("EVAL", "return {map={a=1}}", "0"), Is.EqualTo("%1\r\n$1\r\na\r\n:1\r\n"));
        Assert.That(c.RunText("EVAL", "return {set={a=true}}", "0"), Is.EqualTo("~1\r\n$1\r\na\r\n"));
        Assert.That(c.RunText("EVAL", "return {big_number='123456789012345678901234567890'}", "0"), Is.EqualTo("(123456789012345678901234567890\r\n"));
        c.Run("DEL", "sc:h");
        c.Run("HSET", "sc:h", "f", "v");
        // With setresp(3) the script sees a map reply as {map=...}, a null as nil.
        Assert.That(c.RunText("EVAL", "redis.setresp(3); local r = redis.call('HGETALL', 'sc:h'); return r.map.f", "0"), Is.EqualTo("$1\r\nv\r\n"));
        Assert.That(c.RunText("EVAL", "redis.setresp(3); return type(redis.call('GET', 'sc:nothing'))", "0"), Is.EqualTo("$3\r\nnil\r\n"));
        RespAssert.Error(new RespClient("127.0.0.1", _server.Port).Execute("EVAL", "redis.setresp(4)", "0"), "ERR RESP version must be 2 or 3. script: " + Sha("redis.setresp(4)") + ", on @user_script:1.");
    }

    private static string Sha(string s) => Convert.ToHexStringLower(System.Security.Cryptography.SHA1.HashData(System.Text.Encoding.UTF8.GetBytes(s)));

    [Test]
    public void SandboxAndErrorsAsRedis()
    {
        using var c = C();
        RespAssert.Error(c.Execute("EVAL", "x = 1", "0"), $"ERR user_script:1: Attempt to modify a readonly table script: {Sha("x = 1")}, on @user_script:1.");
        RespAssert.Error(c.Execute("EVAL", "return y", "0"), $"ERR user_script:1: Script attempted to access nonexistent global variable 'y' script: {Sha("return y")}, on @user_script:1.");
        foreach (var lib in new[] { "io", "debug", "require", "dofile", "loadfile", "print" })
            Assert.That(c.Execute("EVAL", $"return {lib} == nil", "0").Text, Does.Contain("nonexistent global variable '" + lib + "'"));
        Assert.That(c.Execute("EVAL", "return os.execute", "0").IsNull || c.Execute("EVAL", "return os.execute", "0").IsError);
        RespAssert.Integer(c.Execute("EVAL", "return type(os.clock()) == 'number' and 1 or 0", "0"), 1);
        Assert.That(c.Execute("EVAL", "string.foo = 1", "0").Text, Does.Contain("Attempt to modify a readonly table"));
        Assert.That(c.Execute("EVAL", "rawset(_G, 'z', 1)", "0").Text, Does.Contain("Attempt to modify a readonly table"));
        Assert.That(c.Execute("EVAL", "setmetatable(_G, nil)", "0").Text, Does.Contain("cannot change a protected metatable"));
        // Lua 5.1 names.
        RespAssert.Integer(c.Execute("EVAL", "return table.getn({1,2,3}) + select('#', unpack({1,2}))", "0"), 5);
        RespAssert.Integer(c.Execute("EVAL", "return loadstring('return 7')()", "0"), 7);
        RespAssert.Integer(c.Execute("EVAL", "return math.pow(2, 10)", "0"), 1024);
        // Commands from scripts.
        RespAssert.Error(c.Execute("EVAL", "return redis.pcall('nosuch')", "0"), "ERR Unknown Redis command called from script");
        RespAssert.Error(c.Execute("EVAL", "return redis.pcall('get')", "0"), "ERR Wrong number of args calling Redis command from script");
        RespAssert.Error(c.Execute("EVAL", "return redis.pcall('subscribe', 'x')", "0"), "ERR This Redis command is not allowed from script");
        RespAssert.Error(c.Execute("EVAL", "return redis.pcall('multi')", "0"), "ERR This Redis command is not allowed from script");
        RespAssert.Error(c.Execute("EVAL", "return redis.pcall('eval', 'return 1', '0')", "0"), "ERR This Redis command is not allowed from script");
        RespAssert.Error(c.Execute("EVAL", "return redis.pcall()", "0"), "ERR Please specify at least one argument for this redis lib call");
        RespAssert.Error(c.Execute("EVAL", "return redis.pcall('get', {})", "0"), "ERR Lua redis lib command arguments must be strings or integers");
        var raised = c.Execute("EVAL", "local v = redis.call('nosuch')\nreturn v", "0");
        Assert.That(raised.Text, Is.EqualTo($"ERR Unknown Redis command called from script script: {Sha("local v = redis.call('nosuch')\nreturn v")}, on @user_script:1."));
        // Blocking commands are noscript in Redis 7.0/7.2's table, as here.
        RespAssert.Error(c.Execute("EVAL", "return redis.pcall('BLPOP', 'sc:empty', 0)", "0"), "ERR This Redis command is not allowed from script");
        // Read-only scripts.
        RespAssert.Error(c.Execute("EVAL_RO", "return redis.pcall('SET', 'sc:a', 'b')", "0"), "ERR Write commands are not allowed from read-only scripts.");
        RespAssert.Error(c.Execute("EVAL", "#!lua flags=no-writes\nreturn redis.pcall('SET', 'sc:a', 'b')", "0"), "ERR Write commands are not allowed from read-only scripts.");
        RespAssert.Error(c.Execute("EVAL_RO", "#!lua\nreturn 1", "0"), "ERR Can not execute a script with write flag using *_ro command.");
        RespAssert.Integer(c.Execute("EVAL_RO", "#!lua flags=no-writes\nreturn 1", "0"), 1);
        RespAssert.Error(c.Execute("EVAL", "#!lua flags=bogus\nreturn 1", "0"), "ERR Unexpected flag in script shebang: bogus");
        RespAssert.Error(c.Execute("EVAL", "#!python\nreturn 1", "0"), "ERR Unexpected engine in script shebang: #!python");
        // Logging, replication no-ops, version.
        Assert.That(c.Execute("EVAL", "redis.log(redis.LOG_WARNING, 'from a script'); redis.set_repl(redis.REPL_ALL); redis.replicate_commands(); return redis.REDIS_VERSION", "0").Text, Is.EqualTo("7.2.0"));
        RespAssert.Bulk(c.Execute("EVAL", "return redis.sha1hex('')", "0"), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
        // KEYS and ARGV are fresh per call.
        c.Execute("EVAL", "return 1", "2", "k1", "k2", "a1");
        RespAssert.Integer(c.Execute("EVAL", "return #KEYS + #ARGV", "0"), 0);
    }

    [Test]
    public void Libraries()
    {
        using var c = C();
        RespAssert.Bulk(c.Execute("EVAL", "return cjson.encode({1, 2, 'x'})", "0"), "[1,2,\"x\"]");
        RespAssert.Bulk(c.Execute("EVAL", "local t = cjson.decode(ARGV[1]); return t.a .. t.b[2] .. tostring(t.c == cjson.null)", "0", "{\"a\":\"x\",\"b\":[1,2],\"c\":null}"), "x2true");
        RespAssert.Bulk(c.Execute("EVAL", "local a, b = cmsgpack.unpack(cmsgpack.pack({1, 'two', {k='v'}}, 300)); return a[2] .. a[3].k .. b", "0"), "twov300");
        RespAssert.Integer(c.Execute("EVAL", "return bit.band(0xff, 0x0f) + bit.bor(1, 2) + bit.lshift(1, 4) + bit.bxor(5, 1)", "0"), 15 + 3 + 16 + 4);
        RespAssert.Bulk(c.Execute("EVAL", "return bit.tohex(255, 4) .. bit.tobit(0xffffffff)", "0"), "00ff-1");
        Assert.That(c.Execute("EVAL", "return cjson.decode('{bad')", "0").IsError, Is.True);
        Assert.That(c.Execute("EVAL", "return cmsgpack.unpack('\\217')", "0").IsError, Is.True);
    }

    [Test]
    public void Functions()
    {
        using var c = C();
        c.Execute("FUNCTION", "FLUSH");
        const string lib = "#!lua name=sclib\nredis.register_function('sc_incr', function(keys, args) return redis.call('INCRBY', keys[1], args[1]) end)\n" +
            "redis.register_function{function_name='sc_get', callback=function(keys) return redis.call('GET', keys[1]) end, flags={'no-writes'}, description='reads'}";
        RespAssert.Bulk(c.Execute("FUNCTION", "LOAD", lib), "sclib");
        RespAssert.Error(c.Execute("FUNCTION", "LOAD", lib), "ERR Library 'sclib' already exists");
        RespAssert.Bulk(c.Execute("FUNCTION", "LOAD", "REPLACE", lib), "sclib");
        c.Execute("DEL", "sc:f");
        RespAssert.Integer(c.Execute("FCALL", "sc_incr", "1", "sc:f", "5"), 5);
        RespAssert.Bulk(c.Execute("FCALL_RO", "sc_get", "1", "sc:f"), "5");
        RespAssert.Error(c.Execute("FCALL_RO", "sc_incr", "1", "sc:f", "1"), "ERR Can not execute a script with write flag using *_ro command.");
        RespAssert.Error(c.Execute("FCALL", "nosuch", "0"), "ERR Function not found");
        var list = c.Execute("FUNCTION", "LIST", "WITHCODE");
        Assert.That(list.Elements!.Length, Is.EqualTo(1));
        using (var raw = new RawResp(_server.Port))
            Assert.That(raw.RunText("FUNCTION", "LIST", "WITHCODE"), Does.Contain("sc_get").And.Contain("no-writes").And.Contain("reads").And.Contain("library_code"));
        Assert.That(c.Execute("FUNCTION", "LIST", "LIBRARYNAME", "nomatch*").Elements, Is.Empty);
        var dump = c.Execute("FUNCTION", "DUMP").Bytes!;
        RespAssert.Simple(c.Execute("FUNCTION", "DELETE", "sclib"), "OK");
        RespAssert.Error(c.Execute("FUNCTION", "DELETE", "sclib"), "ERR Library not found");
        RespAssert.Error(c.Execute("FCALL", "sc_incr", "1", "sc:f", "1"), "ERR Function not found");
        RespAssert.Simple(c.Execute("FUNCTION", "RESTORE", dump), "OK");
        RespAssert.Error(c.Execute("FUNCTION", "RESTORE", dump), "ERR Library sclib already exists");
        RespAssert.Simple(c.Execute("FUNCTION", "RESTORE", dump, "REPLACE"), "OK");
        RespAssert.Integer(c.Execute("FCALL", "sc_incr", "1", "sc:f", "1"), 6);
        var bad = (byte[])dump.Clone();
        bad[^1] ^= 1;
        RespAssert.Error(c.Execute("FUNCTION", "RESTORE", bad), "ERR DUMP payload version or checksum are wrong");
        RespAssert.Error(c.Execute("FUNCTION", "LOAD", "return 1"), "ERR Missing library metadata");
        RespAssert.Error(c.Execute("FUNCTION", "LOAD", "#!lua name=empty\nlocal x = 1"), "ERR No functions registered");
        RespAssert.Error(c.Execute("FUNCTION", "LOAD", "#!lua name=dup\nredis.register_function('sc_get', function() end)"), "ERR Function sc_get already exists");
        RespAssert.Error(c.Execute("FUNCTION", "LOAD", "#!lua name=bad-name\nredis.register_function('f', function() end)"), "ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long");
        RespAssert.Error(c.Execute("FUNCTION", "LOAD", "#!lua name=loop\nwhile true do end"), "ERR FUNCTION LOAD timeout");
        Assert.That(c.Execute("FUNCTION", "LOAD", "#!lua name=callatload\nredis.call('ping')").Text, Does.StartWith("ERR Error registering functions:"));
        var stats = RespAssert.Map(c.Execute("FUNCTION", "STATS"));
        Assert.That(stats["running_script"].IsNull, Is.True);
        RespAssert.Error(c.Execute("FUNCTION", "KILL"), "NOTBUSY No scripts in execution right now.");
        RespAssert.Simple(c.Execute("FUNCTION", "FLUSH"), "OK");
        Assert.That(c.Execute("FUNCTION", "LIST").Elements, Is.Empty);
    }

    [TestCase(RedisProtocol.Resp2)]
    [TestCase(RedisProtocol.Resp3)]
    public void StackExchangeRedisScripts(RedisProtocol protocol)
    {
        using var mux = _server.Multiplexer(protocol);
        var db = mux.GetDatabase();
        db.KeyDelete("sc:se");
        var r = db.ScriptEvaluate("redis.call('SET', KEYS[1], ARGV[1]); return redis.call('GET', KEYS[1])", [(RedisKey)"sc:se"], ["hello"]);
        Assert.That((string?)r, Is.EqualTo("hello"));
        var prepared = LuaScript.Prepare("return redis.call('INCRBY', @key, @by)");
        db.KeyDelete("sc:se2");
        Assert.That((long)db.ScriptEvaluate(prepared, new { key = (RedisKey)"sc:se2", by = 7 }), Is.EqualTo(7));
        Assert.That((long)db.ScriptEvaluate(prepared, new { key = (RedisKey)"sc:se2", by = 1 }), Is.EqualTo(8), "the second run goes by EVALSHA");
        var arr = (RedisResult[])db.ScriptEvaluate("return {1, 'two', {3}}")!;
        Assert.That((long)arr[0], Is.EqualTo(1));
        Assert.That((string?)arr[1], Is.EqualTo("two"));
        Assert.Throws<RedisServerException>(() => db.ScriptEvaluate("return redis.call('nosuch')"));
    }

    [Test]
    public void ScriptIsAtomicAgainstOtherClients()
    {
        using var c = C();
        c.Execute("SET", "sc:at:a", "0");
        c.Execute("SET", "sc:at:b", "0");
        // The script moves 1 from a to b 200 times (a key not in KEYS too); a reader never sees a + b != 0.
        const string script = "for i = 1, 200 do redis.call('DECR', 'sc:at:a'); redis.call('INCR', KEYS[1]) end return 1";
        bool stop = false;
        int bad = 0, reads = 0;
        var reader = Task.Run(() =>
        {
            using var r = C();
            while (!Volatile.Read(ref stop))
            {
                var v = r.Execute("MGET", "sc:at:a", "sc:at:b").Elements!;
                if (long.Parse(v[0].Text!) + long.Parse(v[1].Text!) != 0) bad++;
                Interlocked.Increment(ref reads);
            }
        });
        // At least 50 scripts, and more until the reader has read 20 times while they ran (its thread may start late on a
        // loaded machine), within 30 s.
        int evals = 0;
        var sw = System.Diagnostics.Stopwatch.StartNew();
        while ((evals < 50 || Volatile.Read(ref reads) < 20) && sw.ElapsedMilliseconds < 30_000)
        {
            RespAssert.Integer(c.Execute("EVAL", script, "1", "sc:at:b"), 1);
            evals++;
        }
        Volatile.Write(ref stop, true);
        reader.Wait();
        Assert.That(reads, Is.GreaterThanOrEqualTo(20), "the reader read while scripts ran");
        Assert.That(bad, Is.EqualTo(0), "no reader saw a script half-way");
        RespAssert.Bulk(c.Execute("GET", "sc:at:b"), (200 * evals).ToString());
    }

    [Test, Category("Faults"), CancelAfter(60000)]
    public void BusyKillAndUnkillable()
    {
        using var c = C();
        using var other = C();
        c.Execute("CONFIG", "SET", "busy-reply-threshold", "200");
        try
        {
            RespAssert.Bulk(c.Execute("CONFIG", "GET", "lua-time-limit").Elements![1], "200");
            c.Send("EVAL", "local i = 0 while true do i = i + 1 end", "0");
            BusyScript.Running(_server); // the PING below waits at the busy gate until the threshold, then gets BUSY
            var sw = System.Diagnostics.Stopwatch.StartNew();
            RespAssert.Error(other.Execute("PING"), "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.");
            Assert.That(sw.ElapsedMilliseconds, Is.LessThan(5000));
            RespAssert.Error(other.Execute("FUNCTION", "KILL"), "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.");
            RespAssert.Simple(other.Execute("SCRIPT", "KILL"), "OK");
            Assert.That(c.Read().Text, Does.StartWith("ERR Script killed by user with SCRIPT KILL..."));
            RespAssert.Simple(other.Execute("PING"), "PONG");
            // pcall cannot swallow the kill.
            c.Send("EVAL", "while true do pcall(function() while true do end end) end", "0");
            BusyScript.PastThreshold(_server, 200);
            RespAssert.Simple(other.Execute("SCRIPT", "KILL"), "OK");
            Assert.That(c.Read().Text, Does.StartWith("ERR Script killed"));
            // A script that wrote cannot be killed; it ends by itself here (os.clock is the process's CPU time, which runs up to
            // twice as fast as the wall clock on two busy cores: 3 s of it is at least 1.5 s here).
            c.Send("EVAL", "redis.call('SET', 'sc:w', '1') local t = os.clock() while os.clock() - t < 3 do end return 2", "0");
            BusyScript.PastThreshold(_server, 200, run => run.Wrote);
            Assert.That(other.Execute("SCRIPT", "KILL").Text, Does.StartWith("UNKILLABLE Sorry the script already executed write commands"));
            RespAssert.Integer(c.Read(), 2);
        }
        finally { c.Execute("CONFIG", "SET", "busy-reply-threshold", "5000"); }
    }

    [Test, CancelAfter(60000)]
    public void ClientsWaitingAtTheBusyGateLeaveTheirThreadFree()
    {
        // Many clients send a command while a script runs: each waits without a thread, so a further client (SCRIPT
        // KILL, allowed while busy) is still served at once; a thread blocked per waiter would starve the pool.
        using var c = C();
        using var killer = C();
        c.Execute("CONFIG", "SET", "busy-reply-threshold", "20000");
        var waiters = Enumerable.Range(0, 48).Select(_ => C()).ToList();
        try
        {
            c.Execute("SET", "sc:gate", "v");
            c.Send("EVAL", "local i = 0 while true do i = i + 1 end", "0");
            var run = BusyScript.Running(_server);
            foreach (var w in waiters) w.Send("GET", "sc:gate");
            // The waiters' requests have arrived: each waits at the busy gate, its request left in its query buffer.
            Poll.True(() => _server.Server.Server.Clients.Snapshot().Count(s => s != run.Session && s.Connection.QueryBufferLength > 0) >= waiters.Count,
                "the 48 waiters' GETs at the busy gate");
            var sw = System.Diagnostics.Stopwatch.StartNew();
            RespAssert.Simple(killer.Execute("SCRIPT", "KILL"), "OK");
            Assert.That(sw.ElapsedMilliseconds, Is.LessThan(3000), "SCRIPT KILL was served while 48 clients waited");
            Assert.That(c.Read().Text, Does.StartWith("ERR Script killed by user with SCRIPT KILL..."));
            foreach (var w in waiters) RespAssert.Bulk(w.Read(), "v");
            // Past busy-reply-threshold the waiters get BUSY (and later requests of theirs still run, in order).
            c.Execute("CONFIG", "SET", "busy-reply-threshold", "300");
            c.Send("EVAL", "local i = 0 while true do i = i + 1 end", "0");
            BusyScript.Running(_server); // the waiters below wait at the gate until the 300 ms threshold, then get BUSY
            foreach (var w in waiters.Take(8))
            {
                w.Send("GET", "sc:gate");
                w.Send("PING");
            }
            foreach (var w in waiters.Take(8))
                RespAssert.Error(w.Read(), "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.");
            foreach (var w in waiters.Take(8))
                RespAssert.Error(w.Read(), "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.");
            RespAssert.Simple(killer.Execute("SCRIPT", "KILL"), "OK");
            Assert.That(c.Read().Text, Does.StartWith("ERR Script killed"));
            foreach (var w in waiters.Take(8)) RespAssert.Simple(w.Execute("PING"), "PONG");
        }
        finally
        {
            foreach (var w in waiters) w.Dispose();
            c.Execute("CONFIG", "SET", "busy-reply-threshold", "5000");
        }
    }

    [Test]
    public void ScriptsFromManyClientsStayAtomicAndLetOtherCommandsThrough()
    {
        // Several clients run scripts at once (scripts queued behind one another share one taking of every key lock);
        // a reader never sees a script half-way, and plain commands of another client still run meanwhile.
        using var setup = C();
        setup.Execute("MSET", "sc:mc:a", "0", "sc:mc:b", "0", "sc:mc:n", "0");
        const string script = "for i = 1, 20 do redis.call('DECR', 'sc:mc:a'); redis.call('INCR', KEYS[1]) end return 1";
        bool stop = false;
        int bad = 0, reads = 0, incrs = 0;
        var reader = Task.Run(() =>
        {
            using var r = C();
            while (!Volatile.Read(ref stop))
            {
                var v = r.Execute("MGET", "sc:mc:a", "sc:mc:b").Elements!;
                if (long.Parse(v[0].Text!) + long.Parse(v[1].Text!) != 0) bad++;
                reads++;
            }
        });
        var plain = Task.Run(() =>
        {
            using var r = C();
            while (!Volatile.Read(ref stop)) { r.Execute("INCR", "sc:mc:n"); incrs++; }
        });
        var writers = Enumerable.Range(0, 6).Select(_ => Task.Run(() =>
        {
            using var w = C();
            for (int i = 0; i < 100; i++)
            {
                // pipelined, so scripts queue behind each other
                for (int j = 0; j < 8; j++) w.Send("EVAL", script, "1", "sc:mc:b");
                for (int j = 0; j < 8; j++) RespAssert.Integer(w.Read(), 1);
            }
        })).ToArray();
        Task.WaitAll(writers);
        Volatile.Write(ref stop, true);
        Task.WaitAll(reader, plain);
        Assert.That(bad, Is.EqualTo(0), "no reader saw a script half-way");
        Assert.That(reads, Is.GreaterThan(0));
        Assert.That(incrs, Is.GreaterThan(0));
        RespAssert.Bulk(setup.Execute("GET", "sc:mc:b"), (6 * 100 * 8 * 20).ToString());
        RespAssert.Bulk(setup.Execute("GET", "sc:mc:a"), (-6 * 100 * 8 * 20).ToString());
    }

    [Test]
    public void GetKeysOfScriptCommands()
    {
        // As redis-server 7.0/7.2 (compared side by side): the numkeys keys after the script, sha or function name.
        using var c = C();
        Assert.That(c.Execute("COMMAND", "GETKEYS", "EVAL", "return 1", "2", "a", "b", "c").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "a", "b" }));
        Assert.That(c.Execute("COMMAND", "GETKEYS", "EVALSHA", "abc", "1", "k").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "k" }));
        Assert.That(c.Execute("COMMAND", "GETKEYS", "EVAL_RO", "x", "1", "k", "v").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "k" }));
        Assert.That(c.Execute("COMMAND", "GETKEYS", "EVALSHA_RO", "s", "1", "a").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "a" }));
        Assert.That(c.Execute("COMMAND", "GETKEYS", "FCALL", "f", "2", "a", "b").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "a", "b" }));
        Assert.That(c.Execute("COMMAND", "GETKEYS", "FCALL_RO", "f", "1", "a", "b").Elements!.Select(e => e.Text), Is.EqualTo(new[] { "a" }));
        // no key, a bad or too large numkeys: no keys (no_mandatory_keys), as Redis
        foreach (var args in new[] { new[] { "0" }, new[] { "-1", "a" }, new[] { "abc", "a" }, new[] { "3", "a", "b" } })
            Assert.That(c.Execute(new object[] { "COMMAND", "GETKEYS", "EVAL", "return 1" }.Concat(args).ToArray()).Elements, Is.Empty, string.Join(' ', args));
        RespAssert.Error(c.Execute("COMMAND", "GETKEYS", "EVAL", "x"), "ERR Invalid number of arguments specified for command");
        // COMMAND INFO describes the keynum key spec
        var info = c.Execute("COMMAND", "INFO", "EVAL").Elements![0].Elements!;
        string specs = Flatten(info[8]);
        Assert.That(specs, Is.EqualTo("notes We cannot tell how the keys will be used so we assume the worst, RW and UPDATE flags RW access update begin_search type index spec index 2 find_keys type keynum spec keynumidx 0 firstkey 1 keystep 1"));
        Assert.That(Flatten(c.Execute("COMMAND", "INFO", "EVALSHA_RO").Elements![0].Elements![8]), Does.StartWith("flags RO access begin_search"));
        Assert.That(Flatten(c.Execute("COMMAND", "INFO", "FCALL_RO").Elements![0].Elements![6]), Does.Not.Contain("@read"));
    }

    private static string Flatten(RespValue v) => v.Elements is { } e ? string.Join(' ', e.Select(Flatten)) : v.Text ?? v.Integer.ToString();

    [Test]
    public void TailCallErrorCarriesTheScriptLine()
    {
        using var c = C();
        const string one = "return redis.call('nosuch')";
        RespAssert.Error(c.Execute("EVAL", one, "0"), $"ERR Unknown Redis command called from script script: {Sha(one)}, on @user_script:1.");
        // strings and comments that look like the call are left alone; the line is the statement's
        const string three = "local s = 'return redis.call(\\'x\\')' -- return redis.call('y')\n--[[ return redis.call( ]]\nreturn redis . call ( 'nosuch', ']]', \"--\" )";
        RespAssert.Error(c.Execute("EVAL", three, "0"), $"ERR Unknown Redis command called from script script: {Sha(three)}, on @user_script:3.");
        const string nested = "return redis.call('GET', (redis.call('nosuch')))";
        RespAssert.Error(c.Execute("EVAL", nested, "0"), $"ERR Unknown Redis command called from script script: {Sha(nested)}, on @user_script:1.");
        c.Execute("SET", "sc:tail", "v");
        RespAssert.Bulk(c.Execute("EVAL", "return redis.call('GET', KEYS[1])", "1", "sc:tail"), "v");
        // in a function too
        c.Execute("FUNCTION", "LOAD", "REPLACE", "#!lua name=tailcalls\nredis.register_function('tc', function(keys, args)\n  return redis.call('nosuch')\nend)");
        RespAssert.Error(c.Execute("FCALL", "tc", "0"), "ERR Unknown Redis command called from script script: tc, on @user_function:3.");
        c.Execute("FUNCTION", "DELETE", "tailcalls");
    }

    [Test]
    public void MemoryCapStopsTheScriptNotTheServer()
    {
        using var c = C();
        c.Execute("CONFIG", "SET", "lua-memory-limit", (32 * 1024 * 1024).ToString());
        try
        {
            var r = c.Execute("EVAL", "local t = {} for i = 1, 1e9 do t[i] = string.rep('x', 1000) .. i end", "0");
            Assert.That(r.Text, Does.StartWith("ERR not enough memory"));
            RespAssert.Integer(c.Execute("EVAL", "return 1", "0"), 1);
            Assert.That(c.Execute("EVAL", "return string.rep('x', 1e9)", "0").Text, Does.Contain("not enough memory"));
        }
        finally { c.Execute("CONFIG", "SET", "lua-memory-limit", (256L * 1024 * 1024).ToString()); }
    }

    [Test]
    public void ScriptInsideMultiExec()
    {
        using var c = C();
        c.Execute("DEL", "sc:tx");
        c.Execute("MULTI");
        c.Execute("EVAL", "return redis.call('INCR', KEYS[1])", "1", "sc:tx");
        c.Execute("INCR", "sc:tx");
        var r = c.Execute("EXEC");
        Assert.That(r.Elements!.Select(e => e.Integer), Is.EqualTo(new long[] { 1, 2 }));
    }
}

[TestFixture]
public class ScriptingPersistenceTests
{
    [Test]
    public void FunctionsAndScriptEffectsSurviveRestartThroughTheAof()
    {
        var dir = Path.Combine(Path.GetTempPath(), "garnet-test-lua-" + Guid.NewGuid().ToString("N"));
        try
        {
            using (var s = new TestServer(o => o.Aof = true, dir))
            using (var c = s.Client())
            {
                RespAssert.Bulk(c.Execute("FUNCTION", "LOAD", "#!lua name=plib\nredis.register_function('p_set', function(keys, args) redis.call('SET', keys[1], args[1]) return redis.call('INCR', keys[2]) end)"), "plib");
                RespAssert.Integer(c.Execute("FCALL", "p_set", "2", "p:a", "p:n", "v"), 1);
                RespAssert.Integer(c.Execute("EVAL", "return redis.call('INCR', KEYS[1])", "1", "p:n"), 2);
            }
            using (var s = new TestServer(o => o.Aof = true, dir))
            using (var c = s.Client())
            {
                RespAssert.Bulk(c.Execute("GET", "p:a"), "v");
                RespAssert.Bulk(c.Execute("GET", "p:n"), "2");
                using var raw = new RawResp(s.Port);
                Assert.That(raw.RunText("FCALL", "p_set", "2", "p:a", "p:n", "w"), Is.EqualTo(":3\r\n"));
            }
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }

    [Test]
    public void FunctionsSurviveACheckpointWithoutAof()
    {
        var dir = Path.Combine(Path.GetTempPath(), "garnet-test-lua-" + Guid.NewGuid().ToString("N"));
        try
        {
            using (var s = new TestServer(null, dir))
            using (var c = s.Client())
            {
                RespAssert.Bulk(c.Execute("FUNCTION", "LOAD", "#!lua name=cklib\nredis.register_function{function_name='ck', callback=function() return 'ck' end, flags={'no-writes'}}"), "cklib");
                RespAssert.Simple(c.Execute("SAVE"), "OK");
                RespAssert.Simple(c.Execute("FUNCTION", "FLUSH"), "OK"); // not saved: the checkpoint has the library
            }
            using (var s = new TestServer(o => o.Save = "", dir))
            using (var c = s.Client())
            {
                RespAssert.Bulk(c.Execute("FCALL_RO", "ck", "0"), "ck");
                var list = c.Execute("FUNCTION", "LIST");
                Assert.That(list.Elements!.Length, Is.EqualTo(1));
            }
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }

    [Test]
    public void FunctionDumpMovesBetweenUsAndRedis()
    {
        using var redis = new RedisProcess();
        using var theirs = new RespClient("127.0.0.1", redis.Port);
        using var server = new TestServer();
        using var ours = server.Client();
        const string libA = "#!lua name=xa\nredis.register_function('xa_f', function(keys, args) return 'a' end)";
        const string libB = "#!lua name=xb\nredis.register_function{function_name='xb_f', callback=function(keys, args) return 'b' end, flags={'no-writes'}}";
        RespAssert.Bulk(theirs.Execute("FUNCTION", "LOAD", libA), "xa");
        RespAssert.Bulk(ours.Execute("FUNCTION", "LOAD", libB), "xb");
        var fromRedis = theirs.Execute("FUNCTION", "DUMP").Bytes!;
        var fromUs = ours.Execute("FUNCTION", "DUMP").Bytes!;
        RespAssert.Simple(ours.Execute("FUNCTION", "RESTORE", fromRedis), "OK");
        RespAssert.Simple(theirs.Execute("FUNCTION", "RESTORE", fromUs), "OK");
        RespAssert.Bulk(ours.Execute("FCALL", "xa_f", "0"), "a");
        RespAssert.Bulk(theirs.Execute("FCALL_RO", "xb_f", "0"), "b");
        // Byte for byte the same payload for the same library.
        theirs.Execute("FUNCTION", "FLUSH");
        ours.Execute("FUNCTION", "FLUSH");
        theirs.Execute("FUNCTION", "LOAD", libA);
        ours.Execute("FUNCTION", "LOAD", libA);
        Assert.That(ours.Execute("FUNCTION", "DUMP").Bytes![..^10], Is.EqualTo(theirs.Execute("FUNCTION", "DUMP").Bytes![..^10]));
    }

    [Test]
    public void ReplyBytesMatchRedis()
    {
        using var redis = new RedisProcess();
        using var server = new TestServer();
        string[] scripts =
        [
            "return {1, 2, 3.7, -3.7, 'x', {ok='fine'}, {err='bad'}, false, true, nil, 5}",
            "return redis.call('PING')",
            "return {redis.call('SET', 'rb:k', 'v'), redis.call('GET', 'rb:k'), redis.call('GET', 'rb:none')}",
            "return redis.pcall('INCR', 'rb:k')",
            "return redis.error_reply('MY error')",
            "return redis.status_reply('FINE')",
            "return x",
            "y = 1",
            "return redis.pcall('nosuch')",
            "return cjson.encode({1, 2, {a='b'}})",
            "return {double=1.5}",
            "return tostring(10 / 4)",
            "return redis.sha1hex('abc')",
            "return bit.tohex(65535)",
            "return struct.pack('>I2HbB', 513, 3, -1, 255)",
            "return {struct.unpack('<i4c2s', struct.pack('<i4c2s', -5, 'ab', 'zed'))}",
            "return struct.size('>hid')",
            "return {struct.unpack('>Hc0', struct.pack('>H', 3) .. 'abcdef')}",
            "return cmsgpack.pack({1, 'a', {b=2}, 3.5, -100, 70000})",
            "return cjson.encode(cjson.decode('{\"a\":[1,2,{\"b\":null}]}'))",
        ];
        foreach (int protocol in new[] { 2, 3 })
        {
            using var a = new RawResp(server.Port);
            using var b = new RawResp(redis.Port);
            a.Run("HELLO", protocol.ToString());
            b.Run("HELLO", protocol.ToString());
            foreach (var sc in scripts)
                Assert.That(a.RunText("EVAL", sc, "0"), Is.EqualTo(b.RunText("EVAL", sc, "0")), $"RESP{protocol}: {sc}");
        }
    }

    [Test]
    public void ScriptEffectsSurviveSigkillWholeOrNotAtAll()
    {
        const int Keys = 6, Depth = 4;
        const string script = "for i = 1, #KEYS do redis.call('SET', KEYS[i], ARGV[1]) end redis.call('RPUSH', 'lx:list', ARGV[1]) return #KEYS";
        SigkillUnderLoad.Run("garnet-luacrash-", port => $"--port {port} --aof --aof-fsync always --save \"\" --loglevel warning", Depth,
            (c, n) => c.Send(["EVAL", script, Keys.ToString(), .. Enumerable.Range(0, Keys).Select(k => "lx:k" + k), (n + 1).ToString()]),
            c =>
            {
                var r = c.Read();
                if (r.Integer != Keys) throw new InvalidOperationException("unexpected EVAL reply " + r);
            },
            (c, acked) =>
            {
                var values = Enumerable.Range(0, Keys).Select(k => long.Parse(c.Execute("GET", "lx:k" + k).Text ?? "0")).ToArray();
                long listLength = c.Execute("LLEN", "lx:list").Integer;
                TestContext.Out.WriteLine($"acknowledged {acked}; after restart keys {string.Join(",", values)}, list {listLength}");
                Assert.That(acked, Is.GreaterThan(20), "the load ran");
                Assert.That(values.Distinct().Count(), Is.EqualTo(1), "no script is there in part");
                Assert.That(values[0], Is.InRange(acked, acked + Depth), "every acknowledged script is there");
                Assert.That(listLength, Is.EqualTo(values[0]));
            }, ackedAtLeast: 20);
    }
}
