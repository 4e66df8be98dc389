// Parses memory sizes as Redis config files write them: 1024, 1k, 1kb, 512m, 4g, 1gb (case-insensitive).
// Redis's rule: k/m/g are powers of 1000, kb/mb/gb powers of 1024.
using System.Globalization;

namespace Garnet.common.Util;

public static class MemorySize
{
    public static bool TryParse(string? text, out long bytes)
    {
        bytes = 0;
        if (string.IsNullOrWhiteSpace(text)) return false;
        var s = text.Trim().ToLowerInvariant();
        long mul = 1;
        string[] suffixes = ["kb", "mb", "gb", "k", "m", "g", "b"];
        long[] muls = [1024, 1024 * 1024, 1024L * 1024 * 1024, 1000, 1000_000, 1000_000_000, 1];
        for (int i = 0; i < suffixes.Length; i++)
        {
            if (s.EndsWith(suffixes[i], StringComparison.Ordinal))
            {
                mul = muls[i];
                s = s[..^suffixes[i].Length];
                break;
            }
        }
        if (!long.TryParse(s, NumberStyles.None, CultureInfo.InvariantCulture, out long n)) return false;
        try { bytes = checked(n * mul); } catch (OverflowException) { return false; }
        return true;
    }

    public static string Format(long bytes)
    {
        if (bytes >= 1L << 30 && bytes % (1L << 30) == 0) return $"{bytes >> 30}gb";
        if (bytes >= 1L << 20 && bytes % (1L << 20) == 0) return $"{bytes >> 20}mb";
        if (bytes >= 1L << 10 && bytes % (1L << 10) == 0) return $"{bytes >> 10}kb";
        return bytes.ToString(CultureInfo.InvariantCulture);
    }
}
