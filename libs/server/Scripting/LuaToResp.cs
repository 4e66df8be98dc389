// LuaToResp: a script's return value as the reply Redis sends, per Redis's conversion table. Lua number -> integer
// (floats truncated toward zero), string -> bulk, true -> :1 (or a RESP3 boolean after redis.setresp(3)), false -> null
// (or RESP3 false), nil -> null, table with err -> error, ok -> status, double -> double, big_number, map, set,
// verbatim_string -> those RESP3 types (downgraded by the writer for RESP2 clients), other table -> array of its
// elements 1..n up to the first nil.
// Invariants: status and error texts have \r and \n replaced by spaces (as Redis); nesting deeper than MaxDepth (a
// cyclic table) becomes an error element instead of overflowing the stack (Redis does the same at its Lua stack limit,
// "reached lua stack limit"); the reply's bytes count against the script's memory budget (lua-memory-limit less the
// Lua heap in use): a reply that would pass it is dropped whole (the writer is rolled back) and the client gets
// "ERR not enough memory", so a small table that repeats one large string, or a wide cyclic table, cannot make a
// reply of any size.
using System.Text;
using Garnet.common.Resp;
using KeraLua;

namespace Garnet.server.Scripting;

internal static class LuaToResp
{
    public const int MaxDepth = 256;
    public const string TooLarge = "ERR not enough memory";

    private sealed class ReplyTooLarge : Exception;

    /// <summary>The reply's bytes so far and what they may reach.</summary>
    private sealed class Budget(RespWriter w, long max)
    {
        public readonly int Start = w.Length;

        /// <summary>Fails when more bytes would take the reply past its budget.</summary>
        public void Check(long more)
        {
            if (w.Length - Start + more > max) throw new ReplyTooLarge();
        }
    }

    /// <summary>Writes the value at the top of l's stack (and leaves it there); alloc is the script's Lua allocator, whose
    /// limit and use bound the reply (none: only ScriptMemoryBudget.NoLimitCeiling).</summary>
    public static void Write(Lua l, RespWriter w, int scriptResp, Action<string> writeError, LuaAllocator? alloc = null)
    {
        int top = l.GetTop();
        var budget = new Budget(w, Math.Max(0, new ScriptMemoryBudget(alloc).Remaining));
        try { Write(l, w, scriptResp, writeError, 0, budget); }
        catch (ReplyTooLarge)
        {
            l.SetTop(top);
            w.Truncate(budget.Start);
            writeError(TooLarge);
        }
    }

    private static void Write(Lua l, RespWriter w, int scriptResp, Action<string> writeError, int depth, Budget budget)
    {
        budget.Check(64);
        if (!l.CheckStack(4) || depth > MaxDepth)
        {
            writeError("ERR reached lua stack limit");
            return;
        }
        switch (l.Type(-1))
        {
            case LuaType.String:
            {
                var s = LuaNative.ToSpan(l.Handle, -1);
                budget.Check(s.Length + 16);
                w.WriteBulkString(s);
                return;
            }
            case LuaType.Number:
                if (l.IsInteger(-1)) w.WriteInteger(l.ToInteger(-1));
                else
                {
                    double d = l.ToNumber(-1);
                    w.WriteInteger(double.IsNaN(d) ? long.MinValue : d >= 9.2233720368547758E18 ? long.MinValue : d <= -9.2233720368547758E18 ? long.MinValue : (long)d);
                }
                return;
            case LuaType.Boolean:
                if (scriptResp == 2)
                {
                    if (l.ToBoolean(-1)) w.WriteInteger(1);
                    else w.WriteNull();
                }
                else w.WriteBoolean(l.ToBoolean(-1));
                return;
            case LuaType.Table:
                WriteTable(l, w, scriptResp, writeError, depth, budget);
                return;
            default:
                w.WriteNull();
                return;
        }
    }

