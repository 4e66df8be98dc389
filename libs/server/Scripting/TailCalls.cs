// TailCalls: keeps `return lib.f(...)` from being a Lua tail call when lib.f is one of our Lua wrappers, so an error it
// raises still names the script's line, as in Redis.
// Redis's library functions (redis.call, cjson.decode, string.find, ...) are C functions: a tail call to one keeps the
// script's frame (Lua 5.1 and 5.4 alike), so its error reads "user_script:N: ..." and ends with
// " script: <sha>, on @user_script:N.". Ours are Lua wrappers over C# primitives (which never raise); a tail call to a
// Lua function replaces the script's frame, and the position was lost. The compiled text turns such a statement into
//     do local __redis_tc <close> = nil return lib.f(...) end
// A block with a to-be-closed variable makes no tail calls (Lua 5.4's parser), and every value the call returns is
// still returned (a nil to-be-closed value is ignored, nothing runs at the block's end).
// Invariants:
//  - Only text is added, on the lines of the statement's own tokens: line numbers are unchanged, and the SHA is computed
//    on the body as sent.
//  - Only a `return` whose whole expression list is one call, followed by what may end a block, is rewritten, and only
//    when the called function is reached through a library table of the sandbox (redis, string, cjson, cmsgpack,
//    struct, bit, table, math, coroutine, os), is a global the prelude wraps, or is a method find/match/gmatch/gsub
//    (strings' wrapped methods). A user function's tail calls (recursion included) stay tail calls.
//  - Text that names the added local, or _ENV, is compiled as sent; so is text the compiler refuses once rewritten
//    (LuaRuntime.Compile retries with the original), so the rewrite never changes whether or how a script compiles.
namespace Garnet.server.Scripting;

internal static class TailCalls
{
    public const string Local = "__redis_tc";
    private static readonly byte[] Open = "do local __redis_tc <close> = nil "u8.ToArray(), Close = " end"u8.ToArray();

    private static readonly HashSet<string> Libraries = ["redis", "string", "cjson", "cmsgpack", "struct", "bit", "table", "math", "coroutine", "os"];
    private static readonly HashSet<string> Globals =
        ["setmetatable", "rawset", "rawget", "next", "pcall", "xpcall", "load", "loadstring", "getfenv", "setfenv", "newproxy", "gcinfo", "collectgarbage", "unpack"];
    private static readonly HashSet<string> StringMethods = ["find", "match", "gmatch", "gsub"];
    private static readonly HashSet<string> BlockEnds = ["end", "else", "elseif", "until"];

    /// <summary>The source with every such `return` kept from being a tail call (the same array when there is none).</summary>
    public static byte[] Rewrite(byte[] src)
    {
        if (src.AsSpan().IndexOf("return"u8) < 0) return src;
        var tokens = LuaTokens.Read(src, out bool complete);
        if (!complete) return src;
        foreach (var t in tokens)
            if (t.Kind == LuaTokenKind.Name && (LuaTokens.Is(src, t, "_ENV"u8) || LuaTokens.Is(src, t, "__redis_tc"u8))) return src;
        var spans = new List<(int Start, int End)>(); // [return, end of its call)
        for (int i = 0; i < tokens.Count; i++)
        {
            if (tokens[i].Kind != LuaTokenKind.Name || !LuaTokens.Is(src, tokens[i], "return"u8)) continue;
            int end = CallEnd(src, tokens, i + 1);
            if (end < 0) continue;
            bool blockEnds = end == tokens.Count
                || (tokens[end].Kind == LuaTokenKind.Symbol && LuaTokens.Is(src, tokens[end], ";"u8))
                || (tokens[end].Kind == LuaTokenKind.Name && BlockEnds.Contains(Text(src, tokens[end])));
            if (blockEnds) spans.Add((tokens[i].Start, tokens[end - 1].End));
        }
        if (spans.Count == 0) return src;
        var inserts = new List<(int At, int Order, byte[] Text)>(2 * spans.Count);
        foreach (var (start, end) in spans)
        {
            inserts.Add((start, 1, Open));
            inserts.Add((end, 0, Close)); // at one offset a call's end comes before a statement's start
        }
        inserts.Sort((x, y) => x.At != y.At ? x.At.CompareTo(y.At) : x.Order.CompareTo(y.Order));
        var output = new byte[src.Length + inserts.Sum(x => x.Text.Length)];
        int from = 0, o = 0;
        foreach (var (at, _, text) in inserts)
        {
            src.AsSpan(from, at - from).CopyTo(output.AsSpan(o));
            o += at - from;
            text.CopyTo(output.AsSpan(o));
            o += text.Length;
            from = at;
        }
        src.AsSpan(from).CopyTo(output.AsSpan(o));
        return output;
    }

