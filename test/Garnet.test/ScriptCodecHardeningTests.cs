// The scripting codecs under hostile input (docs/security.md): cmsgpack/cjson/struct and the reply conversions, through
// a real client.
// - memory: a header's claimed count never pre-sizes beyond the input; encoded output, decoded values and the script's
//   reply count against lua-memory-limit ("not enough memory"), the server goes on;
// - error texts: lua-cmsgpack's, lua-cjson's and lstruct's words as redis-server 7.0 gives them (checked side by side with
//   redis-server), never a .NET exception message;
// - recursion: every nesting (Lua -> RESP, codecs both ways) ends in an error, not a stack overflow.
using Garnet.client;
using Garnet.test.Faults;

namespace Garnet.test;

[TestFixture]
public class ScriptCodecHardeningTests : ServerFixture
{
    private const long Mb = 1024 * 1024;
    private RespClient C() => _server.Client(30000);

    /// <summary>Texts a .NET exception would leave in a reply.</summary>
    internal static readonly string[] DotNetMarkers =
        ["internal error", "Exception", "System.", "LineNumber", "BytePositionInLine", "outside the bounds", "Object reference", "Parameter name", "Arithmetic operation"];

    internal static void AssertNoDotNetText(string? text, string context)
    {
        foreach (var m in DotNetMarkers) Assert.That(text ?? "", Does.Not.Contain(m), context);
    }

    private void WithLimit(RespClient c, long bytes, Action body)
    {
        c.Execute("CONFIG", "SET", "lua-memory-limit", bytes.ToString());
        try { body(); }
        finally { c.Execute("CONFIG", "SET", "lua-memory-limit", (256 * Mb).ToString()); }
    }

    private void AssertServes()
    {
        using var other = C();
        RespAssert.Simple(other.Execute("PING"), "PONG");
        RespAssert.Integer(other.Execute("EVAL", "return 7", "0"), 7);
    }

    // ------------------------------------------------------------------ 1. cmsgpack.unpack of a claimed count

    [Test]
    public void MsgPackHeaderClaimingMillionsIsMissingBytesWithoutBuildingAnything()
    {
        using var c = C();
        foreach (var header in new[] { new byte[] { 0xdd, 0x00, 0xff, 0xff, 0xff }, [0xdd, 0xff, 0xff, 0xff, 0xff], [0xdf, 0x00, 0xff, 0xff, 0xff], [0xdc, 0xff, 0xff] })
        {
            var r = c.Execute("EVAL", "return #cmsgpack.unpack(ARGV[1])", "0", header);
            Assert.That(r.Text, Does.StartWith("ERR user_script:1: Missing bytes in input. script: "), Convert.ToHexString(header));
        }
        // a map claiming n entries needs 2n bytes: n bytes of input are not enough
        var map = new byte[] { 0xdf, 0x00, 0x10, 0x00, 0x00 }.Concat(Enumerable.Repeat((byte)1, 0x100000)).ToArray();
        Assert.That(c.Execute("EVAL", "return #cmsgpack.unpack(ARGV[1])", "0", map).Text, Does.StartWith("ERR user_script:1: Missing bytes in input."));
        AssertServes();
    }

    [Test]
    public void MsgPackMillionsOfRealEntriesCountAgainstTheLimit()
    {
        using var c = C();
        // 16M one-byte integers: a 16 MB string whose table needs 256 MB and more.
        var payload = new byte[] { 0xdd, 0x00, 0xff, 0xff, 0xff }.Concat(Enumerable.Repeat((byte)1, 0xffffff)).ToArray();
        WithLimit(c, 64 * Mb, () =>
        {
            var r = c.Execute("EVAL", "return #cmsgpack.unpack(ARGV[1])", "0", payload);
            Assert.That(r.Text, Does.StartWith("ERR user_script:1: not enough memory"));
            // the heap the failed unpack filled is given back after the script
            Assert.That(long.Parse(InfoField(c, "used_memory_vm_eval")), Is.LessThan(64 * Mb));
            // a fitting one still works
            var small = new byte[] { 0xdd, 0x00, 0x01, 0x00, 0x00 }.Concat(Enumerable.Repeat((byte)1, 0x10000)).ToArray();
            RespAssert.Integer(c.Execute("EVAL", "return #cmsgpack.unpack(ARGV[1])", "0", small), 0x10000);
        });
        AssertServes();
    }

