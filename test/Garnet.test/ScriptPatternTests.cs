// string.find/match/gmatch/gsub on the C# matcher (LuaPatterns), through a real client:
//  - differential: for fixed and seeded-random (subject, pattern, init) cases, the scripts' functions (find, match, the
//    method form, gmatch with init, gsub with a string, a table with __index, a function, and a max count) give the same
//    results and the same error texts as Lua 5.4's native functions, run in a plain KeraLua state in this process;
//    bounded in time (GARNET_FUZZ_SECONDS, default 3 s), the seed printed on failure (GARNET_FUZZ_SEED replays one);
//  - the kill: a backtracking match that Lua's C matcher would run for hours (one C call, where the kill hook never
//    runs) leaves the server answering BUSY, SCRIPT KILL stops it, PING answers afterwards.
using System.Text;
using Garnet.client;

namespace Garnet.test;

[TestFixture]
public class ScriptPatternTests : ServerFixture
{
    private static TimeSpan Duration =>
        TimeSpan.FromSeconds(double.TryParse(Environment.GetEnvironmentVariable("GARNET_FUZZ_SECONDS"), out var s) ? s : 3);

    // Runs every case of `cases` (a Lua table constructor of {subject, pattern, init} with init false for none) through
    // the string functions and returns one line per case of encoded results.
    private const string Harness = """
        local function enc(v)
          local t = type(v)
          if t == 'string' then
            local b = {}
            for i = 1, #v do b[i] = string.format('%02x', string.byte(v, i)) end
            return 's' .. table.concat(b)
          elseif t == 'number' then return (math.type(v) == 'integer' and 'i' or 'f') .. tostring(v) end
          return t .. ':' .. tostring(v)
        end
        local function res(ok, ...)
          local parts = {ok and 'ok' or 'err'}
          for i = 1, select('#', ...) do
            local v = select(i, ...)
            parts[#parts + 1] = (not ok and type(v) == 'string') and ('E' .. v) or enc(v)
          end
          return table.concat(parts, ',')
        end
        local repls = {'<%0>', '%1-%1', '%%', 'x', '%2', '%q', '', '%', 7}
        local tbl = setmetatable({a = 'A', [1] = 'one', [2] = 2.5, d = false, e = true},
          {__index = function(_, k) if k == 'z' then return 'Z' end end})
        local function fn(...)
          local a = ...
          if a == 'a' then return nil elseif a == 'b' then return false elseif a == 'e' then return {} end
          local parts = {select('#', ...)}
          for i = 1, select('#', ...) do parts[#parts + 1] = tostring((select(i, ...))) end
          return table.concat(parts, ':')
        end
        local out = {}
        for k, c in ipairs(cases) do
          local s, p, init = c[1], c[2], c[3]
          if init == false then init = nil end
          local r = {}
          r[#r + 1] = res(pcall(function() local x = table.pack(string.find(s, p, init)) return table.unpack(x, 1, x.n) end))
          r[#r + 1] = res(pcall(function() local x = table.pack(string.match(s, p, init)) return table.unpack(x, 1, x.n) end))
          if type(s) == 'string' then
            r[#r + 1] = res(pcall(function() local x = table.pack(s:find(p, init, k % 7 == 0)) return table.unpack(x, 1, x.n) end))
          end
          r[#r + 1] = res(pcall(function()
            local it, acc = string.gmatch(s, p, init), {}
            for _ = 1, 40 do
              local x = table.pack(it())
              if x.n == 0 or x[1] == nil then acc[#acc + 1] = tostring(x.n) break end
              acc[#acc + 1] = res(true, table.unpack(x, 1, x.n))
            end
            return table.concat(acc, ';')
          end))
          local repl = repls[k % #repls + 1]
          r[#r + 1] = res(pcall(function() local a, b = string.gsub(s, p, repl) return a, b end))
          r[#r + 1] = res(pcall(function() local a, b = string.gsub(s, p, tbl) return a, b end))
          r[#r + 1] = res(pcall(function() local a, b = string.gsub(s, p, fn) return a, b end))
          r[#r + 1] = res(pcall(function() local a, b = string.gsub(s, p, '#', k % 4) return a, b end))
          out[k] = table.concat(r, ' | ')
        end
        return table.concat(out, '\n')
        """;

