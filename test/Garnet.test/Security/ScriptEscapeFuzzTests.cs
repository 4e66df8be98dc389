// ScriptEscapeFuzzTests: seeded, time-bounded fuzzing of Lua scripts that try to reach state other clients' scripts
// share. An attacker client runs random combinations of ScriptAttackPrimitives (by EVAL, or inside a FUNCTION
// library); after each attack a victim client runs a fixed probe (redis.call, string methods, table functions, cjson,
// cmsgpack, struct, bit, KEYS/ARGV, globals) by EVAL and by FCALL, and its reply must be byte for byte the one it gave
// on the fresh server, no planted function or finalizer may have run inside it (key 'leak'), and the server stays up.
// Every few rounds the scripts are flushed (SCRIPT FLUSH / FUNCTION FLUSH), which must not run planted code either.
// Invariants: the seed is printed at the start and in every failure (replay with SCRIPT_ESCAPE_FUZZ_SEED=<seed>); the
// default run lasts about 3 s, the Faults one about 60 s; each round is bounded by the clients' timeouts.
using System.Diagnostics;
using System.Text;

namespace Garnet.test.Security;

[TestFixture]
public class ScriptEscapeFuzzTests : HostileServerFixture
{
    private const string ProbeBody = """
        redis.call('set', 'victim_running', '1')
        local r = {}
        local function add(f) local ok, v = pcall(f) r[#r + 1] = tostring(ok) .. ':' .. type(v) .. ':' .. tostring(v) end
        add(function() return redis.call('set', KEYS[1], 'v')['ok'] end)
        add(function() return redis.call('get', KEYS[1]) end)
        add(function() return redis.pcall('incr', KEYS[1])['err'] end)
        add(function() redis.call('hset', KEYS[1] .. 'h', 'f', 'x') return redis.call('hget', KEYS[1] .. 'h', 'f') end)
        add(function() return #redis.call('hgetall', KEYS[1] .. 'h') end)
        add(function() return redis.status_reply('fine')['ok'] end)
        add(function() return redis.error_reply('bad')['err'] end)
        add(function() return redis.sha1hex('') end)
        add(function() return ('abc'):upper() end)
        add(function() return string.upper('xyz') end)
        add(function() return ('hello'):len() end)
        add(function() return ('a' .. 'b') end)
        add(function() return string.format('%s-%d', 'a', 5) end)
        add(function() return string.rep('ab', 3) end)
        add(function() return ('a,b'):find(',') end)
        add(function() return ('hello'):sub(2, 3) end)
        add(function() return (('x'):gsub('x', 'y')) end)
        add(function() return string.char(65, 66) .. ('A'):byte() end)
        add(function() local t = {3, 1, 2} table.sort(t) return table.concat(t, ',') end)
        add(function() local t = {3, 1, 2} table.sort(t, function(a, b) return a > b end) return table.concat(t, ',') end)
        add(function() local t = {} table.insert(t, 9) table.insert(t, 1, 8) table.remove(t) return #t .. ':' .. t[1] end)
        add(function() return select('#', unpack({1, 2, 3})) end)
        add(function() return cjson.encode({a = 1}) end)
        add(function() return cjson.encode({1.5, {{2}}, 'x'}) end)
        add(function() return cjson.decode('[1,2,{"k":[3]}]')[3].k[1] end)
        add(function() return cjson.encode({n = 0/0}) end)
        add(function() return cmsgpack.unpack(cmsgpack.pack({1, 2, 'z'}))[3] end)
        add(function() return struct.unpack('>I2', struct.pack('>I2', 258)) end)
        add(function() return bit.band(6, 3) .. bit.tohex(255, 4) end)
        add(function() return math.floor(2.5) .. ':' .. math.max(1, 7) .. ':' .. tostring(math.huge) end)
        add(function() return type(redis.call) .. type(redis.pcall) .. type(string.upper) .. type(table.sort) end)
        add(function() return tostring(rawequal(string, getmetatable('').__index)) end)
        add(function() return type(getmetatable('').__add) .. type(getmetatable('').__concat) end)
        add(function() return #KEYS .. ':' .. #ARGV .. ':' .. tostring(KEYS[1]) .. ':' .. tostring(KEYS[2]) .. ':' .. tostring(ARGV[1]) .. ':' .. tostring(ARGV[2]) end)
        add(function() return tostring(getmetatable(KEYS)) .. tostring(getmetatable(ARGV)) end)
        add(function() undefined_global_x = 1 end)
        add(function() return victim_global end)
        add(function() return tonumber('12') + 1 end)
        add(function() return type(os.clock()) end)
        add(function() local n = 0 for k, v in pairs({a = 1, b = 2}) do n = n + v end return n end)
        add(function() local n = 0 for i, v in ipairs({4, 5}) do n = n + v end return n end)
        add(function() return select(2, pcall(error, 'e', 0)) end)
        redis.call('del', 'victim_running')
        return r
        """;

    private const string ProbeLibrary = "#!lua name=probelib\nredis.register_function('probe', function(KEYS, ARGV)\n" + ProbeBody + "\nend)";