    private static string InfoField(RespClient c, string name)
    {
        foreach (var line in c.Execute("INFO", "memory").Text!.Split("\r\n"))
            if (line.StartsWith(name + ":")) return line[(name.Length + 1)..];
        Assert.Fail("no " + name + " in INFO");
        return "";
    }

    // ------------------------------------------------------------------ 2. encoded output within the budget

    [Test]
    public void EncodedOutputCountsAgainstTheLimit()
    {
        using var c = C();
        WithLimit(c, 64 * Mb, () =>
        {
            // 8 MB of NUL bytes encode to 48 MB: with the string itself and the buffer it does not fit in 64 MB
            Assert.That(c.Execute("EVAL", "return #cjson.encode(string.rep('\\0', 8 * 1024 * 1024))", "0").Text,
                Does.StartWith("ERR user_script:1: not enough memory"));
            RespAssert.Integer(c.Execute("EVAL", "return #cjson.encode(string.rep('\\0', 1024 * 1024))", "0"), 6 * Mb + 2);
            // one 4 MB string repeated 100 times: 400 MB of msgpack from a 4 MB heap
            Assert.That(c.Execute("EVAL", "local s = string.rep('x', 4 * 1024 * 1024) local t = {} for i = 1, 100 do t[i] = s end return #cmsgpack.pack(t)", "0").Text,
                Does.StartWith("ERR user_script:1: not enough memory"));
            Assert.That(c.Execute("EVAL", "local s = string.rep('x', 4 * 1024 * 1024) local t = {} for i = 1, 100 do t[i] = s end return #cjson.encode(t)", "0").Text,
                Does.StartWith("ERR user_script:1: not enough memory"));
            // struct: a large output takes the counted path and is exact
            RespAssert.Integer(c.Execute("EVAL", "local t = {} for i = 1, 100000 do t[i] = i end return #struct.pack(string.rep('i32', 100000), table.unpack(t))", "0"), 3200000);
            // the output of a big but fitting encode is exact (no doubling slack, no truncation)
            RespAssert.Integer(c.Execute("EVAL", "return #cmsgpack.pack(string.rep('y', 3 * 1024 * 1024))", "0"), 3 * Mb + 5);
        });
        AssertServes();
    }

    [Test]
    public void ScriptReplyCountsAgainstTheLimit()
    {
        using var c = C();
        WithLimit(c, 64 * Mb, () =>
        {
            RespAssert.Error(c.Execute("EVAL", "local s = string.rep('x', 4 * 1024 * 1024) local t = {} for i = 1, 100 do t[i] = s end return t", "0"), "ERR not enough memory");
            // a wide cyclic table: 8^256 elements if nothing bounded it
            RespAssert.Error(c.Execute("EVAL", "local t = {} for i = 1, 8 do t[i] = t end return t", "0"), "ERR not enough memory");
            Assert.That(c.Execute("EVAL", "return string.rep('x', 1024 * 1024)", "0").Bytes!.Length, Is.EqualTo(Mb));
        });
        AssertServes();
    }

    [Test]
    public void CommandReplyCountsAgainstTheLimit()
    {
        using var c = C();
        c.Execute("SET", "codec:big", new byte[40 * Mb]);
        try
        {
            WithLimit(c, 32 * Mb, () =>
            {
                var r = c.Execute("EVAL", "local v = redis.call('GET', 'codec:big') return #v", "0");
                Assert.That(r.IsError, Is.True, r.ToString());
                Assert.That(r.Text, Does.Contain("not enough memory"));
            });
            RespAssert.Integer(c.Execute("EVAL", "local v = redis.call('GET', 'codec:big') return #v", "0"), 40 * Mb);
        }
        finally { c.Execute("DEL", "codec:big"); }
        AssertServes();
    }

    // ------------------------------------------------------------------ 3. error texts