    private static readonly string[] FixedCases =
    [
        "{'hello world', 'o', false}", "{'hello world from lua', 'o', false}", "{'key:123:abc', '(%w+):(%d+):(%w+)', false}",
        "{'  trim  ', '^%s*(.-)%s*$', false}", "{'THE (quick) fox', '%((%a+)%)', false}", "{'f(a(b)c)d', '%b()', false}",
        "{'THE (quick) fox', '%f[%a]%a+', false}", "{'abc', '()b()', false}", "{'abcabc', '(a)(b)c%1%2', false}",
        "{'', '', false}", "{'abc', '', false}", "{'abc', '^', false}", "{'abc', '$', false}", "{'aaa', 'a-b', false}",
        "{'aaa', 'a*', false}", "{'abc', '%', false}", "{'abc', '[a', false}", "{'abc', '(a', false}", "{'abc', 'a)', false}",
        "{'abc', '%f', false}", "{'abc', '%fa', false}", "{'abc', '%1', false}", "{'abc', '%b', false}", "{'abc', '%ba', false}",
        "{'abc', '[%', false}", "{'abc', '[]', false}", "{'a]c', '[]]', false}", "{'a^c', '[a^]+', false}", "{'a-c', '[a-]+', false}",
        "{'abc', string.rep('()', 33), false}", "{'abc', string.rep('()', 32), false}",
        "{string.rep('a', 250), string.rep('a?', 250), false}", "{string.rep('a', 150), string.rep('a?', 150), false}",
        "{string.rep('a', 300), 'a*a*b', false}", "{string.rep('x', 300), '.-y', false}",
        "{123.5, '%d+', false}", "{12345, 3, false}", "{12345, 3, 4}", "{'a.b', '.', false}", "{'a.b', '%.', false}",
        "{'a+b', 'a+b', false}", "{'hello', 'l', -2}", "{'hello', 'l', 10}", "{'hello', '', 6}", "{'hello', '', 7}",
        "{'hello', 'l+', -100}", "{'x\\0y\\0z', '%z', false}", "{'x\\0y', '\\0', false}", "{'x\\0y', '[\\0]', false}",
        "{'caf\\195\\169', '[\\128-\\255]+', false}", "{'caf\\195\\169', '%a+', false}", "{'one two  three', '%s*', false}",
        "{'abc', '^(a)', false}", "{'^abc', '^^a', false}", "{'abc', 'c$', false}", "{'a$c', 'a$c', false}",
        "{'hello world', '(o)(.)', false}", "{'abc', '(', false}", "{'abc', ')', false}", "{'abc', '%g%P', false}",
        "{'[x]', '[%[%]]', false}", "{'a-b', '[%a-]', false}", "{'AbC', '%u%l%U', false}", "{'0x1F', '%x+', false}",
        "{'\\1\\31 \\127', '%c+', false}", "{'a,b;c', '%p', false}", "{'THE END', '%f[%w]%w+', false}", "{'abc', '%f[%W]', false}",
    ];

    private static readonly string[] Tokens =
    [
        "a", "b", "x", ".", "%a", "%d", "%s", "%w", "%p", "%A", "%S", "%l", "%u", "%x", "%c", "%g", "%z", "%W", "[ab]",
        "[^a]", "[a-c]", "[%a_]", "[%]]", "[^%s]", "[]", "[^]", "%b()", "%bab", "%f[%w]", "%f[%W]", "%f[a]", "%f", "(",
        ")", "()", "(a)", "(.-)", "%1", "%2", "%0", "*", "+", "-", "?", "^", "$", "%", "[", "]", "%.", "%%", "%(", "\0",
        "\u00e9", "[\u0080-\u00ff]", "[a-]", "[-a]", "%b",
    ];