    [Test]
    public void AttackScriptsDoNotReachOtherClients() => Fuzz(TimeSpan.FromSeconds(3));

    [Test, Category("Faults"), CancelAfter(300_000)]
    public void AttackScriptsDoNotReachOtherClientsLong() => Fuzz(TimeSpan.FromSeconds(60));

    private void Fuzz(TimeSpan duration)
    {
        int seed = int.TryParse(Environment.GetEnvironmentVariable("SCRIPT_ESCAPE_FUZZ_SEED"), out var s) ? s : Environment.TickCount & 0x7fffffff;
        TestContext.Out.WriteLine($"ScriptEscapeFuzz seed {seed} (replay: SCRIPT_ESCAPE_FUZZ_SEED={seed})");
        var rnd = new Random(seed);
        using var attacker = Client();
        using var victim = new RawResp(Server.Port, 15000);
        RespAssert.Bulk(Reply(attacker, "FUNCTION", "LOAD", ProbeLibrary), "probelib");
        var (evalBaseline, fcallBaseline) = Probe(victim);
        Assert.That(Encoding.UTF8.GetString(evalBaseline), Does.StartWith("*42\r\n"), "the probe ran on the fresh server");

        var sw = Stopwatch.StartNew();
        int round = 0;
        while (sw.Elapsed < duration && round < 100_000)
        {
            round++;
            var chosen = Enumerable.Range(0, 1 + rnd.Next(4)).Select(_ => ScriptAttackPrimitives.All[rnd.Next(ScriptAttackPrimitives.All.Length)]).ToList();
            string attack = ScriptAttackPrimitives.Script(chosen);
            string where = $"seed {seed}, round {round}, attack:\n{attack}";
            bool asFunction = rnd.Next(4) == 0;
            var reply = asFunction
                ? Reply(attacker, "FUNCTION", "LOAD", "REPLACE", "#!lua name=attacklib\nredis.register_function('attack', function(KEYS, ARGV)\n" + attack + "\nend)")
                : Reply(attacker, "EVAL", attack, "1", "attacker_key", "attacker");
            if (asFunction && !reply.IsError) reply = Reply(attacker, "FCALL", "attack", "1", "attacker_key", "attacker");
            AssertAlive(where);

            var (evalProbe, fcallProbe) = Probe(victim);
            Assert.That(Encoding.UTF8.GetString(evalProbe), Is.EqualTo(Encoding.UTF8.GetString(evalBaseline)), $"EVAL probe changed after {where}");
            Assert.That(Encoding.UTF8.GetString(fcallProbe), Is.EqualTo(Encoding.UTF8.GetString(fcallBaseline)), $"FCALL probe changed after {where}");
            Assert.That(Reply(attacker, "GET", "leak").IsNull, Is.True, $"planted code ran inside the victim's probe after {where}");

            if (round % 25 == 0)
            {
                string flush = rnd.Next(2) == 0 ? "SYNC" : "ASYNC";
                RespAssert.Simple(Reply(attacker, "SCRIPT", "FLUSH", flush), "OK");
                if (rnd.Next(2) == 0) RespAssert.Simple(Reply(attacker, "FUNCTION", "FLUSH", flush), "OK");
                Assert.That(Reply(attacker, "GET", "leak").IsNull, Is.True, $"planted code ran at SCRIPT/FUNCTION FLUSH {flush} after {where}");
            }
        }
        RespAssert.Simple(Reply(attacker, "SCRIPT", "FLUSH"), "OK");
        RespAssert.Simple(Reply(attacker, "FUNCTION", "FLUSH"), "OK");
        Assert.That(Reply(attacker, "GET", "leak").IsNull, Is.True, $"planted code ran at the final flush (seed {seed})");
        TestContext.Out.WriteLine($"ScriptEscapeFuzz seed {seed}: {round} rounds in {sw.Elapsed.TotalSeconds:0.0} s");
        AssertStillServing();
    }

    /// <summary>The probe's reply bytes by EVAL and by FCALL (the library is reloaded when a flush removed it).</summary>
    private (byte[] Eval, byte[] Fcall) Probe(RawResp victim)
    {
        try
        {
            var eval = victim.Run("EVAL", ProbeBody, "2", "probe_key", "probe_key2", "victim", "arg2");
            var fcall = victim.Run("FCALL", "probe", "2", "probe_key", "probe_key2", "victim", "arg2");
            if (Encoding.UTF8.GetString(fcall).StartsWith("-ERR Function not found"))
            {
                victim.Run("FUNCTION", "LOAD", ProbeLibrary);
                fcall = victim.Run("FCALL", "probe", "2", "probe_key", "probe_key2", "victim", "arg2");
            }
            victim.Run("DEL", "victim_running");
            return (eval, fcall);
        }
        catch (Exception e) when (e is IOException or System.Net.Sockets.SocketException)
        {
            Assert.Fail($"the victim's probe got no reply: {e.Message}; {ServerState()}");
            throw;
        }
    }
}
