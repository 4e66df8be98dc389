// LcsCommand: LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN], as Redis 7.2 computes it: a dynamic-programming
// table over both strings, then a walk back from the end that yields the common string and its matching ranges
// (ranges are reported from the last to the first, as Redis does).
using Garnet.server.Session;
using Garnet.server.Storage;
using Garnet.storage.Store;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class LcsCommand
{
    public static void Lcs(CommandContext s)
    {
        bool len = false, idx = false, withMatchLen = false;
        long minMatchLen = 0;
        for (int i = 3; i < s.Argc; i++)
        {
            var a = s.Arg(i);
            if (StringCommands.Ascii(a, "LEN")) len = true;
            else if (StringCommands.Ascii(a, "IDX")) idx = true;
            else if (StringCommands.Ascii(a, "WITHMATCHLEN")) withMatchLen = true;
            else if (StringCommands.Ascii(a, "MINMATCHLEN") && i + 1 < s.Argc)
            {
                if (!NumberParsing.TryParseInt64(s.Arg(++i), out minMatchLen)) { s.WriteError(StringFunctions.NotInteger); return; }
                if (minMatchLen < 0) minMatchLen = 0;
            }
            else { s.WriteError("ERR syntax error"); return; }
        }
        if (len && idx) { s.WriteError("ERR If you want both the length and indexes, please just use IDX."); return; }
        if (!TryFetch(s, s.Arg(1), out var a1) || !TryFetch(s, s.Arg(2), out var b1)) return;
        byte[] x = a1, y = b1;
        long cells = (long)(x.Length + 1) * (y.Length + 1);
        if (cells * sizeof(uint) > s.Settings.Limits.ProtoMaxBulkLen || cells > int.MaxValue)
        { s.WriteError("ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"); return; }

        int w = y.Length + 1;
        var dp = new uint[cells];
        for (int i = 1; i <= x.Length; i++)
            for (int j = 1; j <= y.Length; j++)
                dp[i * w + j] = x[i - 1] == y[j - 1] ? dp[(i - 1) * w + j - 1] + 1 : Math.Max(dp[(i - 1) * w + j], dp[i * w + j - 1]);
        int total = (int)dp[x.Length * w + y.Length];
        if (len) { s.Writer.WriteInteger(total); return; }

        var common = new byte[total];
        var ranges = new List<(int aStart, int aEnd, int bStart, int bEnd)>();
        int ii = x.Length, jj = y.Length, k = total;
        int aStart = x.Length, aEnd = 0, bStart = 0, bEnd = 0; // aStart == x.Length: no range open
        while (ii > 0 && jj > 0)
        {
            bool emit = false;
            if (x[ii - 1] == y[jj - 1])
            {
                common[--k] = x[ii - 1];
                if (aStart == x.Length) { aStart = aEnd = ii - 1; bStart = bEnd = jj - 1; }
                else if (aStart == ii && bStart == jj) { aStart--; bStart--; }
                else emit = true;
                if (aStart == 0 || bStart == 0) emit = true;
                ii--; jj--;
            }
            else
            {
                if (dp[(ii - 1) * w + jj] > dp[ii * w + jj - 1]) ii--;
                else jj--;
                if (aStart != x.Length) emit = true;
            }
            if (emit)
            {
                if (aEnd - aStart + 1 >= minMatchLen) ranges.Add((aStart, aEnd, bStart, bEnd));
                aStart = x.Length;
            }
        }
        if (!idx) { s.Writer.WriteBulkString(common); return; }
        s.Writer.WriteMapHeader(2);
        s.Writer.WriteBulkString("matches");
        s.Writer.WriteArrayHeader(ranges.Count);
        foreach (var (as_, ae, bs, be) in ranges)
        {
            s.Writer.WriteArrayHeader(withMatchLen ? 3 : 2);
            s.Writer.WriteArrayHeader(2); s.Writer.WriteInteger(as_); s.Writer.WriteInteger(ae);
            s.Writer.WriteArrayHeader(2); s.Writer.WriteInteger(bs); s.Writer.WriteInteger(be);
            if (withMatchLen) s.Writer.WriteInteger(ae - as_ + 1);
        }
        s.Writer.WriteBulkString("len");
        s.Writer.WriteInteger(total);
    }

    /// <summary>A key's string value (empty when missing); false after writing WRONGTYPE.</summary>
    private static bool TryFetch(CommandContext s, ReadOnlySpan<byte> key, out byte[] value)
    {
        var input = new StringInput { Op = StringOp.Copy };
        var st = s.Storage.Read(key, ref input);
        s.CountKeyLookup(st.IsFound(), key);
        value = st.IsFound() ? s.Storage.Result.Old ?? [] : [];
        if (s.Storage.Result.Error is { } e) { s.WriteError(e); return false; }
        return true;
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    /// <summary>LCS.</summary>
    internal static CommandDefinition[] Declarations()
    {
        return
        [
            new()
            {
                Name = "lcs", Arity = -3, Flags = ReadOnly, Acl = A.String, Keys = new KeyRange(1, 2, 1),
                Group = "string", Since = "7.0.0", Summary = "Finds the longest common substring.",
                Complexity = "O(N*M) where N and M are the lengths of s1 and s2, respectively",
                Handler = Lcs,
            },
        ];
    }
}
