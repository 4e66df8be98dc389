// LuaJson: cjson.encode / cjson.decode as Redis's lua-cjson does them: tables with only keys 1..n are arrays (an empty
// table is {} object), numbers print as integers when integral (else %.14g), cjson.null (a NULL light userdata) is
// JSON null; decode maps null to cjson.null, arrays to tables from 1, objects to tables.
// Invariants: nesting is capped at 1000 levels both ways (cjson's default), cyclic tables hit that cap; errors are
// (false, message) results.
using System.Globalization;
using System.Text;
using System.Text.Json;
using KeraLua;

namespace Garnet.server.Scripting;

internal static class LuaJson
{
    private const int MaxDepth = 500;

    public static int Encode(Lua l)
    {
        if (l.GetTop() != 1) return LuaCallbacks.Fail(l, "bad argument #1 to 'encode' (expected 1 argument)");
        var sb = new StringBuilder();
        EncodeValue(l, 1, sb, 0);
        l.PushBoolean(true);
        LuaNative.Push(l.Handle, Encoding.UTF8.GetBytes(sb.ToString()));
        return 2;
    }

    private static void EncodeValue(Lua l, int index, StringBuilder sb, int depth)
    {
        if (depth > MaxDepth) throw new LuaArgumentException("Cannot serialise, excessive nesting (1001)");
        index = l.AbsIndex(index);
        switch (l.Type(index))
        {
            case LuaType.Nil: sb.Append("null"); return;
            case LuaType.Boolean: sb.Append(l.ToBoolean(index) ? "true" : "false"); return;
            case LuaType.LightUserData when l.ToUserData(index) == IntPtr.Zero: sb.Append("null"); return;
            case LuaType.Number:
                if (l.IsInteger(index)) sb.Append(l.ToInteger(index).ToString(CultureInfo.InvariantCulture));
                else
                {
                    double d = l.ToNumber(index);
                    if (double.IsNaN(d) || double.IsInfinity(d)) throw new LuaArgumentException("Cannot serialise number: must not be NaN or Inf");
                    sb.Append(LuaCallbacks.FormatG14(d));
                }
                return;
            case LuaType.String: Quote(LuaNative.ToSpan(l.Handle, index), sb); return;
            case LuaType.Table:
                l.CheckStack(6);
                long max = 0;
                bool array = true;
                int count = 0;
                l.PushNil();
                while (l.Next(index))
                {
                    count++;
                    if (array && l.Type(-2) == LuaType.Number && l.IsInteger(-2) && l.ToInteger(-2) >= 1) max = Math.Max(max, l.ToInteger(-2));
                    else array = false;
                    l.Pop(1);
                }
                if (array && count > 0 && max <= count * 2L + 10)
                {
                    sb.Append('[');
                    for (long i = 1; i <= max; i++)
                    {
                        if (i > 1) sb.Append(',');
                        l.RawGetInteger(index, i);
                        EncodeValue(l, -1, sb, depth + 1);
                        l.Pop(1);
                    }
                    sb.Append(']');
                    return;
                }
                if (array && count > 0) throw new LuaArgumentException("Cannot serialise table: excessively sparse array");
                sb.Append('{');
                bool first = true;
                l.PushNil();
                while (l.Next(index))
                {
                    var kt = l.Type(-2);
                    if (kt != LuaType.String && kt != LuaType.Number) throw new LuaArgumentException("Cannot serialise " + l.TypeName(-2) + ": table key must be a number or string");
                    if (!first) sb.Append(',');
                    first = false;
                    l.PushCopy(-2);
                    if (kt == LuaType.Number) Quote(Encoding.ASCII.GetBytes(LuaCallbacks.NumberText(l, -1)), sb);
                    else Quote(LuaNative.ToSpan(l.Handle, -1), sb);
                    l.Pop(1);
                    sb.Append(':');
                    EncodeValue(l, -1, sb, depth + 1);
                    l.Pop(1);
                }
                sb.Append('}');
                return;
            default:
                throw new LuaArgumentException("Cannot serialise " + l.TypeName(index) + ": type not supported");
        }
    }

    private static void Quote(ReadOnlySpan<byte> s, StringBuilder sb)
    {
        sb.Append('"');
        foreach (char c in Encoding.UTF8.GetString(s))
        {
            switch (c)
            {
                case '"': sb.Append("\\\""); break;
                case '\\': sb.Append("\\\\"); break;
                case '/': sb.Append("\\/"); break;
                case '\n': sb.Append("\\n"); break;
                case '\r': sb.Append("\\r"); break;
                case '\t': sb.Append("\\t"); break;
                case '\b': sb.Append("\\b"); break;
                case '\f': sb.Append("\\f"); break;
                default:
                    if (c < 0x20) sb.Append("\\u").Append(((int)c).ToString("x4"));
                    else sb.Append(c);
                    break;
            }
        }
        sb.Append('"');
    }

    public static int Decode(Lua l)
    {
        if (l.GetTop() != 1 || l.Type(1) != LuaType.String) return LuaCallbacks.Fail(l, "bad argument #1 to 'decode' (string expected)");
        JsonDocument doc;
        try { doc = JsonDocument.Parse(LuaNative.ToSpan(l.Handle, 1).ToArray(), new JsonDocumentOptions { MaxDepth = MaxDepth }); }
        catch (JsonException ex) { return LuaCallbacks.Fail(l, "Expected value but found invalid token: " + ex.Message); }
        using (doc)
        {
            l.PushBoolean(true);
            Push(l, doc.RootElement);
            return 2;
        }
    }

    private static void Push(Lua l, JsonElement e)
    {
        l.CheckStack(4);
        switch (e.ValueKind)
        {
            case JsonValueKind.Null: l.PushLightUserData(IntPtr.Zero); return;
            case JsonValueKind.True: l.PushBoolean(true); return;
            case JsonValueKind.False: l.PushBoolean(false); return;
            case JsonValueKind.Number:
                if (e.TryGetInt64(out long n)) l.PushInteger(n);
                else l.PushNumber(e.GetDouble());
                return;
            case JsonValueKind.String: LuaNative.Push(l.Handle, Encoding.UTF8.GetBytes(e.GetString()!)); return;
            case JsonValueKind.Array:
                l.CreateTable(e.GetArrayLength(), 0);
                int i = 1;
                foreach (var item in e.EnumerateArray()) { Push(l, item); l.RawSetInteger(-2, i++); }
                return;
            default:
                l.NewTable();
                foreach (var p in e.EnumerateObject())
                {
                    LuaNative.Push(l.Handle, Encoding.UTF8.GetBytes(p.Name));
                    Push(l, p.Value);
                    l.RawSet(-3);
                }
                return;
        }
    }
}