    private const string SubjectBytes = "aaabbx(). %1_-[]\0\u00e9AZ9\tc";

    private static string LuaLiteral(string text)
    {
        var sb = new StringBuilder("'");
        foreach (char ch in text) sb.Append('\\').Append(((int)(byte)ch).ToString("D3"));
        return sb.Append('\'').ToString();
    }

    private static string RandomCase(Random rnd)
    {
        var subject = new StringBuilder();
        for (int i = rnd.Next(13); i > 0; i--) subject.Append(SubjectBytes[rnd.Next(SubjectBytes.Length)]);
        var pattern = new StringBuilder();
        for (int i = 1 + rnd.Next(5); i > 0; i--) pattern.Append(Tokens[rnd.Next(Tokens.Length)]);
        string[] inits = ["false", "false", "false", "1", "2", "0", "-1", "-3", "5", "20", "-20"];
        return "{" + LuaLiteral(subject.ToString()) + ", " + LuaLiteral(pattern.ToString()) + ", " + inits[rnd.Next(inits.Length)] + "}";
    }

    private static string Source(IReadOnlyList<string> cases) => "local cases = {" + string.Join(",\n", cases) + "}\n" + Harness;

    /// <summary>The results of Lua 5.4's own string library (a plain state).</summary>
    private static string[] Native(string source)
    {
        using var lua = new KeraLua.Lua();
        lua.OpenLibs();
        Assert.That(lua.LoadString(source, "@user_script"), Is.EqualTo(KeraLua.LuaStatus.OK), lua.ToString(-1));
        Assert.That(lua.PCall(0, 1, 0), Is.EqualTo(KeraLua.LuaStatus.OK), lua.ToString(-1));
        return lua.ToString(-1).Split('\n');
    }

    private static string[] Ours(RespClient c, string source)
    {
        var reply = c.Execute("EVAL", source, "0");
        Assert.That(reply.IsError, Is.False, reply.Text);
        return reply.Text!.Split('\n');
    }

    private static void Compare(IReadOnlyList<string> cases, string[] native, string[] ours, string context)
    {
        Assert.That(ours, Has.Length.EqualTo(native.Length), context);
        for (int i = 0; i < native.Length; i++)
            Assert.That(ours[i], Is.EqualTo(native[i]), $"{context}: case {cases[i]}");
    }

    [Test]
    public void FixedCasesMatchNativeLua()
    {
        using var c = _server.Client(30000);
        var source = Source(FixedCases);
        Compare(FixedCases, Native(source), Ours(c, source), "fixed");
    }

    [Test, CancelAfter(60000)]
    public void RandomCasesMatchNativeLua()
    {
        int seed = int.TryParse(Environment.GetEnvironmentVariable("GARNET_FUZZ_SEED"), out var s) ? s : Random.Shared.Next();
        var rnd = new Random(seed);
        using var c = _server.Client(30000);
        var sw = System.Diagnostics.Stopwatch.StartNew();
        int batches = 0;
        do
        {
            var cases = new List<string>();
            for (int i = 0; i < 200; i++) cases.Add(RandomCase(rnd));
            var source = Source(cases);
            Compare(cases, Native(source), Ours(c, source), $"seed {seed} (GARNET_FUZZ_SEED), batch {batches}");
            batches++;
        } while (sw.Elapsed < Duration && batches < 1000);
        TestContext.Out.WriteLine($"seed {seed}: {batches * 200} cases");
    }

