// Scripts of one client cannot harm another's (docs/security.md), through real clients against the in-process server:
//  - every shared table is read-only in fact (pairs, next, rawget, rawset, getmetatable(''), load, getfenv, globals), and
//    a second client's script behaves normally after each attack;
//  - nothing is ever finalized (a __gc neither writes into another client's script, nor freezes the server, nor runs
//    when SCRIPT FLUSH / FUNCTION FLUSH close the state, which used to abort the process);
//  - SCRIPT KILL / FUNCTION KILL stop a script wherever it loops (sort comparators, gsub callbacks, metamethods called
//    from C, coroutines, load readers, xpcall handlers, __close), other clients get BUSY meanwhile and PING afterwards.
using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class ScriptSandboxTests : ServerFixture
{
    private RespClient C() => _server.Client();

    private const string ReadOnly = "Attempt to modify a readonly table";

    // Each tries to change what every script sees; the ones that would capture a call write sb:captured.
    private static readonly string[] Attacks =
    [
        "local _, raw = pairs(redis); raw.call = function() redis.pcall('set', 'sb:captured', 'x') return 'HIJACKED' end",
        "local _, raw = pairs(_G); raw.redis = {}",
        "local f, s = pairs(string); s.len = function() return -1 end",
        "local f, s = pairs(cjson); s.encode = function() return 'HIJACKED' end",
        "getmetatable('').__index = function() return function() return 'HIJACKED' end end",
        "getmetatable('').__index.upper = function() return 'HIJACKED' end",
        "getmetatable('').__metatable = 1",
        "rawset(getmetatable(''), '__index', {})",
        "rawset(string, 'len', function() return -1 end)",
        "rawset(_G, 'redis', {})",
        "rawset(getfenv(), 'string', {})",
        "redis = {call = function() return 'HIJACKED' end}",
        "_G.redis = nil",
        "string = nil",
        "KEYS = {'sb:other'}",
        "redis.call = nil",
        "string.upper = function() return 'HIJACKED' end",
        "cjson.encode = nil", "cmsgpack.pack = nil", "struct.pack = nil", "bit.band = nil", "math.floor = nil",
        "table.concat = nil", "os.clock = nil", "coroutine.create = nil",
        "table.insert(string, function() end)",
        "table.move({1}, 1, 1, 1, redis)",
        "load('redis = nil')()",
        "load('return _ENV')().redis = nil",
        "loadstring('string.len = nil')()",
        "setmetatable(string, {__index = function() return 'HIJACKED' end})",
        "setmetatable(_G, {})",
        "local t = next(redis) rawget(redis, t).x = 1",
    ];

    private const string Victim = """
        local r = redis.call('set', KEYS[1], 'victim_secret')
        if type(r) ~= 'table' or r.ok ~= 'OK' then return 'redis.call: ' .. tostring(r) end
        if ('abc'):upper() ~= 'ABC' then return 'string method' end
        if string.len('abc') ~= 3 or string.upper('x') ~= 'X' then return 'string' end
        if cjson.encode({1}) ~= '[1]' then return 'cjson' end
        if type(cmsgpack.pack) ~= 'function' or type(struct.pack) ~= 'function' then return 'codecs' end
        if table.concat({'a', 'b'}) ~= 'ab' then return 'table' end
        if math.floor(1.5) ~= 1 or bit.band(3, 1) ~= 1 then return 'math/bit' end
        if type(os.clock) ~= 'function' or type(coroutine.create) ~= 'function' then return 'os/coroutine' end
        if not collectgarbage('isrunning') then return 'gc' end
        if #KEYS ~= 1 or _G.redis ~= redis then return 'globals' end
        return 'ok'
        """;

    [Test]
    public void SharedTablesAreReadOnlyWhateverThePath()
    {
        using var attacker = C();
        using var victim = C();
        using var other = C();
        other.Execute("DEL", "sb:captured", "sb:victim");
        foreach (var attack in Attacks)
        {
            var reply = attacker.Execute("EVAL", attack, "0");
            Assert.That(reply.Type, Is.EqualTo(RespType.Error), attack);
            Assert.That(reply.Text, Does.Contain(ReadOnly).Or.Contain("cannot change a protected metatable").Or.Contain("attempt to index"), attack);
            RespAssert.Bulk(victim.Execute("EVAL", Victim, "1", "sb:victim"), "ok");
        }
        // Reading through the read-only views works as on Redis's read-only tables.
        RespAssert.Bulk(attacker.Execute("EVAL", "return tostring(rawget(_G, 'redis') == redis) .. tostring(next(redis) ~= nil) .. type(getmetatable('')) .. type(getmetatable('').__index.upper)", "0"), "truetruetablefunction");
        RespAssert.Integer(attacker.Execute("EVAL", "local n = 0 for k, v in pairs(string) do n = n + 1 end return n", "0"), 17);
        // The collector cannot be stopped for every later script.
        attacker.Execute("EVAL", "collectgarbage('stop') collectgarbage('generational')", "0");
        RespAssert.Bulk(victim.Execute("EVAL", Victim, "1", "sb:victim"), "ok");
        RespAssert.Bulk(other.Execute("GET", "sb:victim"), "victim_secret");
        RespAssert.Integer(other.Execute("EXISTS", "sb:captured"), 0);
    }

    [Test]
    public void FunctionLibrariesCannotRewriteWhatOthersSee()
    {
        using var c = C();
        c.Execute("FUNCTION", "FLUSH");
        var load = c.Execute("FUNCTION", "LOAD", "#!lua name=sbatk\nredis.call = nil\nredis.register_function('f', function() return 1 end)");
        Assert.That(load.Text, Does.StartWith("ERR Error registering functions").And.Contain(ReadOnly));
        c.Execute("FUNCTION", "LOAD", "#!lua name=sbatk2\nredis.register_function('atk', function() local _, raw = pairs(redis); raw.call = function() return 'HIJACKED' end end)");
        c.Execute("FUNCTION", "LOAD", "#!lua name=sbvic\nredis.register_function('vic', function(keys) return redis.call('set', keys[1], 'v') end)");
        Assert.That(c.Execute("FCALL", "atk", "0").Text, Does.Contain(ReadOnly));
        RespAssert.Simple(c.Execute("FCALL", "vic", "1", "sb:fvic"), "OK");
        c.Execute("FUNCTION", "FLUSH");
    }

    [Test]
    public void FinalizersNeverRunInAnotherScript()
    {
        using var a = C();
        using var b = C();
        b.Execute("DEL", "sb:gc");
        RespAssert.Integer(a.Execute("EVAL", "setmetatable({}, {__gc = function() redis.call('set', 'sb:gc', 'x') end}) return 1", "0"), 1);
        RespAssert.Integer(a.Execute("EVAL", "local p = newproxy(true) getmetatable(p).__gc = function() redis.call('set', 'sb:gc', 'y') end return 1", "0"), 1);
        RespAssert.Integer(a.Execute("EVAL", "local mt = {} local t = setmetatable({}, mt) mt.__gc = function() redis.call('set', 'sb:gc', 'z') end return 1", "0"), 1);
        // __gc stays readable in the metatable (Lua 5.1: it has no effect on tables).
        RespAssert.Bulk(a.Execute("EVAL", "return type(getmetatable(setmetatable({}, {__gc = function() end})).__gc)", "0"), "function");
        RespAssert.Integer(b.Execute("EVAL", "collectgarbage() collectgarbage() return redis.call('exists', 'sb:gc')", "0"), 0);
        RespAssert.Integer(b.Execute("EXISTS", "sb:gc"), 0);
    }

    [Test, CancelAfter(30000)]
    public void ALoopingFinalizerDoesNotFreezeTheServer()
    {
        using var a = C();
        using var b = C();
        RespAssert.Integer(a.Execute("EVAL", "setmetatable({}, {__gc = function() while true do end end}) collectgarbage() return 1", "0"), 1);
        RespAssert.Simple(b.Execute("PING"), "PONG");
        RespAssert.Integer(b.Execute("EVAL", "collectgarbage() return 2", "0"), 2);
    }

    [Test, CancelAfter(30000)]
    public void FlushingAStateWithFinalizersAnswersOk()
    {
        // Used to abort the process: "no Lua runtime on this thread" from a finalizer run by lua_close.
        using var c = C();
        c.Execute("DEL", "sb:flushgc");
        string[] bodies =
        [
            "redis.call('set', 'sb:flushgc', 'x')", "redis.log(redis.LOG_WARNING, 'gc')", "cjson.encode({1})",
            "cmsgpack.pack(1)", "redis.sha1hex('x')", "while true do end",
        ];
        foreach (var flush in new[] { "SYNC", "ASYNC", null })
            foreach (var body in bodies)
            {
                RespAssert.Integer(c.Execute("EVAL", $"setmetatable({{}}, {{__gc = function() {body} end}}) return 1", "0"), 1);
                RespAssert.Simple(flush is null ? c.Execute("SCRIPT", "FLUSH") : c.Execute("SCRIPT", "FLUSH", flush), "OK");
            }
        foreach (var body in bodies)
        {
            c.Execute("FUNCTION", "FLUSH");
            c.Execute("FUNCTION", "LOAD", $"#!lua name=sbgc\nsetmetatable({{}}, {{__gc = function() {body} end}})\nredis.register_function('sbgcf', function() setmetatable({{}}, {{__gc = function() {body} end}}) return 1 end)");
            RespAssert.Integer(c.Execute("FCALL", "sbgcf", "0"), 1);
            RespAssert.Simple(c.Execute("FUNCTION", "FLUSH"), "OK");
        }
        RespAssert.Simple(c.Execute("PING"), "PONG");
        RespAssert.Integer(c.Execute("EXISTS", "sb:flushgc"), 0);
    }

    [Test]
    public void Lua51CompatibleReplacementsBehave()
    {
        using var c = C();
        var x = c.Execute("EVAL", "return {xpcall(function() error('x', 0) end, function(e) return 'h:' .. e end)}", "0");
        Assert.That(x.Elements!.Select(e => e.Text), Is.EqualTo(new string?[] { null, "h:x" }));
        var ok = c.Execute("EVAL", "return {xpcall(function(a) return a + 1 end, function(e) return e end, 41)}", "0");
        Assert.That(ok.Elements!.Select(e => e.Integer), Is.EqualTo(new long[] { 1, 42 }));
        var w = c.Execute("EVAL", "local f = coroutine.wrap(function(a) local b = coroutine.yield(a + 1) return b * 2 end) return {f(1), f(5)}", "0");
        Assert.That(w.Elements!.Select(e => e.Integer), Is.EqualTo(new long[] { 2, 10 }));
        Assert.That(c.Execute("EVAL", "coroutine.wrap(function() error('boom') end)()", "0").Text, Does.Contain("boom"));
        var r = c.Execute("EVAL", "local co = coroutine.create(function() coroutine.yield(1) return 2 end) local _, a = coroutine.resume(co) local _, b = coroutine.resume(co) return {a, b, coroutine.status(co)}", "0");
        Assert.That(r.Elements!.Take(2).Select(e => e.Integer), Is.EqualTo(new long[] { 1, 2 }));
        RespAssert.Bulk(r.Elements![2], "dead");
        RespAssert.Integer(c.Execute("EVAL", "return coroutine.close == nil and 1 or 0", "0"), 1);
        // An error object whose fields loop: read raw, answered at once.
        Assert.That(c.Execute("EVAL", "error(setmetatable({}, {__index = function() while true do end end}))", "0").Type, Is.EqualTo(RespType.Error));
    }

    [Test, CancelAfter(30000)]
    public void NoMetamethodOfAScriptRunsFromTheServerSide()
    {
        // The result and the error object are read raw: an __index that raised here used to abort the process (a Lua
        // error through C#), one that looped froze it.
        using var c = C();
        foreach (var body in new[] { "error('x')", "while true do end" })
        {
            var mt = $"{{__index = function() {body} end}}";
            Assert.That(c.Execute("EVAL", $"return {{verbatim_string = setmetatable({{}}, {mt})}}", "0").IsNull, Is.True);
            Assert.That(c.Execute("EVAL", $"error(setmetatable({{}}, {mt}))", "0").Type, Is.EqualTo(RespType.Error));
            Assert.That(c.Execute("EVAL", $"return setmetatable({{}}, {mt})", "0").Elements, Is.Empty);
        }
        RespAssert.Simple(c.Execute("PING"), "PONG");
    }

    // Each loops forever in a place that a yield from a hook could not leave (a C function between the hook and the
    // script's coroutine), or that Lua runs with hooks off.
    public static readonly string[] Loops =
    [
        "table.sort({3, 2, 1, 4, 5}, function(a, b) while true do end end)",
        "local mt = {__lt = function() while true do end end} table.sort({setmetatable({}, mt), setmetatable({}, mt)})",
        "string.gsub('abc', '%w', function(c) while true do end end)",
        "string.gsub('abc', '%w', setmetatable({}, {__index = function() while true do end end}))",
        "return tostring(setmetatable({}, {__tostring = function() while true do end end}))",
        "for _ in ipairs(setmetatable({}, {__index = function() while true do end end})) do end",
        "return table.concat(setmetatable({}, {__index = function() while true do end end, __len = function() return 3 end}))",
        "table.insert(setmetatable({}, {__newindex = function() while true do end end}), 1)",
        "pairs(setmetatable({}, {__pairs = function() while true do end end}))",
        "pcall(setmetatable({}, {__call = function() while true do end end}))",
        "coroutine.wrap(function() while true do end end)()",
        "coroutine.resume(coroutine.create(function() while true do end end)) while true do end",
        "load(function() while true do end end)",
        "xpcall(function() while true do end end, function() while true do end end)",
        "while true do pcall(function() while true do end end) end",
        "do local x <close> = setmetatable({}, {__close = function() while true do end end}) while true do end end",
        "pcall(function() local x <close> = setmetatable({}, {__close = function() while true do end end}) while true do end end) while true do end",
        "local co = coroutine.create(function() local x <close> = setmetatable({}, {__close = function() while true do end end}) while true do end end) coroutine.resume(co) while true do end",
    ];

    [TestCaseSource(nameof(Loops)), CancelAfter(30000)]
    public void ScriptKillStopsALoopWhereverItRuns(string script)
    {
        using var c = C();
        using var other = C();
        using var third = C();
        c.Execute("CONFIG", "SET", "busy-reply-threshold", "200");
        try
        {
            c.Send("EVAL", script, "0");
            WaitUntilBusy();
            RespAssert.Error(other.Execute("PING"), ScriptingBusy);
            var sw = System.Diagnostics.Stopwatch.StartNew();
            RespAssert.Simple(other.Execute("SCRIPT", "KILL"), "OK");
            Assert.That(c.Read().Text, Does.StartWith("ERR Script killed by user with SCRIPT KILL..."));
            Assert.That(sw.ElapsedMilliseconds, Is.LessThan(5000), "the script ended soon after SCRIPT KILL");
            RespAssert.Simple(third.Execute("PING"), "PONG");
            // The runtime serves the next script normally (and it is killable again).
            RespAssert.Integer(c.Execute("EVAL", "local s = 0 for i = 1, 100000 do s = s + 1 end return s", "0"), 100000);
        }
        finally { third.Execute("CONFIG", "SET", "busy-reply-threshold", "5000"); }
    }

    [Test, CancelAfter(30000)]
    public void FunctionKillStopsASortComparator()
    {
        using var c = C();
        using var other = C();
        c.Execute("CONFIG", "SET", "busy-reply-threshold", "200");
        try
        {
            c.Execute("FUNCTION", "LOAD", "REPLACE", "#!lua name=sbkill\nredis.register_function{function_name='sbsort', callback=function() table.sort({3, 2, 1}, function(a, b) while true do end end) end, flags={'no-writes'}}");
            c.Send("FCALL", "sbsort", "0");
            WaitUntilBusy();
            RespAssert.Error(other.Execute("PING"), "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.");
            RespAssert.Simple(other.Execute("FUNCTION", "KILL"), "OK");
            Assert.That(c.Read().Text, Does.StartWith("ERR Script killed by user with FUNCTION KILL..."));
            RespAssert.Simple(other.Execute("PING"), "PONG");
        }
        finally
        {
            other.Execute("FUNCTION", "DELETE", "sbkill");
            other.Execute("CONFIG", "SET", "busy-reply-threshold", "5000");
        }
    }

    [Test, CancelAfter(30000)]
    public void AKilledScriptRunsNoFurtherCommand()
    {
        // Between the kill and its end, a script caught in pcall loops cannot write (it could not be killed then).
        using var c = C();
        using var other = C();
        other.Execute("DEL", "sb:afterkill");
        c.Send("EVAL", "while true do pcall(function() while true do end end) redis.pcall('set', 'sb:afterkill', '1') end", "0");
        WaitUntilBusy();
        RespAssert.Simple(other.Execute("SCRIPT", "KILL"), "OK");
        Assert.That(c.Read().Text, Does.StartWith("ERR Script killed"));
        RespAssert.Integer(other.Execute("EXISTS", "sb:afterkill"), 0);
    }

    private const string ScriptingBusy = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";

    private void WaitUntilBusy() => BusyScript.PastThreshold(_server, 200); // busy-reply-threshold
}