    /// <summary>Scripts and redis-server 7.0.15's replies (the " script: sha, on @user_script:1." tail left out).</summary>
    internal static readonly (string Script, string Redis)[] RedisErrorTexts =
    [
        ("local x = cmsgpack.unpack('\\146') return x", "ERR user_script:1: Missing bytes in input."),
        ("local x = cmsgpack.unpack('\\146\\1') return x", "ERR user_script:1: Missing bytes in input."),
        ("local x = cmsgpack.unpack('\\193') return x", "ERR user_script:1: Bad data format in input."),
        ("local x = cmsgpack.unpack('\\196\\1a') return x", "ERR user_script:1: Bad data format in input."),
        ("local x = cmsgpack.unpack('\\165ab') return x", "ERR user_script:1: Missing bytes in input."),
        ("local x = cmsgpack.unpack('\\205\\1') return x", "ERR user_script:1: Missing bytes in input."),
        ("local x = cmsgpack.unpack() return x", "ERR user_script:1: bad argument #1 to 'unpack' (string expected, got no value)"),
        ("local x = cmsgpack.unpack({}) return x", "ERR user_script:1: bad argument #1 to 'unpack' (string expected, got table)"),
        ("local x = cmsgpack.pack() return x", "ERR user_script:1: bad argument #0 to 'pack' (MessagePack pack needs input.)"),
        ("local x = cmsgpack.unpack(string.rep('\\145', 100000)..'\\1') return 1", "ERR user_script:1: stack overflow (in function mp_decode_to_lua_array)"),
        ("local x = cjson.encode(function() end) return x", "ERR user_script:1: Cannot serialise function: type not supported"),
        ("local x = cjson.encode() return x", "ERR user_script:1: bad argument #1 to 'encode' (expected 1 argument)"),
        ("local x = cjson.decode('[1,') return x", "ERR user_script:1: Expected value but found T_END at character 4"),
        ("local x = cjson.decode('{') return x", "ERR user_script:1: Expected object key string but found T_END at character 2"),
        ("local x = cjson.decode('xx') return x", "ERR user_script:1: Expected value but found invalid token at character 1"),
        ("local x = cjson.decode('') return x", "ERR user_script:1: Expected value but found T_END at character 1"),
        ("local x = cjson.decode('[1] x') return x", "ERR user_script:1: Expected the end but found invalid token at character 5"),
        ("local x = cjson.decode('\"\\\\u12\"') return x", "ERR user_script:1: Expected value but found invalid unicode escape code at character 2"),
        ("local x = cjson.decode('\"\\\\q\"') return x", "ERR user_script:1: Expected value but found invalid escape code at character 2"),
        ("local x = cjson.decode('\"abc') return x", "ERR user_script:1: Expected value but found unexpected end of string at character 5"),
        ("local x = cjson.decode('{\"a\" 1}') return x", "ERR user_script:1: Expected colon but found T_NUMBER at character 6"),
        ("local x = cjson.decode('[1 2]') return x", "ERR user_script:1: Expected comma or array end but found T_NUMBER at character 4"),
        ("local x = cjson.decode('-') return x", "ERR user_script:1: Expected value but found invalid number at character 1"),
        ("local x = cjson.decode('a\\0') return x", "ERR user_script:1: JSON parser does not support UTF-16 or UTF-32"),
        ("local x = cjson.decode() return x", "ERR user_script:1: bad argument #1 to 'decode' (expected 1 argument)"),
        ("local x = cjson.decode(string.rep('[', 100000)) return 1", "ERR user_script:1: Found too many nested data structures (1001) at character 1001"),
        ("local x = cjson.encode({[1]=1,[12]=2}) return x", "ERR user_script:1: Cannot serialise table: excessively sparse array"),
        ("local t={} t[1]=t local x = cjson.encode(t) return x", "ERR user_script:1: Cannot serialise, excessive nesting (1001)"),
        ("local x = cjson.encode(0/0) return x", "ERR user_script:1: Cannot serialise number: must not be NaN or Inf"),
        ("local x = cjson.encode({[true]=1}) return x", "ERR user_script:1: Cannot serialise boolean: table key must be a number or string"),
        ("local x = struct.unpack('i9', 'aaaa') return x", "ERR user_script:1: bad argument #2 to 'unpack' (data string too short)"),
        ("local x = struct.unpack('i33', 'aaaa') return x", "ERR user_script:1: integral size 33 is larger than limit of 32"),
        ("local x = struct.unpack('z', 'aa') return x", "ERR user_script:1: bad argument #1 to 'unpack' (invalid format option 'z')"),
        ("local x = struct.pack('i4') return x", "ERR user_script:1: bad argument #2 to 'pack' (number expected, got nil)"),
        ("local x = struct.pack('i4c', 1) return x", "ERR user_script:1: bad argument #3 to 'pack' (string expected, got nil)"),
        ("local x = struct.unpack('s', 'aa') return x", "ERR user_script:1: unfinished string in data"),
        ("local x = struct.unpack('c0', 'aa') return x", "ERR user_script:1: format 'c0' needs a previous size"),
        ("local x = struct.size('s') return x", "ERR user_script:1: bad argument #1 to 'size' (option 's' has no fixed size)"),
        ("local x = struct.unpack('i4', 'aaaa', 0) return x", "ERR user_script:1: bad argument #3 to 'unpack' (offset must be 1 or greater)"),
        ("local x = struct.unpack('!3i4', 'aaaa') return x", "ERR user_script:1: alignment 3 is not a power of 2"),
        ("local x = struct.pack('c5', 'ab') return x", "ERR user_script:1: bad argument #3 to 'pack' (string too short)"),
        ("local x = struct.pack('i4', 'zz') return x", "ERR user_script:1: bad argument #2 to 'pack' (number expected, got string)"),
        ("local x = struct.unpack('i4') return x", "ERR user_script:1: bad argument #2 to 'unpack' (string expected, got no value)"),
        ("local x = struct.unpack('c99999999999', 'a') return x", "ERR user_script:1: integral size overflow"),
    ];

