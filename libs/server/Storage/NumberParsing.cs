// NumberParsing: Redis's rules for numbers given as strings (string2ll, string2ld): no spaces, no '+', no leading
// zeros, at most 20 characters for integers; floats in plain or exponent notation, finite.
using System.Globalization;
using System.Text;

namespace Garnet.server.Storage;

public static class NumberParsing
{
    public static bool TryParseInt64(ReadOnlySpan<byte> s, out long value)
    {
        value = 0;
        if (s.Length == 0 || s.Length > 20) return false;
        int i = 0;
        bool negative = false;
        if (s[0] == '-') { negative = true; i = 1; if (s.Length == 1) return false; }
        if (s[i] == '0' && s.Length > i + 1) return false; // leading zero
        if (s[i] == '0' && negative) return false;          // "-0"
        ulong acc = 0;
        for (; i < s.Length; i++)
        {
            uint d = (uint)(s[i] - '0');
            if (d > 9) return false;
            if (acc > (ulong.MaxValue - d) / 10) return false;
            acc = acc * 10 + d;
        }
        if (negative)
        {
            if (acc > (ulong)long.MaxValue + 1) return false;
            value = (long)(0 - acc);
        }
        else
        {
            if (acc > long.MaxValue) return false;
            value = (long)acc;
        }
        return true;
    }

    /// <summary>a + b in decimal, as text with trailing zeros cut (false when either is not a decimal-sized number).</summary>
    public static bool TryAddDecimal(ReadOnlySpan<byte> a, ReadOnlySpan<byte> b, out string? text)
    {
        text = null;
        var style = NumberStyles.Float;
        if (!decimal.TryParse(Encoding.ASCII.GetString(a), style, CultureInfo.InvariantCulture, out decimal x)) return false;
        if (!decimal.TryParse(Encoding.ASCII.GetString(b), style, CultureInfo.InvariantCulture, out decimal y)) return false;
        decimal sum;
        try { sum = x + y; } catch (OverflowException) { return false; }
        string t = sum.ToString(CultureInfo.InvariantCulture);
        if (t.Contains('.')) t = t.TrimEnd('0').TrimEnd('.');
        if (t == "-0") t = "0";
        text = t;
        return true;
    }

    public static bool TryParseDouble(ReadOnlySpan<byte> s, out double value)
    {
        value = 0;
        if (s.Length == 0 || s.Length > 5000) return false;
        if (char.IsWhiteSpace((char)s[0]) || char.IsWhiteSpace((char)s[^1])) return false;
        string text = Encoding.ASCII.GetString(s);
        if (text.Contains("nan", StringComparison.OrdinalIgnoreCase)) return false;
        if (text.Equals("inf", StringComparison.OrdinalIgnoreCase) || text.Equals("+inf", StringComparison.OrdinalIgnoreCase)) { value = double.PositiveInfinity; return true; }
        if (text.Equals("-inf", StringComparison.OrdinalIgnoreCase)) { value = double.NegativeInfinity; return true; }
        return double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out value) && !double.IsNaN(value);
    }
}