    private static void WriteTable(Lua l, RespWriter w, int scriptResp, Action<string> writeError, int depth, Budget budget)
    {
        if (Field(l, "err", LuaType.String))
        {
            budget.Check(3L * LuaNative.ToSpan(l.Handle, -1).Length + 16); // the text passes through a .NET string
            string msg = Clean(l.ToString(-1, false));
            l.Pop(1);
            writeError(msg);
            return;
        }
        if (Field(l, "ok", LuaType.String))
        {
            budget.Check(3L * LuaNative.ToSpan(l.Handle, -1).Length + 16);
            w.WriteSimpleString(Clean(l.ToString(-1, false)));
            l.Pop(1);
            return;
        }
        if (Field(l, "double", LuaType.Number))
        {
            w.WriteDouble(l.ToNumber(-1));
            l.Pop(1);
            return;
        }
        if (Field(l, "big_number", LuaType.String))
        {
            budget.Check(3L * LuaNative.ToSpan(l.Handle, -1).Length + 16);
            var text = Clean(l.ToString(-1, false));
            l.Pop(1);
            if (w.Protocol >= 3) w.WriteRaw(Encoding.ASCII.GetBytes("(" + text + "\r\n"));
            else w.WriteBulkString(text);
            return;
        }
        if (Field(l, "verbatim_string", LuaType.Table))
        {
            l.PushString("format"); // raw: a metamethod run from C# could raise through it (process abort) or loop
            l.RawGet(-2);
            string? format = l.Type(-1) == LuaType.String ? l.ToString(-1, false) : null;
            l.Pop(1);
            l.PushString("string");
            l.RawGet(-2);
            if (l.Type(-1) == LuaType.String) budget.Check(2L * LuaNative.ToSpan(l.Handle, -1).Length + 32);
            byte[]? body = l.Type(-1) == LuaType.String ? LuaNative.ToSpan(l.Handle, -1).ToArray() : null;
            l.Pop(2);
            if (format is { Length: 3 } && body is not null)
            {
                if (w.Protocol >= 3)
                {
                    w.WriteRaw(Encoding.ASCII.GetBytes("=" + (body.Length + 4) + "\r\n" + format + ":"));
                    w.WriteRaw(body);
                    w.WriteRaw("\r\n"u8);
                }
                else w.WriteBulkString(body);
                return;
            }
            w.WriteNull();
            return;
        }
        if (Field(l, "map", LuaType.Table))
        {
            int count = 0;
            l.PushNil();
            while (l.Next(-2)) { count++; l.Pop(1); }
            w.WriteMapHeader(count);
            l.PushNil();
            while (l.Next(-2))
            {
                l.PushCopy(-2);
                Write(l, w, scriptResp, writeError, depth + 1, budget);
                l.Pop(1);
                Write(l, w, scriptResp, writeError, depth + 1, budget);
                l.Pop(1);
            }
            l.Pop(1);
            return;
        }
        if (Field(l, "set", LuaType.Table))
        {
            int count = 0;
            l.PushNil();
            while (l.Next(-2)) { count++; l.Pop(1); }
            w.WriteSetHeader(count);
            l.PushNil();
            while (l.Next(-2))
            {
                l.Pop(1);
                Write(l, w, scriptResp, writeError, depth + 1, budget);
            }
            l.Pop(1);
            return;
        }
        int n = 0;
        while (true)
        {
            var t = l.RawGetInteger(-1, n + 1);
            l.Pop(1);
            if (t == LuaType.Nil) break;
            n++;
        }
        w.WriteArrayHeader(n);
        for (int i = 1; i <= n; i++)
        {
            l.RawGetInteger(-1, i);
            Write(l, w, scriptResp, writeError, depth + 1, budget);
            l.Pop(1);
        }
    }

    /// <summary>Pushes t[name] when it has type want (true); pushes nothing otherwise.</summary>
    private static bool Field(Lua l, string name, LuaType want)
    {
        l.PushString(name);
        var t = l.RawGet(-2);
        if (t == want) return true;
        l.Pop(1);
        return false;
    }

    private static string Clean(string s) => s.Replace('\r', ' ').Replace('\n', ' ');
}
