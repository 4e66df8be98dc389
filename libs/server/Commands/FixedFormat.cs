// FixedFormat: doubles as fixed-point text, digit for digit as Redis prints them on glibc:
//  - Printf: C's printf("%.Nf"): the exact binary value rounded half-to-even at N decimals ("-" kept for negative values
//    that round to zero, "inf", "nan");
//  - Human: Redis's ld2string LD_STR_HUMAN ("%.17Lf" of the value, trailing zeros and dot removed, "-0" made "0"), used
//    for GEOPOS and WITHCOORD coordinates;
//  - Distance: Redis's fixedpoint_d2string with 4 decimals (llrint(value * 10^4), then the digits), used for GEODIST and
//    WITHDIST.
using System.Globalization;
using System.Numerics;

namespace Garnet.server.Commands;

public static class FixedFormat
{
    public static string Printf(double value, int decimals)
    {
        if (double.IsNaN(value)) return double.IsNegative(value) ? "-nan" : "nan";
        if (double.IsInfinity(value)) return value < 0 ? "-inf" : "inf";
        long bits = BitConverter.DoubleToInt64Bits(value);
        int exponent = (int)((bits >> 52) & 0x7FF);
        ulong mantissa = (ulong)bits & 0xFFFFFFFFFFFFFUL;
        if (exponent == 0) exponent = 1; else mantissa |= 1UL << 52;
        exponent -= 1075; // |value| = mantissa x 2^exponent
        var scaled = new BigInteger(mantissa) * BigInteger.Pow(10, decimals);
        if (exponent >= 0) scaled <<= exponent;
        else
        {
            int k = -exponent;
            var quotient = scaled >> k;
            var remainder = scaled - (quotient << k);
            int c = remainder.CompareTo(BigInteger.One << (k - 1));
            if (c > 0 || (c == 0 && !quotient.IsEven)) quotient += 1;
            scaled = quotient;
        }
        string digits = scaled.ToString(CultureInfo.InvariantCulture).PadLeft(decimals + 1, '0');
        string text = decimals == 0 ? digits : string.Concat(digits.AsSpan(0, digits.Length - decimals), ".", digits.AsSpan(digits.Length - decimals));
        return double.IsNegative(value) ? "-" + text : text;
    }

    public static string Human(double value)
    {
        if (double.IsInfinity(value)) return value > 0 ? "inf" : "-inf";
        if (double.IsNaN(value)) return "nan";
        string text = Printf(value, 17);
        if (text.Contains('.'))
        {
            text = text.TrimEnd('0');
            if (text.EndsWith('.')) text = text[..^1];
        }
        return text == "-0" ? "0" : text;
    }

    public static string Distance(double value)
    {
        if (value == 0) return "0.0000";
        // llrint on x86-64: round half to even; out of range (or NaN) gives LLONG_MIN.
        double rounded = Math.Round(value * 10000.0, MidpointRounding.ToEven);
        long v = rounded >= -9223372036854775808.0 && rounded < 9223372036854775808.0 ? (long)rounded : long.MinValue;
        ulong magnitude = v < 0 ? (ulong)(-(v + 1)) + 1 : (ulong)v;
        string digits = magnitude.ToString(CultureInfo.InvariantCulture).PadLeft(5, '0');
        string text = string.Concat(digits.AsSpan(0, digits.Length - 4), ".", digits.AsSpan(digits.Length - 4));
        return v < 0 ? "-" + text : text;
    }
}
