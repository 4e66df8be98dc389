// Seeded fuzzing of the scripting codecs through a real client: random and mutated input to cmsgpack.unpack,
// cjson.decode and struct.unpack, and random Lua values through cjson.encode / cmsgpack.pack (and back). Each run is
// bounded in time (GARNET_FUZZ_SECONDS, default 3 s per codec) and prints its seed on failure; GARNET_FUZZ_SEED
// replays one. Checked: every reply is a value or a clean error worded as the library words it (no .NET text), the
// codecs accept their own output, and the server keeps answering PING on a second connection.
using System.Text;
using System.Text.RegularExpressions;
using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class ScriptCodecFuzzTests : ServerFixture
{
    private static TimeSpan Duration =>
        TimeSpan.FromSeconds(double.TryParse(Environment.GetEnvironmentVariable("GARNET_FUZZ_SECONDS"), out var s) ? s : 3);

    private static int NewSeed() =>
        int.TryParse(Environment.GetEnvironmentVariable("GARNET_FUZZ_SEED"), out var s) ? s : Random.Shared.Next();

    /// <summary>Runs one case after another for Duration: each gives the command and a check of its reply.</summary>
    private void Fuzz(string name, Func<Random, (object[] Command, Action<RespValue, string> Check)> next)
    {
        int seed = NewSeed();
        var rnd = new Random(seed);
        using var c = _server.Client(30000);
        using var other = _server.Client(10000);
        var sw = System.Diagnostics.Stopwatch.StartNew();
        int n = 0;
        string current = "";
        try
        {
            while (sw.Elapsed < Duration)
            {
                var (command, check) = next(rnd);
                current = Describe(command);
                var reply = c.Execute(command);
                check(reply, current);
                if (++n % 100 == 0) RespAssert.Simple(other.Execute("PING"), "PONG");
            }
            RespAssert.Simple(other.Execute("PING"), "PONG");
            RespAssert.Integer(c.Execute("EVAL", "return 1", "0"), 1);
        }
        catch (Exception)
        {
            TestContext.Out.WriteLine($"{name}: failed with GARNET_FUZZ_SEED={seed} at case {n}: {current}");
            throw;
        }
        TestContext.Out.WriteLine($"{name}: seed {seed}, {n} cases");
    }

    private static string Describe(object[] command) =>
        string.Join(" ", command.Select(a => a is byte[] b ? "0x" + Convert.ToHexString(b.AsSpan(0, Math.Min(b.Length, 200))) + (b.Length > 200 ? "..." : "") : a.ToString()));

    private static void NoDotNet(RespValue r, string context)
    {
        ScriptCodecHardeningTests.AssertNoDotNetText(r.Text, context);
        if (r.Elements is { } els) foreach (var e in els) NoDotNet(e, context);
    }

    /// <summary>A reply of "ok" or the pcall'ed message, which must match one of the library's texts.</summary>
    private static Action<RespValue, string> OkOr(Regex allowed) => (r, context) =>
    {
        Assert.That(r.IsError, Is.False, context + " -> " + r);
        NoDotNet(r, context);
        var text = r.Text ?? "";
        if (text == "ok") return;
        Assert.That(allowed.IsMatch(text), Is.True, $"{context} -> unexpected message: {text}");
    };

    private const string PcallArg = "local ok, e = pcall({0}, ARGV[1]{1}) if ok then return 'ok' end return tostring(e)";

    // ------------------------------------------------------------------ inputs

    private static byte[] Mutate(Random rnd, byte[] seed)
    {
        var b = new List<byte>(seed);
        int edits = rnd.Next(1, 5);
        for (int i = 0; i < edits; i++)
        {
            switch (rnd.Next(6))
            {
                case 0 when b.Count > 0: b[rnd.Next(b.Count)] = (byte)rnd.Next(256); break;
                case 1: b.Insert(rnd.Next(b.Count + 1), (byte)rnd.Next(256)); break;
                case 2 when b.Count > 0: b.RemoveAt(rnd.Next(b.Count)); break;
                case 3 when b.Count > 1: (b[0], b[^1]) = (b[^1], b[0]); break;
                case 4: b = b.Take(rnd.Next(b.Count + 1)).ToList(); break;
                default:
                    // a header claiming a large count or length, somewhere
                    byte[] header = rnd.Next(6) switch
                    {
                        0 => [0xdd, 0xff, 0xff, 0xff, 0xff],
                        1 => [0xdf, 0x00, 0xff, 0xff, 0xff],
                        2 => [0xdb, 0x7f, 0xff, 0xff, 0xff],
                        3 => [0xdc, 0xff, 0xff],
                        4 => [(byte)'['],
                        _ => [(byte)'{', (byte)'"'],
                    };
                    b.InsertRange(rnd.Next(b.Count + 1), header);
                    break;
            }
        }
        return b.ToArray();
    }

    /// <summary>A random Lua value as source text (tables nested a few levels, odd keys, odd numbers, any bytes).</summary>
    private static string LuaValue(Random rnd, int depth = 0)
    {
        switch (rnd.Next(depth > 3 ? 7 : 10))
        {
            case 0: return rnd.Next(3) switch { 0 => "nil", 1 => "true", _ => "false" };
            case 1: return rnd.Next(-1000, 1000).ToString();
            case 2: return rnd.Next(6) switch { 0 => "(0/0)", 1 => "(1/0)", 2 => "(-1/0)", 3 => "9223372036854775807", 4 => "-2^63", _ => (rnd.NextDouble() * 1e6).ToString("R", System.Globalization.CultureInfo.InvariantCulture) };
            case 3: case 4: return LuaString(rnd);
            case 5: return "cjson.null";
            case 6: return rnd.Next(2) == 0 ? "string.rep('ab', " + rnd.Next(0, 5000) + ")" : "function() end";
            default:
            {
                var sb = new StringBuilder("{");
                int n = rnd.Next(0, 6);
                for (int i = 0; i < n; i++)
                {
                    switch (rnd.Next(4))
                    {
                        case 0: sb.Append($"[{rnd.Next(1, 40)}]="); break;
                        case 1: sb.Append($"[{LuaString(rnd)}]="); break;
                        case 2: sb.Append(rnd.Next(8) == 0 ? "[true]=" : rnd.Next(8) == 0 ? "[1.5]=" : ""); break;
                    }
                    sb.Append(LuaValue(rnd, depth + 1)).Append(',');
                }
                return sb.Append('}').ToString();
            }
        }
    }

    private static string LuaString(Random rnd)
    {
        var sb = new StringBuilder("'");
        int n = rnd.Next(0, 12);
        for (int i = 0; i < n; i++) sb.Append('\\').Append(rnd.Next(4) == 0 ? rnd.Next(256) : rnd.Next(32, 127));
        return sb.Append('\'').ToString();
    }

    private static string RandomJson(Random rnd, int depth = 0)
    {
        switch (rnd.Next(depth > 3 ? 6 : 8))
        {
            case 0: return rnd.Next(3) switch { 0 => "null", 1 => "true", _ => "false" };
            case 1: return rnd.Next(-100000, 100000).ToString();
            case 2: return (rnd.NextDouble() * 1e10).ToString("E5", System.Globalization.CultureInfo.InvariantCulture);
            case 3: case 4: return "\"" + new string(Enumerable.Range(0, rnd.Next(8)).Select(_ => "ab\\\"/\u00e9 ".Substring(rnd.Next(7), 1)[0]).ToArray()).Replace("\\", "\\\\").Replace("\"", "\\\"") + (rnd.Next(4) == 0 ? "\\u00e9\\n\\ud83d\\ude00" : "") + "\"";
            case 5: return rnd.Next(2) == 0 ? "-0.5e-3" : "0x1F";
            case 6: return "[" + string.Join(",", Enumerable.Range(0, rnd.Next(5)).Select(_ => RandomJson(rnd, depth + 1))) + "]";
            default: return "{" + string.Join(",", Enumerable.Range(0, rnd.Next(5)).Select(i => $"\"k{i}\":" + RandomJson(rnd, depth + 1))) + "}";
        }
    }

    // ------------------------------------------------------------------ the fuzzers

    private static readonly Regex MsgPackErrors = new(@"(Missing bytes in input\.|Bad data format in input\.|stack overflow \(.*\)|not enough memory|table index is (nil|NaN))$");
    private static readonly Regex JsonErrors = new(@"(Expected .+ but found .+ at character \d+|Found too many nested data structures \(\d+\) at character \d+|JSON parser does not support UTF-16 or UTF-32|not enough memory)$");
    private static readonly Regex StructErrors = new(@"(bad argument #\d to '(unpack|pack|size)' \(.+\)|integral size .+|alignment \d+ is not a power of 2|format 'c0' needs a previous size|unfinished string in data|stack overflow \(too many results\)|not enough memory|bad argument #1 to 'unpack' \(invalid format option '.'\))$");

    [Test]
    public void MsgPackUnpackRandomAndMutatedInput()
    {
        using var setup = _server.Client();
        Fuzz("cmsgpack.unpack", rnd =>
        {
            byte[] input;
            if (rnd.Next(4) == 0)
            {
                input = new byte[rnd.Next(0, 64)];
                rnd.NextBytes(input);
            }
            else
            {
                var valid = setup.Execute("EVAL", "return cmsgpack.pack(loadstring('return ' .. ARGV[1])())", "0", LuaValue(rnd));
                input = Mutate(rnd, valid.Bytes ?? []);
            }
            return (["EVAL", string.Format(PcallArg, "cmsgpack.unpack", ""), "0", input], OkOr(MsgPackErrors));
        });
    }

    [Test]
    public void JsonDecodeRandomAndMutatedInput()
    {
        const string alphabet = "{}[],:\"\\ 0123456789-+.eEtrufalsnxIN\0\u00ff";
        Fuzz("cjson.decode", rnd =>
        {
            byte[] input = rnd.Next(5) == 0 ? Enumerable.Range(0, rnd.Next(40)).Select(_ => (byte)alphabet[rnd.Next(alphabet.Length)]).ToArray()
                : Mutate(rnd, Encoding.UTF8.GetBytes(RandomJson(rnd)));
            return (["EVAL", string.Format(PcallArg, "cjson.decode", ""), "0", input], OkOr(JsonErrors));
        });
    }

    [Test]
    public void StructUnpackRandomFormatsAndData()
    {
        const string alphabet = "bBhHlLTiIfdxsc<>! 0123456789=z";
        Fuzz("struct.unpack", rnd =>
        {
            var format = new string(Enumerable.Range(0, rnd.Next(1, 14)).Select(_ => alphabet[rnd.Next(alphabet.Length)]).ToArray());
            var data = new byte[rnd.Next(0, 48)];
            rnd.NextBytes(data);
            string offset = rnd.Next(5) == 0 ? ", " + rnd.Next(-2, 60) : "";
            var script = "local ok, e = pcall(struct.unpack, ARGV[2], ARGV[1]" + offset + ") if ok then return 'ok' end return tostring(e)";
            return (["EVAL", script, "0", data, format], OkOr(StructErrors));
        });
    }

    [Test]
    public void EncodeRandomLuaValuesAndReadThemBack()
    {
        const string script = """
            local v = loadstring('return ' .. ARGV[1])()
            local okj, j = pcall(cjson.encode, v)
            local okm, m = pcall(cmsgpack.pack, v)
            local okmb, mb = pcall(cmsgpack.unpack, okm and m or '')
            local okjb, jb = pcall(cjson.decode, okj and j or 'null')
            local oks, s = pcall(struct.pack, ARGV[2], v, v, v)
            return {tostring(okj), tostring(okm), tostring(okmb), tostring(okjb), tostring(j), tostring(m and #m), tostring(mb), tostring(s)}
            """;
        const string structAlphabet = "bBhHlLTiIfdxsc<>! 0123456789";
        Fuzz("encode", rnd =>
        {
            var format = new string(Enumerable.Range(0, rnd.Next(1, 6)).Select(_ => structAlphabet[rnd.Next(structAlphabet.Length)]).ToArray());
            return (["EVAL", script, "0", LuaValue(rnd), format], (r, context) =>
            {
                Assert.That(r.IsError, Is.False, context + " -> " + r);
                NoDotNet(r, context);
                var e = r.Elements!;
                Assert.That(e[1].Text, Is.EqualTo("true"), context + ": cmsgpack.pack takes any value");
                Assert.That(e[2].Text, Is.EqualTo("true"), context + ": cmsgpack.unpack reads pack's output");
                Assert.That(e[3].Text, Is.EqualTo("true"), context + ": cjson.decode reads encode's output");
                if (e[0].Text != "true")
                    Assert.That(e[4].Text, Does.Match("(Cannot serialise .+|not enough memory)$"), context);
            });
        });
    }
}