    /// <summary>When tokens from i are one call of a wrapped library function (Lua's suffixedexp ending in a call): the
    /// index just past it; else -1.</summary>
    private static int CallEnd(byte[] src, List<LuaToken> tokens, int i)
    {
        if (i >= tokens.Count) return -1;
        var path = new List<string>(); // the dotted name so far (empty once the expression is no plain path)
        bool plainPath;
        if (tokens[i].Kind == LuaTokenKind.Name && !IsKeyword(Text(src, tokens[i])))
        {
            path.Add(Text(src, tokens[i]));
            plainPath = true;
            i++;
        }
        else if (IsSymbol(src, tokens[i], "("))
        {
            i = SkipBalanced(src, tokens, i);
            if (i < 0) return -1;
            plainPath = false;
        }
        else return -1;
        bool wrapped = false, endsInCall = false;
        while (i < tokens.Count)
        {
            var t = tokens[i];
            if (IsSymbol(src, t, ".") && i + 1 < tokens.Count && tokens[i + 1].Kind == LuaTokenKind.Name)
            {
                if (plainPath) path.Add(Text(src, tokens[i + 1]));
                i += 2;
                endsInCall = false;
            }
            else if (IsSymbol(src, t, "["))
            {
                i = SkipBalanced(src, tokens, i);
                plainPath = endsInCall = false;
            }
            else if (IsSymbol(src, t, ":") && i + 1 < tokens.Count && tokens[i + 1].Kind == LuaTokenKind.Name)
            {
                string method = Text(src, tokens[i + 1]);
                i = SkipArguments(src, tokens, i + 2);
                wrapped = StringMethods.Contains(method);
                plainPath = false;
                endsInCall = true;
            }
            else if (IsArguments(src, t))
            {
                wrapped = plainPath && (Libraries.Contains(path[0]) ? path.Count > 1 : path.Count == 1 && Globals.Contains(path[0]));
                i = SkipArguments(src, tokens, i);
                plainPath = false;
                endsInCall = true;
            }
            else break;
            if (i < 0) return -1;
        }
        return endsInCall && wrapped ? i : -1;
    }

    private static bool IsArguments(byte[] src, LuaToken t) =>
        t.Kind == LuaTokenKind.String || IsSymbol(src, t, "(") || IsSymbol(src, t, "{");

    /// <summary>Past a call's arguments at i ("(...)", "{...}" or a string); -1 when there are none.</summary>
    private static int SkipArguments(byte[] src, List<LuaToken> tokens, int i)
    {
        if (i >= tokens.Count) return -1;
        if (tokens[i].Kind == LuaTokenKind.String) return i + 1;
        return IsSymbol(src, tokens[i], "(") || IsSymbol(src, tokens[i], "{") ? SkipBalanced(src, tokens, i) : -1;
    }

    /// <summary>Past the bracket opened at i and its match ((), [], {} nest); -1 when it is never closed.</summary>
    private static int SkipBalanced(byte[] src, List<LuaToken> tokens, int i)
    {
        int depth = 0;
        for (; i < tokens.Count; i++)
        {
            var t = tokens[i];
            if (t.Kind != LuaTokenKind.Symbol || t.Length != 1) continue;
            byte c = src[t.Start];
            if (c is (byte)'(' or (byte)'[' or (byte)'{') depth++;
            else if (c is (byte)')' or (byte)']' or (byte)'}' && --depth == 0) return i + 1;
        }
        return -1;
    }

    private static bool IsSymbol(byte[] src, LuaToken t, string symbol) =>
        t.Kind == LuaTokenKind.Symbol && t.Length == symbol.Length && src[t.Start] == symbol[0];

    private static string Text(byte[] src, LuaToken t) => System.Text.Encoding.UTF8.GetString(src, t.Start, t.Length);

    private static bool IsKeyword(string name) => name is "and" or "break" or "do" or "else" or "elseif" or "end" or "false" or "for"
        or "function" or "goto" or "if" or "in" or "local" or "nil" or "not" or "or" or "repeat" or "return" or "then" or "true"
        or "until" or "while";
}
