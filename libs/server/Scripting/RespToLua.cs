// RespToLua: a command's reply (RESP bytes our server wrote) as the Lua value Redis gives a script, per the conversion
// table in Redis's docs. RESP2: integer -> number, bulk -> string, null bulk / null array -> false, array -> table,
// status -> {ok=...}, error -> {err=...}. RESP3 (redis.setresp(3)) adds: null -> nil, map -> {map={...}},
// set -> {set={member=true}}, boolean -> true/false, double -> {double=n}, big number -> {big_number="..."},
// verbatim -> {verbatim_string={format=..., string=...}}; push and attribute frames do not occur in command replies.
// Invariants: the bytes are one complete reply written by RespWriter (trusted, well-formed); nesting deeper than
// MaxDepth is an error ("reached lua stack limit"), never a stack overflow; the reply (already off the Lua heap) must
// fit the script's memory budget before it is converted, and the values pushed count against it as they go
// ("not enough memory", as Lua says it).
using System.Globalization;
using System.Runtime.CompilerServices;
using KeraLua;

namespace Garnet.server.Scripting;

internal static class RespToLua
{
    public const int MaxDepth = 1000;
    public const string StackLimit = "reached lua stack limit";

    /// <summary>Pushes the reply at pos (one value) onto l; a LuaArgumentException when it is too deep or too large.</summary>
    public static void Push(Lua l, ReadOnlySpan<byte> r, ref int pos, int resp)
    {
        var budget = ScriptMemoryBudget.ForCallback();
        budget.Need(r.Length);
        Push(l, r, ref pos, resp, 0, budget);
    }

    private static void Push(Lua l, ReadOnlySpan<byte> r, ref int pos, int resp, int depth, ScriptMemoryBudget budget)
    {
        if (depth > MaxDepth || !l.CheckStack(4) || !RuntimeHelpers.TryEnsureSufficientExecutionStack()) throw new LuaArgumentException(StackLimit);
        budget.CheckHeap();
        byte type = r[pos++];
        var line = Line(r, ref pos);
        switch (type)
        {
            case (byte)':':
                l.PushInteger(long.Parse(line, CultureInfo.InvariantCulture));
                return;
            case (byte)'$':
            case (byte)'=':
            {
                int len = int.Parse(line, CultureInfo.InvariantCulture);
                if (len < 0) { l.PushBoolean(false); return; }
                var body = r.Slice(pos, len);
                pos += len + 2;
                if (type == (byte)'=')
                {
                    l.CreateTable(0, 1);
                    l.CreateTable(0, 2);
                    LuaNative.Push(l.Handle, body[..3]);
                    l.SetField(-2, "format");
                    LuaNative.Push(l.Handle, body[4..]);
                    l.SetField(-2, "string");
                    l.SetField(-2, "verbatim_string");
                    return;
                }
                LuaNative.Push(l.Handle, body);
                return;
            }
            case (byte)'+':
                l.CreateTable(0, 1);
                LuaNative.Push(l.Handle, line);
                l.SetField(-2, "ok");
                return;
            case (byte)'-':
                l.CreateTable(0, 1);
                LuaNative.Push(l.Handle, line);
                l.SetField(-2, "err");
                return;
            case (byte)'*':
            case (byte)'~':
            case (byte)'>':
            {
                int n = int.Parse(line, CultureInfo.InvariantCulture);
                if (n < 0) { l.PushBoolean(false); return; }
                if (type == (byte)'~')
                {
                    l.CreateTable(0, 1);
                    l.CreateTable(0, n);
                    for (int i = 0; i < n; i++)
                    {
                        Push(l, r, ref pos, resp, depth + 1, budget);
                        l.PushBoolean(true);
                        l.RawSet(-3);
                    }
                    l.SetField(-2, "set");
                    return;
                }
                l.CreateTable(n, 0);
                for (int i = 1; i <= n; i++)
                {
                    Push(l, r, ref pos, resp, depth + 1, budget);
                    l.RawSetInteger(-2, i);
                }
                return;
            }
            case (byte)'%':
            {
                int n = int.Parse(line, CultureInfo.InvariantCulture);
                l.CreateTable(0, 1);
                l.CreateTable(0, n);
                for (int i = 0; i < n; i++)
                {
                    Push(l, r, ref pos, resp, depth + 1, budget);
                    Push(l, r, ref pos, resp, depth + 1, budget);
                    l.RawSet(-3);
                }
                l.SetField(-2, "map");
                return;
            }
            case (byte)'_':
                if (resp == 3) l.PushNil();
                else l.PushBoolean(false);
                return;
            case (byte)'#':
                l.PushBoolean(line.Length > 0 && line[0] == (byte)'t');
                return;
            case (byte)',':
            {
                l.CreateTable(0, 1);
                var text = System.Text.Encoding.ASCII.GetString(line);
                double d = text switch { "inf" => double.PositiveInfinity, "-inf" => double.NegativeInfinity, "nan" => double.NaN, _ => double.Parse(text, CultureInfo.InvariantCulture) };
                l.PushNumber(d);
                l.SetField(-2, "double");
                return;
            }
            case (byte)'(':
                l.CreateTable(0, 1);
                LuaNative.Push(l.Handle, line);
                l.SetField(-2, "big_number");
                return;
            default:
                l.PushBoolean(false);
                return;
        }
    }

    private static ReadOnlySpan<byte> Line(ReadOnlySpan<byte> r, ref int pos)
    {
        int end = r.Slice(pos).IndexOf((byte)'\r');
        var line = r.Slice(pos, end);
        pos += end + 2;
        return line;
    }
}