    [Test]
    public void ArgumentErrorsAreLuasOwn()
    {
        using var c = _server.Client();
        foreach (var (script, error) in new[]
        {
            ("return string.find(nil, 'a')", "bad argument #1 to 'find' (string expected, got nil)"),
            ("return string.find('a')", "bad argument #2 to 'find' (string expected, got no value)"),
            ("return string.match('a', 'a', 'x')", "bad argument #3 to 'match' (number expected, got string)"),
            ("return string.find('a', 'a', 1.5)", "bad argument #3 to 'find' (number has no integer representation)"),
            ("return string.gsub('a', 'a', true)", "bad argument #3 to 'gsub' (string/function/table expected, got boolean)"),
            ("return string.gsub('a', 'a', 'b', {})", "bad argument #4 to 'gsub' (number expected, got table)"),
            ("return string.gmatch({}, 'a')", "bad argument #1 to 'gmatch' (string expected, got table)"),
        })
        {
            var reply = c.Execute("EVAL", script, "0");
            Assert.That(reply.IsError, Is.True, script);
            // a tail call keeps the script's line, as Redis's C functions do
            Assert.That(reply.Text, Does.StartWith("ERR user_script:1: " + error + " script: "), script);
        }
        RespAssert.Integer(c.Execute("EVAL", "return string.find('a', 'a', '1')", "0"), 1);
        RespAssert.Bulk(c.Execute("EVAL", "return (string.gsub(12, 2, 3.5))", "0"), "13.5");
    }

    [Test]
    public void GsubOutputCountsAgainstTheMemoryLimit()
    {
        using var c = _server.Client();
        var limit = c.Execute("CONFIG", "GET", "lua-memory-limit").Elements![1].Text!;
        c.Execute("CONFIG", "SET", "lua-memory-limit", "16000000");
        try
        {
            // 1 GB of output from a 100 KB subject: refused at the limit, before it is built.
            var reply = c.Execute("EVAL", "return #(string.gsub(string.rep('a', 100000), 'a', string.rep('b', 10000)))", "0");
            Assert.That(reply.IsError, Is.True);
            Assert.That(reply.Text, Does.Contain("not enough memory"));
            RespAssert.Integer(c.Execute("EVAL", "return #(string.gsub(string.rep('a', 1000), 'a', string.rep('b', 1000)))", "0"), 1000000);
        }
        finally { c.Execute("CONFIG", "SET", "lua-memory-limit", limit); }
    }

    // Each runs for hours on Lua's C matcher: a*a*a*a*b over 3,000 'a's backtracks through ~n^4/24 positions.
    private static readonly string[] Catastrophes =
    [
        "return string.find(string.rep('a', 3000), string.rep('a*', 4) .. 'b')",
        "return string.match(string.rep('a', 3000), string.rep('a*', 4) .. 'b')",
        "for x in string.gmatch(string.rep('a', 3000), string.rep('a*', 4) .. 'b') do end",
        "return string.gsub(string.rep('a', 3000), string.rep('a*', 4) .. 'b', 'x')",
        "return string.gsub(string.rep('a', 3000), string.rep('a*', 4) .. 'b', function() end)",
        "return (string.rep('a', 3000)):find(string.rep('a-', 4) .. 'b')",
        "while true do pcall(string.find, string.rep('a', 3000), string.rep('a*', 4) .. 'b') end",
    ];

    [TestCaseSource(nameof(Catastrophes)), CancelAfter(30000)]
    public void ScriptKillStopsABacktrackingMatch(string script)
    {
        using var c = _server.Client(30000);
        using var other = _server.Client(10000);
        c.Execute("CONFIG", "SET", "busy-reply-threshold", "200");
        try
        {
            c.Send("EVAL", script, "0");
            BusyScript.PastThreshold(_server, 200); // busy-reply-threshold
            RespAssert.Error(other.Execute("PING"), "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.");
            var sw = System.Diagnostics.Stopwatch.StartNew();
            RespAssert.Simple(other.Execute("SCRIPT", "KILL"), "OK");
            Assert.That(c.Read().Text, Does.StartWith("ERR Script killed by user with SCRIPT KILL..."));
            Assert.That(sw.ElapsedMilliseconds, Is.LessThan(5000), "the script ended soon after SCRIPT KILL");
            RespAssert.Simple(other.Execute("PING"), "PONG");
            RespAssert.Integer(c.Execute("EVAL", "return (string.find('hello', 'l+'))", "0"), 3);
        }
        finally { other.Execute("CONFIG", "SET", "busy-reply-threshold", "5000"); }
    }
}