    [Test]
    public void CodecErrorsAreWordedAsRedis()
    {
        using var c = C();
        foreach (var (script, expected) in RedisErrorTexts)
        {
            var r = c.Execute("EVAL", script, "0");
            Assert.That(r.IsError, Is.True, script);
            Assert.That(r.Text, Does.StartWith(expected + " script: "), script);
            AssertNoDotNetText(r.Text, script);
        }
        // Values Redis 7.0's cjson accepts (decode_invalid_numbers) and the bytes its encoder writes
        RespAssert.Bulk(c.Execute("EVAL", "return cjson.encode({cjson.decode('+1'), cjson.decode('0x10'), cjson.decode('01')})", "0"), "[1,16,1]");
        RespAssert.Bulk(c.Execute("EVAL", "return cjson.encode('\\0\\1\\127\\200\"/\\\\')", "0"), "\"\\u0000\\u0001\\u007f\u0080\\\"\\/\\\\\"".Replace("\u0080", "\ufffd"));
        RespAssert.Integer(c.Execute("EVAL", "local t = {} t[1] = t t[2] = t return #cmsgpack.pack(t)", "0"), 131071);
    }

    [Test]
    public void CodecRepliesMatchRedisSideBySide()
    {
        using var redis = new RedisProcess();
        using var ours = new RawResp(_server.Port);
        using var theirs = new RawResp(redis.Port);
        string[] more =
        [
            "return {cmsgpack.unpack('\\1\\2\\3')}",
            "return cmsgpack.pack({1, 2, {a = 1}}, 'x', 1.5, true, -70000, 2^40)",
            "local t = {} t[1] = t t[2] = t local x = cmsgpack.pack(t) return #x",
            "return cjson.encode({[1]=1,[10]=2})",
            "return cjson.encode({1.5, -0.25, 1e300, 100})",
            "return cjson.encode(cjson.decode('\"\\\\ud83d\\\\ude00\\\\u00e9\\\\/\"'))",
            "return cjson.encode(cjson.decode('[1]\\0xx'))",
            "return struct.pack('>i12', -2)",
            "return {struct.unpack('<i12', string.rep('\\255', 12))}",
            "return {struct.unpack('!8bd', struct.pack('!8bd', 1, 2.5))}",
            "return struct.size('i9z!4')",
        ];
        // Not compared: a cyclic table's reply (the same shape, but Redis stops at its Lua stack's 8,000 slots, we at
        // LuaToResp.MaxDepth levels), tostring of floats (Lua 5.4 prints 5.0) and pairs order (cjson objects).
        foreach (var script in RedisErrorTexts.Select(e => e.Script).Concat(more))
            Assert.That(ours.RunText("EVAL", script, "0"), Is.EqualTo(theirs.RunText("EVAL", script, "0")), script);
    }

    // ------------------------------------------------------------------ 4. recursion bounds

    [Test]
    public void NestingEndsInAnErrorNotAStackOverflow()
    {
        using var c = C();
        // Lua -> RESP: a cyclic table and a deep one end in Redis's error element at the bottom of nested arrays
        foreach (var script in new[] { "local t = {} ; t[1] = t ; return t", "local t = {} local c = t for i = 1, 100000 do local n = {} c[1] = n c = n end return t" })
        {
            var r = c.Execute("EVAL", script, "0");
            int depth = 0;
            while (r.Type == RespType.Array) { Assert.That(r.Elements!.Length, Is.EqualTo(1)); r = r.Elements[0]; depth++; }
            Assert.That(depth, Is.GreaterThan(100), script);
            RespAssert.Error(r, "ERR reached lua stack limit");
        }
        // RESP3 map and set nesting
        var m = c.Execute("EVAL", "redis.setresp(3) local t = {} t.map = {a = t} return t", "0");
        Assert.That(m.IsError || m.Type is RespType.Array or RespType.Map, Is.True);
        // codecs both ways
        Assert.That(c.Execute("EVAL", "local t = {} local c = t for i = 1, 100000 do local n = {} c[1] = n c = n end local x = cjson.encode(t) return x", "0").Text,
            Does.StartWith("ERR user_script:1: Cannot serialise, excessive nesting (1001)"));
        Assert.That(c.Execute("EVAL", "return cjson.decode(string.rep('{\"a\":', 100000))", "0").Text,
            Does.Contain("Found too many nested data structures (1001)"));
        Assert.That(c.Execute("EVAL", "return cmsgpack.unpack(string.rep('\\129\\1', 100000))", "0").Text,
            Does.Contain("stack overflow (in function mp_decode_to_lua_hash)"));
        // a deep table packs as lua-cmsgpack does: 16 levels, then nil
        RespAssert.Integer(c.Execute("EVAL", "local t = {} local c = t for i = 1, 100000 do local n = {} c[1] = n c = n end return #cmsgpack.pack(t)", "0"), 17);
        AssertServes();
    }
}

/// <summary>Hostile codec input through the real executable: resident memory stays near the script's budget.</summary>
[TestFixture, Category("Faults"), NonParallelizable]
public class ScriptCodecMemoryProcessTests
{
    [Test, CancelAfter(120_000)]
    public void HostileCodecInputKeepsResidentMemoryBounded()
    {
        var dir = Directory.CreateTempSubdirectory("garnet-codec-mem-").FullName;
        try
        {
            using var server = new ServerProcess("--save \"\" --loglevel warning", dir);
            using var c = server.Client(60000);
            using var other = server.Client(10000);
            long baseline = server.ResidentBytes();
            var encode = c.Execute("EVAL", "return #cjson.encode(string.rep('\\0', 60 * 1024 * 1024))", "0");
            Assert.That(encode.Text, Does.StartWith("ERR user_script:1: not enough memory"));
            var payload = new byte[] { 0xdd, 0x00, 0xff, 0xff, 0xff }.Concat(Enumerable.Repeat((byte)1, 0xffffff)).ToArray();
            var unpack = c.Execute("EVAL", "return #cmsgpack.unpack(ARGV[1])", "0", payload);
            Assert.That(unpack.Text, Does.StartWith("ERR user_script:1: not enough memory"));
            RespAssert.Simple(other.Execute("PING"), "PONG");
            long peak = PeakResidentBytes(server.Pid);
            TestContext.Out.WriteLine($"baseline {baseline >> 20} MiB, peak {peak >> 20} MiB, now {server.ResidentBytes() >> 20} MiB");
            // before: 2.5 GB peak for the encode alone; the Lua heap cap is 256 MB
            Assert.That(peak, Is.LessThan(baseline + 700L * 1024 * 1024));
        }
        finally { try { Directory.Delete(dir, true); } catch { } }
    }

    private static long PeakResidentBytes(int pid)
    {
        foreach (var line in File.ReadLines($"/proc/{pid}/status"))
            if (line.StartsWith("VmHWM:")) return long.Parse(line.Split(' ', StringSplitOptions.RemoveEmptyEntries)[1]) * 1024;
        return 0;
    }
}
