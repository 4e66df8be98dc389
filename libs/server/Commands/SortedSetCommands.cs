// SortedSetCommands: Redis 7.2's sorted set family (ZADD ... ZSCAN, without the blocking BZ* commands) on
// SortedSetObject. Each command is one ObjectOperation per key run by the engine (ObjectFunctions), then a reply written
// from what the operation found. Commands over several keys (ZRANGESTORE, ZUNION/ZINTER/ZDIFF[STORE], ZINTERCARD, ZMPOP)
// run one operation per key while the command table's key range holds all their keys' locks.
// Replies follow Redis 7.2 (t_zset.c): scores print as Redis's d2string (integers plainly, else the shortest
// round-trip digits, exponent form past 1e21 or below 1e-6), RESP3 doubles under RESP3, and WITHSCORES replies are
// flat [member, score, ...] arrays in RESP2 and arrays of [member, score] pairs in RESP3.
using System.Globalization;
using System.Text;
using Garnet.server.Objects;
using Garnet.server.PubSub;
using Garnet.server.Session;
using Garnet.server.Storage;
using Garnet.storage.Store;
using static Garnet.server.Commands.CommandFlags;
using A = Garnet.server.Commands.AclCategories;

namespace Garnet.server.Commands;

public static class SortedSetCommands
{
    private const string NotInteger = StringFunctions.NotInteger;
    private const string NotFloat = StringFunctions.NotFloat;
    private const string Syntax = "ERR syntax error";
    private const string NotFloatRange = "ERR min or max is not a float";
    private const string NotLexRange = "ERR min or max not valid string range item";

    private static CollectionOp<SortedSetObject> ZOp(Func<SortedSetObject, bool> apply, bool creates = false, Action? missing = null) =>
        new(ObjectKind.SortedSet, apply, creates, missing);

    private static bool Run(CommandContext s, ReadOnlySpan<byte> key, ObjectOperation op, bool write) => CollectionCommand.Run(s, key, op, write);

    // ---------------------------------------------------------------------------------------------
    // Scores: parsing and Redis's formatting
    // ---------------------------------------------------------------------------------------------

    /// <summary>A score argument as Redis's getDoubleFromObject reads it: no NaN, no overflow to infinity or underflow to
    /// zero (only the words inf/+inf/-inf/infinity give infinities).</summary>
    internal static bool TryParseScore(ReadOnlySpan<byte> text, out double value)
    {
        if (!NumberParsing.TryParseDouble(text, out value))
        {
            // .NET reads neither "infinity" nor hexadecimal ("0x1A", "0x1.8p3"); strtod does.
            if (TryParseHex(text, out value)) return !double.IsInfinity(value);
            string t = Encoding.ASCII.GetString(text);
            if (t.Equals("infinity", StringComparison.OrdinalIgnoreCase) || t.Equals("+infinity", StringComparison.OrdinalIgnoreCase)) { value = double.PositiveInfinity; return true; }
            if (t.Equals("-infinity", StringComparison.OrdinalIgnoreCase)) { value = double.NegativeInfinity; return true; }
            return false;
        }
        if (double.IsInfinity(value) && text.IndexOfAny("iI"u8) < 0) return false; // out of range (ERANGE)
        if (value == 0)
        {
            foreach (byte b in text)
            {
                if (b is (byte)'e' or (byte)'E') break;
                if (b is >= (byte)'1' and <= (byte)'9') return false; // underflow (ERANGE)
            }
        }
        return true;
    }

    /// <summary>strtod's hexadecimal form: [sign] 0x digits [. digits] [p [sign] decimal exponent].</summary>
    private static bool TryParseHex(ReadOnlySpan<byte> text, out double value)
    {
        value = 0;
        int i = 0;
        bool negative = false;
        if (i < text.Length && (text[i] == (byte)'+' || text[i] == (byte)'-')) negative = text[i++] == (byte)'-';
        if (text.Length - i < 3 || text[i] != (byte)'0' || (text[i + 1] | 0x20) != (byte)'x') return false;
        i += 2;
        double mantissa = 0;
        int fractionDigits = 0, digits = 0;
        bool dot = false;
        for (; i < text.Length; i++)
        {
            byte b = text[i];
            int d = b is >= (byte)'0' and <= (byte)'9' ? b - '0' : (b | 0x20) is >= (byte)'a' and <= (byte)'f' ? (b | 0x20) - 'a' + 10 : -1;
            if (d >= 0) { mantissa = mantissa * 16 + d; digits++; if (dot) fractionDigits++; continue; }
            if (b == (byte)'.' && !dot) { dot = true; continue; }
            break;
        }
        if (digits == 0) return false;
        long exponent = 0;
        if (i < text.Length)
        {
            if ((text[i] | 0x20) != (byte)'p') return false;
            i++;
            bool expNegative = false;
            if (i < text.Length && (text[i] == (byte)'+' || text[i] == (byte)'-')) expNegative = text[i++] == (byte)'-';
            if (i == text.Length) return false;
            for (; i < text.Length; i++)
            {
                if (text[i] is < (byte)'0' or > (byte)'9') return false;
                exponent = Math.Min(exponent * 10 + (text[i] - '0'), 100_000);
            }
            if (expNegative) exponent = -exponent;
        }
        value = mantissa * Math.Pow(2, exponent - 4L * fractionDigits);
        if (negative) value = -value;
        return true;
    }

    /// <summary>Redis's d2string: "inf", "-inf", "-0", integers in ±2^62 plainly, else fpconv's shortest digits.</summary>
    public static string FormatScore(double value)
    {
        if (double.IsNaN(value)) return "nan";
        if (double.IsPositiveInfinity(value)) return "inf";
        if (double.IsNegativeInfinity(value)) return "-inf";
        if (value == 0) return double.IsNegative(value) ? "-0" : "0";
        const double llHalf = long.MaxValue / 2;
        if (value >= -llHalf && value <= llHalf && Math.Floor(value) == value) return ((long)value).ToString(CultureInfo.InvariantCulture);
        // Shortest round-trip digits and the decimal exponent of the last one (value = digits x 10^k).
        string r = Math.Abs(value).ToString("R", CultureInfo.InvariantCulture);
        int e = r.IndexOfAny(['E', 'e']);
        int exp10 = e < 0 ? 0 : int.Parse(r.AsSpan(e + 1), NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture);
        string mantissa = e < 0 ? r : r[..e];
        int dot = mantissa.IndexOf('.');
        string digits = dot < 0 ? mantissa : mantissa.Remove(dot, 1);
        int k = exp10 - (dot < 0 ? 0 : mantissa.Length - dot - 1);
        digits = digits.TrimStart('0');
        int trimmed = digits.Length - digits.TrimEnd('0').Length;
        digits = digits.TrimEnd('0');
        k += trimmed;
        bool negative = value < 0;
        var sb = new StringBuilder(24);
        if (negative) sb.Append('-');
        int n = digits.Length;
        int exp = Math.Abs(k + n - 1);
        if (k >= 0 && exp < n + 7) return sb.Append(digits).Append('0', k).ToString();
        if (k < 0 && (k > -7 || exp < 4))
        {
            int offset = n - Math.Abs(k);
            if (offset <= 0) return sb.Append("0.").Append('0', -offset).Append(digits).ToString();
            return sb.Append(digits, 0, offset).Append('.').Append(digits, offset, n - offset).ToString();
        }
        n = Math.Min(n, 18 - (negative ? 1 : 0));
        sb.Append(digits[0]);
        if (n > 1) sb.Append('.').Append(digits, 1, n - 1);
        sb.Append('e').Append(k + digits.Length - 1 < 0 ? '-' : '+').Append(exp.ToString(CultureInfo.InvariantCulture));
        return sb.ToString();
    }

    internal static void WriteScore(CommandContext s, double score)
    {
        string text = FormatScore(score);
        if (s.Protocol >= 3)
        {
            s.Writer.WriteRaw(","u8);
            s.Writer.WriteRaw(Encoding.ASCII.GetBytes(text));
            s.Writer.WriteRaw("\r\n"u8);
        }
        else s.Writer.WriteBulkString(text);
    }

    /// <summary>Members, or members with scores: flat in RESP2, [member, score] pairs in RESP3.</summary>
    private static void WriteElements(CommandContext s, List<(byte[] Member, double Score)> items, bool withScores)
    {
        bool pairs = withScores && s.Protocol >= 3;
        s.Writer.WriteArrayHeader(items.Count * (withScores && !pairs ? 2 : 1));
        foreach (var (m, sc) in items)
        {
            if (pairs) s.Writer.WriteArrayHeader(2);
            s.Writer.WriteBulkString(m);
            if (withScores) WriteScore(s, sc);
        }
    }

    /// <summary>A score range bound: "(" for exclusive; strtod's reading otherwise (an empty string is 0, as in Redis).</summary>
    private static bool TryParseScoreBound(ReadOnlySpan<byte> text, out ScoreBound bound)
    {
        bound = default;
        bool exclusive = text.Length > 0 && text[0] == (byte)'(';
        if (exclusive) text = text[1..];
        double value = 0;
        if (text.Length > 0 && !NumberParsing.TryParseDouble(text, out value) && !TryParseScore(text, out value)) return false;
        if (double.IsNaN(value)) return false;
        bound = new ScoreBound(value, exclusive);
        return true;
    }

    private static bool TryParseLexBound(ReadOnlySpan<byte> text, out LexBound bound)
    {
        bound = default;
        if (text.Length == 0) return false;
        switch (text[0])
        {
            case (byte)'+': if (text.Length != 1) return false; bound = new LexBound(LexBoundKind.Max, []); return true;
            case (byte)'-': if (text.Length != 1) return false; bound = new LexBound(LexBoundKind.Min, []); return true;
            case (byte)'[': bound = new LexBound(LexBoundKind.Inclusive, text[1..].ToArray()); return true;
            case (byte)'(': bound = new LexBound(LexBoundKind.Exclusive, text[1..].ToArray()); return true;
            default: return false;
        }
    }

    // ---------------------------------------------------------------------------------------------
    // ZADD, ZINCRBY, ZREM
    // ---------------------------------------------------------------------------------------------

    [Flags]
    private enum AddFlags { None = 0, Nx = 1, Xx = 2, Ch = 4, Incr = 8, Gt = 16, Lt = 32 }

    public static void ZAdd(CommandContext s)
    {
        var flags = AddFlags.None;
        int at = 2;
        for (; at < s.Argc; at++)
        {
            if (s.ArgEquals(at, "NX"u8)) flags |= AddFlags.Nx;
            else if (s.ArgEquals(at, "XX"u8)) flags |= AddFlags.Xx;
            else if (s.ArgEquals(at, "CH"u8)) flags |= AddFlags.Ch;
            else if (s.ArgEquals(at, "INCR"u8)) flags |= AddFlags.Incr;
            else if (s.ArgEquals(at, "GT"u8)) flags |= AddFlags.Gt;
            else if (s.ArgEquals(at, "LT"u8)) flags |= AddFlags.Lt;
            else break;
        }
        int elements = s.Argc - at;
        if (elements == 0 || elements % 2 != 0) { s.WriteError(Syntax); return; }
        bool nx = flags.HasFlag(AddFlags.Nx), xx = flags.HasFlag(AddFlags.Xx), gt = flags.HasFlag(AddFlags.Gt), lt = flags.HasFlag(AddFlags.Lt);
        if (nx && xx) { s.WriteError("ERR XX and NX options at the same time are not compatible"); return; }
        if ((gt && nx) || (lt && nx) || (gt && lt)) { s.WriteError("ERR GT, LT, and/or NX options at the same time are not compatible"); return; }
        if (flags.HasFlag(AddFlags.Incr) && elements > 2) { s.WriteError("ERR INCR option supports a single increment-element pair"); return; }
        Add(s, flags, at);
    }

    public static void ZIncrBy(CommandContext s) => Add(s, AddFlags.Incr, 2);

    private static void Add(CommandContext s, AddFlags flags, int at)
    {
        int pairs = (s.Argc - at) / 2;
        var scores = new double[pairs];
        var members = new byte[pairs][];
        for (int j = 0; j < pairs; j++)
        {
            if (!TryParseScore(s.Arg(at + 2 * j), out scores[j])) { s.WriteError(NotFloat); return; }
            members[j] = s.Arg(at + 2 * j + 1).ToArray();
        }
        AddScored(s, flags, scores, members);
    }

    /// <summary>GEOADD's ZADD: adds or updates members with their scores (already parsed), with NX, XX and CH.</summary>
    internal static void AddScored(CommandContext s, bool nx, bool xx, bool ch, double[] scores, byte[][] members) =>
        AddScored(s, (nx ? AddFlags.Nx : 0) | (xx ? AddFlags.Xx : 0) | (ch ? AddFlags.Ch : 0), scores, members);

    private static void AddScored(CommandContext s, AddFlags flags, double[] scores, byte[][] members)
    {
        int pairs = scores.Length;
        bool nx = flags.HasFlag(AddFlags.Nx), xx = flags.HasFlag(AddFlags.Xx), gt = flags.HasFlag(AddFlags.Gt), lt = flags.HasFlag(AddFlags.Lt);
        bool incr = flags.HasFlag(AddFlags.Incr);
        long added = 0, updated = 0, processed = 0;
        double result = 0;
        bool nan = false;
        var op = ZOp(z =>
        {
            added = updated = processed = 0;
            nan = false;
            string before = z.Encoding;
            // Redis's size hints: a new set of many pairs or a long first member starts as a skiplist; many pairs convert.
            z.HintSize(pairs, z.Count == 0 ? members[0].Length : 0);
            for (int j = 0; j < pairs; j++)
            {
                double score = scores[j];
                if (z.TryGetScore(members[j], out double current))
                {
                    if (nx) continue;
                    if (incr)
                    {
                        score += current;
                        if (double.IsNaN(score)) { nan = true; return false; }
                    }
                    if ((lt && score >= current) || (gt && score <= current)) continue;
                    processed++;
                    result = score;
                    if (score != current) { z.Set(members[j], score); updated++; }
                }
                else if (!xx)
                {
                    z.Set(members[j], score);
                    added++;
                    processed++;
                    result = score;
                }
            }
            return added + updated > 0 || z.Encoding != before;
        }, creates: !xx);
        if (!Run(s, s.Arg(1), op, write: true)) return;
        if (nan) { s.WriteError("ERR resulting score is not a number (NaN)"); return; }
        if (added + updated > 0) s.Notify(NotifyClass.ZSet, incr ? "zincr"u8 : "zadd"u8, s.Arg(1));
        if (incr)
        {
            if (processed > 0) WriteScore(s, result); else s.Writer.WriteNull();
        }
        else s.Writer.WriteInteger(flags.HasFlag(AddFlags.Ch) ? added + updated : added);
    }

    public static void ZRem(CommandContext s)
    {
        var members = CollectionCommand.Args(s, 2);
        long removed = 0;
        var op = ZOp(z =>
        {
            removed = 0;
            foreach (var m in members) if (z.Remove(m)) removed++;
            return removed > 0;
        });
        if (!Run(s, s.Arg(1), op, write: true)) return;
        if (removed > 0) CollectionCommand.Notify(s, op, NotifyClass.ZSet, "zrem"u8, s.Arg(1));
        s.Writer.WriteInteger(removed);
    }

    // ---------------------------------------------------------------------------------------------
    // Reads of one key
    // ---------------------------------------------------------------------------------------------

    public static void ZCard(CommandContext s)
    {
        long n = 0;
        if (!Run(s, s.Arg(1), ZOp(z => { n = z.Count; return false; }), write: false)) return;
        s.Writer.WriteInteger(n);
    }

    public static void ZCount(CommandContext s)
    {
        if (!TryParseScoreBound(s.Arg(2), out var min) || !TryParseScoreBound(s.Arg(3), out var max)) { s.WriteError(NotFloatRange); return; }
        long n = 0;
        var op = ZOp(z => { var (f, l) = z.ScoreRange(min, max); n = Math.Max(0, l - f + 1); return false; });
        if (!Run(s, s.Arg(1), op, write: false)) return;
        s.Writer.WriteInteger(n);
    }

    public static void ZLexCount(CommandContext s)
    {
        if (!TryParseLexBound(s.Arg(2), out var min) || !TryParseLexBound(s.Arg(3), out var max)) { s.WriteError(NotLexRange); return; }
        long n = 0;
        var op = ZOp(z => { var (f, l) = z.LexRange(min, max); n = Math.Max(0, l - f + 1); return false; });
        if (!Run(s, s.Arg(1), op, write: false)) return;
        s.Writer.WriteInteger(n);
    }

    public static void ZScore(CommandContext s)
    {
        var member = s.Arg(2).ToArray();
        double? score = null;
        var op = ZOp(z => { score = z.TryGetScore(member, out double v) ? v : null; return false; });
        if (!Run(s, s.Arg(1), op, write: false)) return;
        if (score is { } v) WriteScore(s, v); else s.Writer.WriteNull();
    }

    public static void ZMScore(CommandContext s)
    {
        var members = CollectionCommand.Args(s, 2);
        var scores = new double?[members.Length];
        var op = ZOp(z =>
        {
            for (int i = 0; i < members.Length; i++) scores[i] = z.TryGetScore(members[i], out double v) ? v : null;
            return false;
        });
        if (!Run(s, s.Arg(1), op, write: false)) return;
        s.Writer.WriteArrayHeader(scores.Length);
        foreach (var sc in scores) if (sc is { } v) WriteScore(s, v); else s.Writer.WriteNull();
    }

    public static void ZRank(CommandContext s) => Rank(s, reverse: false);
    public static void ZRevRank(CommandContext s) => Rank(s, reverse: true);

    private static void Rank(CommandContext s, bool reverse)
    {
        if (s.Argc > 4) { s.WriteError($"ERR wrong number of arguments for '{(reverse ? "zrevrank" : "zrank")}' command"); return; }
        bool withScore = false;
        if (s.Argc == 4)
        {
            if (!s.ArgEquals(3, "WITHSCORE"u8)) { s.WriteError(Syntax); return; }
            withScore = true;
        }
        var member = s.Arg(2).ToArray();
        long rank = -1;
        double score = 0;
        var op = ZOp(z =>
        {
            rank = z.Rank(member);
            if (rank >= 0)
            {
                z.TryGetScore(member, out score);
                if (reverse) rank = z.Count - 1 - rank;
            }
            return false;
        });
        if (!Run(s, s.Arg(1), op, write: false)) return;
        if (rank < 0) { if (withScore) s.Writer.WriteNullArray(); else s.Writer.WriteNull(); return; }
        if (withScore) s.Writer.WriteArrayHeader(2);
        s.Writer.WriteInteger(rank);
        if (withScore) WriteScore(s, score);
    }

    // ---------------------------------------------------------------------------------------------
    // ZRANGE and its older forms, ZRANGESTORE
    // ---------------------------------------------------------------------------------------------

    private enum RangeKind { Auto, Rank, Score, Lex }

    private enum Direction { Auto, Forward, Reverse }

    public static void ZRange(CommandContext s) => RangeCommand(s, 1, store: false, RangeKind.Auto, Direction.Auto);
    public static void ZRangeStore(CommandContext s) => RangeCommand(s, 2, store: true, RangeKind.Auto, Direction.Auto);
    public static void ZRevRange(CommandContext s) => RangeCommand(s, 1, store: false, RangeKind.Rank, Direction.Reverse);
    public static void ZRangeByScore(CommandContext s) => RangeCommand(s, 1, store: false, RangeKind.Score, Direction.Forward);
    public static void ZRevRangeByScore(CommandContext s) => RangeCommand(s, 1, store: false, RangeKind.Score, Direction.Reverse);
    public static void ZRangeByLex(CommandContext s) => RangeCommand(s, 1, store: false, RangeKind.Lex, Direction.Forward);
    public static void ZRevRangeByLex(CommandContext s) => RangeCommand(s, 1, store: false, RangeKind.Lex, Direction.Reverse);

    private static void RangeCommand(CommandContext s, int keyIndex, bool store, RangeKind kind, Direction direction)
    {
        int minIndex = keyIndex + 1, maxIndex = keyIndex + 2;
        bool withScores = false;
        long offset = 0, limit = -1;
        for (int j = keyIndex + 3; j < s.Argc; j++)
        {
            int left = s.Argc - j - 1;
            if (!store && s.ArgEquals(j, "WITHSCORES"u8)) withScores = true;
            else if (s.ArgEquals(j, "LIMIT"u8) && left >= 2)
            {
                if (!NumberParsing.TryParseInt64(s.Arg(j + 1), out offset) || !NumberParsing.TryParseInt64(s.Arg(j + 2), out limit)) { s.WriteError(NotInteger); return; }
                j += 2;
            }
            else if (direction == Direction.Auto && s.ArgEquals(j, "REV"u8)) direction = Direction.Reverse;
            else if (kind == RangeKind.Auto && s.ArgEquals(j, "BYLEX"u8)) kind = RangeKind.Lex;
            else if (kind == RangeKind.Auto && s.ArgEquals(j, "BYSCORE"u8)) kind = RangeKind.Score;
            else { s.WriteError(Syntax); return; }
        }
        if (direction == Direction.Auto) direction = Direction.Forward;
        if (kind == RangeKind.Auto) kind = RangeKind.Rank;
        if (limit != -1 && kind == RangeKind.Rank) { s.WriteError("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX"); return; }
        if (withScores && kind == RangeKind.Lex) { s.WriteError("ERR syntax error, WITHSCORES not supported in combination with BYLEX"); return; }
        bool reverse = direction == Direction.Reverse;
        if (reverse && kind != RangeKind.Rank) (minIndex, maxIndex) = (maxIndex, minIndex);

        long start = 0, stop = 0;
        ScoreBound minScore = default, maxScore = default;
        LexBound minLex = default, maxLex = default;
        switch (kind)
        {
            case RangeKind.Rank:
                if (!NumberParsing.TryParseInt64(s.Arg(minIndex), out start) || !NumberParsing.TryParseInt64(s.Arg(maxIndex), out stop)) { s.WriteError(NotInteger); return; }
                break;
            case RangeKind.Score:
                if (!TryParseScoreBound(s.Arg(minIndex), out minScore) || !TryParseScoreBound(s.Arg(maxIndex), out maxScore)) { s.WriteError(NotFloatRange); return; }
                break;
            default:
                if (!TryParseLexBound(s.Arg(minIndex), out minLex) || !TryParseLexBound(s.Arg(maxIndex), out maxLex)) { s.WriteError(NotLexRange); return; }
                break;
        }

        var items = new List<(byte[] Member, double Score)>();
        var op = ZOp(z =>
        {
            items.Clear();
            switch (kind)
            {
                case RangeKind.Rank:
                {
                    long a = start, b = stop;
                    if (!ListCommands.Normalize(z.Count, ref a, ref b)) break;
                    if (reverse) Walk(z, z.Count - 1 - a, b - a + 1, backward: true, items);
                    else Walk(z, a, b - a + 1, backward: false, items);
                    break;
                }
                default:
                {
                    var (first, last) = kind == RangeKind.Score ? z.ScoreRange(minScore, maxScore) : z.LexRange(minLex, maxLex);
                    if (offset < 0 || first > last) break;
                    long available = last - first + 1 - offset;
                    if (available <= 0) break;
                    long n = limit < 0 ? available : Math.Min(limit, available);
                    if (reverse) Walk(z, last - offset, n, backward: true, items);
                    else Walk(z, first + offset, n, backward: false, items);
                    break;
                }
            }
            return false;
        });
        if (!Run(s, s.Arg(keyIndex), op, write: false)) return;
        if (store)
        {
            if (reverse) items.Reverse();
            Store(s, s.Arg(1), items, "zrangestore"u8);
            return;
        }
        WriteElements(s, items, withScores);
    }

    /// <summary>Adds count elements from index on (going back when backward) to items.</summary>
    private static void Walk(SortedSetObject z, long index, long count, bool backward, List<(byte[], double)> items) =>
        z.CopyRange(index, count, backward, items);

    /// <summary>Stores sorted (ordered, distinct) elements at dest, replacing its value, or deletes dest when there are
    /// none; replies with the count (the store commands).</summary>
    internal static void Store(CommandContext s, ReadOnlySpan<byte> dest, List<(byte[] Member, double Score)> sorted, ReadOnlySpan<byte> evt)
    {
        if (sorted.Count == 0) { if (s.Storage.Delete(dest)) s.Notify(NotifyClass.Generic, "del"u8, dest); }
        else
        {
            s.Storage.UpsertObject(dest, SortedSetObject.FromSorted(sorted));
            s.Notify(NotifyClass.ZSet, evt, dest);
        }
        s.Writer.WriteInteger(sorted.Count);
    }

    // ---------------------------------------------------------------------------------------------
    // ZREMRANGEBY*
    // ---------------------------------------------------------------------------------------------

    public static void ZRemRangeByRank(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(2), out long start) || !NumberParsing.TryParseInt64(s.Arg(3), out long stop)) { s.WriteError(NotInteger); return; }
        RemoveRange(s, z =>
        {
            long a = start, b = stop;
            return ListCommands.Normalize(z.Count, ref a, ref b) ? (a, b) : (0, -1);
        }, "zremrangebyrank"u8);
    }

    public static void ZRemRangeByScore(CommandContext s)
    {
        if (!TryParseScoreBound(s.Arg(2), out var min) || !TryParseScoreBound(s.Arg(3), out var max)) { s.WriteError(NotFloatRange); return; }
        RemoveRange(s, z => z.ScoreRange(min, max), "zremrangebyscore"u8);
    }

    public static void ZRemRangeByLex(CommandContext s)
    {
        if (!TryParseLexBound(s.Arg(2), out var min) || !TryParseLexBound(s.Arg(3), out var max)) { s.WriteError(NotLexRange); return; }
        RemoveRange(s, z => z.LexRange(min, max), "zremrangebylex"u8);
    }

    private static void RemoveRange(CommandContext s, Func<SortedSetObject, (long First, long Last)> range, ReadOnlySpan<byte> evt)
    {
        long removed = 0;
        var op = ZOp(z =>
        {
            var (first, last) = range(z);
            var doomed = new List<(byte[], double)>();
            if (first <= last) Walk(z, first, last - first + 1, backward: false, doomed);
            foreach (var (m, _) in doomed) z.Remove(m);
            removed = doomed.Count;
            return removed > 0;
        });
        if (!Run(s, s.Arg(1), op, write: true)) return;
        if (removed > 0) CollectionCommand.Notify(s, op, NotifyClass.ZSet, evt, s.Arg(1));
        s.Writer.WriteInteger(removed);
    }

    // ---------------------------------------------------------------------------------------------
    // ZPOPMIN, ZPOPMAX, ZMPOP
    // ---------------------------------------------------------------------------------------------

    public static void ZPopMin(CommandContext s) => PopCommand(s, max: false);
    public static void ZPopMax(CommandContext s) => PopCommand(s, max: true);

    private static void PopCommand(CommandContext s, bool max)
    {
        if (s.Argc > 3) { s.WriteError(Syntax); return; }
        long count = -1;
        if (s.Argc == 3)
        {
            if (!NumberParsing.TryParseInt64(s.Arg(2), out count) || count < 0) { s.WriteError("ERR value is out of range, must be positive"); return; }
        }
        var popped = Pop(s, s.Arg(1), max, count == -1 ? 1 : count, out bool exists);
        if (popped is null) return;
        bool nested = s.Protocol >= 3 && count != -1;
        if (!exists || count == 0) { s.Writer.WriteArrayHeader(0); return; }
        s.Writer.WriteArrayHeader(popped.Count * (nested ? 1 : 2));
        foreach (var (m, sc) in popped)
        {
            if (nested) s.Writer.WriteArrayHeader(2);
            s.Writer.WriteBulkString(m);
            WriteScore(s, sc);
        }
    }

    /// <summary>Pops up to count elements from one end of key; null after writing an error.</summary>
    internal static List<(byte[] Member, double Score)>? Pop(CommandContext s, ReadOnlySpan<byte> key, bool max, long count, out bool exists)
    {
        var popped = TryPop(s, key, max, count, s.Database, out string? error);
        exists = popped is not null;
        if (error is not null) { s.WriteError(error); return null; }
        return popped ?? [];
    }

    /// <summary>Pops up to count elements from one end of key's sorted set in database db: null when the key holds no
    /// sorted set; error is set (and nothing changed) for a key of another type.</summary>
    internal static List<(byte[] Member, double Score)>? TryPop(CommandContext s, ReadOnlySpan<byte> key, bool max, long count, int db, out string? error)
    {
        var popped = new List<(byte[] Member, double Score)>();
        bool found = false;
        var op = ZOp(z =>
        {
            popped.Clear();
            found = true;
            for (long i = 0; i < count && z.Count > 0; i++) popped.Add(z.Pop(max));
            return popped.Count > 0;
        });
        s.Storage.UpdateObject(key, op, db);
        error = op.Error;
        if (popped.Count > 0 && error is null) CollectionCommand.Notify(s, op, NotifyClass.ZSet, max ? "zpopmax"u8 : "zpopmin"u8, key, db);
        return found && error is null ? popped : null;
    }

    public static void ZMPop(CommandContext s)
    {
        if (!NumberParsing.TryParseInt64(s.Arg(1), out long numKeys) || numKeys < 1) { s.WriteError("ERR numkeys should be greater than 0"); return; }
        if (numKeys >= s.Argc - 2) { s.WriteError(Syntax); return; }
        int whereIndex = 2 + (int)numKeys;
        bool max;
        if (s.ArgEquals(whereIndex, "MIN"u8)) max = false;
        else if (s.ArgEquals(whereIndex, "MAX"u8)) max = true;
        else { s.WriteError(Syntax); return; }
        long count = -1;
        for (int j = whereIndex + 1; j < s.Argc; j++)
        {
            if (count == -1 && s.ArgEquals(j, "COUNT"u8) && j + 1 < s.Argc)
            {
                j++;
                if (!NumberParsing.TryParseInt64(s.Arg(j), out count) || count < 1) { s.WriteError("ERR count should be greater than 0"); return; }
            }
            else { s.WriteError(Syntax); return; }
        }
        if (count == -1) count = 1;
        for (int k = 2; k < whereIndex; k++)
        {
            var popped = Pop(s, s.Arg(k), max, count, out bool exists);
            if (popped is null) return;
            if (!exists) continue;
            s.Writer.WriteArrayHeader(2);
            s.Writer.WriteBulkString(s.Arg(k));
            s.Writer.WriteArrayHeader(popped.Count);
            foreach (var (m, sc) in popped)
            {
                s.Writer.WriteArrayHeader(2);
                s.Writer.WriteBulkString(m);
                WriteScore(s, sc);
            }
            return;
        }
        s.Writer.WriteNullArray();
    }

    // ---------------------------------------------------------------------------------------------
    // ZRANDMEMBER, ZSCAN
    // ---------------------------------------------------------------------------------------------

    public static void ZRandMember(CommandContext s)
    {
        bool withCount = s.Argc >= 3;
        long count = 1;
        bool withScores = false;
        if (withCount)
        {
            if (!NumberParsing.TryParseInt64(s.Arg(2), out count)) { s.WriteError(NotInteger); return; }
            if (count == long.MinValue) { s.WriteError("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"); return; }
            if (s.Argc > 4 || (s.Argc == 4 && !s.ArgEquals(3, "WITHSCORES"u8))) { s.WriteError(Syntax); return; }
            if (s.Argc == 4)
            {
                withScores = true;
                if (count < -(long.MaxValue / 2) || count > long.MaxValue / 2) { s.WriteError("ERR value is out of range"); return; }
            }
        }
        // No count or distinct picks: only the picked elements are read (O(log n) each); repeats pick from a copy of all.
        (byte[] Member, double Score)[] all = [];
        var picked = new List<(byte[] Member, double Score)>();
        var op = ZOp(z =>
        {
            picked.Clear();
            all = [];
            if (!withCount || count > 0) picked.AddRange(PickDistinct(z, withCount ? count : 1));
            else if (count < 0) all = z.Entries.ToArray();
            return false;
        });
        if (!Run(s, s.Arg(1), op, write: false)) return;
        if (!withCount)
        {
            if (picked.Count == 0) s.Writer.WriteNull(); else s.Writer.WriteBulkString(picked[0].Member);
            return;
        }
        bool pairs = withScores && s.Protocol >= 3;
        int multiplier = withScores && !pairs ? 2 : 1;
        if (count < 0 && all.Length > 0)
        {
            // Repeats allowed: written as they are drawn, never gathered; at most MaxReplyElements of them (a huge
            // negative count would otherwise build a reply of gigabytes).
            long n = Math.Min(-count, RandomPicks.MaxReplyElements);
            s.Writer.WriteArrayHeader((int)(n * multiplier));
            for (long i = 0; i < n; i++) WritePick(s, all[Random.Shared.Next(all.Length)], withScores, pairs);
            return;
        }
        s.Writer.WriteArrayHeader(picked.Count * multiplier);
        foreach (var p in picked) WritePick(s, p, withScores, pairs);
    }

    /// <summary>Up to count distinct random elements: all of them (shuffled) when count reaches the size, else count
    /// distinct random indexes, each found in O(log n).</summary>
    private static List<(byte[] Member, double Score)> PickDistinct(SortedSetObject z, long count)
    {
        if (count >= z.Count) return RandomPicks.Pick(z.Entries.ToList(), z.Count);
        var indexes = new HashSet<long>();
        var result = new List<(byte[] Member, double Score)>((int)count);
        while (result.Count < count)
        {
            long i = Random.Shared.NextInt64(z.Count);
            if (!indexes.Add(i)) continue;
            result.Add(z.ElementAt(i));
        }
        return result;
    }

    private static void WritePick(CommandContext s, (byte[] Member, double Score) p, bool withScores, bool pairs)
    {
        if (pairs) s.Writer.WriteArrayHeader(2);
        s.Writer.WriteBulkString(p.Member);
        if (withScores) WriteScore(s, p.Score);
    }

    public static void ZScan(CommandContext s)
    {
        if (!CollectionScan.TryParse(s, out var scan)) return;
        List<(byte[], byte[]?)> entries = [];
        var op = ZOp(z =>
        {
            entries = z.Entries.Select(e => (e.Member, (byte[]?)Encoding.ASCII.GetBytes(FormatScore(e.Score)))).ToList();
            return false;
        });
        if (!Run(s, s.Arg(1), op, write: false)) return;
        CollectionScan.Write(s, scan, entries);
    }

    // ---------------------------------------------------------------------------------------------
    // ZUNION, ZINTER, ZDIFF (and their STORE forms), ZINTERCARD
    // ---------------------------------------------------------------------------------------------

    private enum SetOp { Union, Inter, Diff }

    private enum Aggregate { Sum, Min, Max }

    public static void ZUnion(CommandContext s) => SetCommand(s, SetOp.Union, store: false, "zunion");
    public static void ZInter(CommandContext s) => SetCommand(s, SetOp.Inter, store: false, "zinter");
    public static void ZDiff(CommandContext s) => SetCommand(s, SetOp.Diff, store: false, "zdiff");
    public static void ZUnionStore(CommandContext s) => SetCommand(s, SetOp.Union, store: true, "zunionstore");
    public static void ZInterStore(CommandContext s) => SetCommand(s, SetOp.Inter, store: true, "zinterstore");
    public static void ZDiffStore(CommandContext s) => SetCommand(s, SetOp.Diff, store: true, "zdiffstore");
    public static void ZInterCard(CommandContext s) => SetCommand(s, SetOp.Inter, store: false, "zintercard", cardinalityOnly: true);

    private sealed class Source
    {
        public int ArgIndex;
        public long Count;
        public double Weight = 1;
    }

    private static void SetCommand(CommandContext s, SetOp setOp, bool store, string name, bool cardinalityOnly = false)
    {
        int numKeysIndex = store ? 2 : 1;
        if (!NumberParsing.TryParseInt64(s.Arg(numKeysIndex), out long setNum)) { s.WriteError(NotInteger); return; }
        if (setNum < 1) { s.WriteError($"ERR at least 1 input key is needed for '{name}' command"); return; }
        if (setNum > s.Argc - (numKeysIndex + 1)) { s.WriteError(Syntax); return; }
        // The inputs' types are checked before the options, as Redis does.
        // Plain sets are inputs too, as in Redis: every member with score 1 (see AsSet).
        var sources = new Source[setNum];
        for (int i = 0; i < setNum; i++)
        {
            var src = sources[i] = new Source { ArgIndex = numKeysIndex + 1 + i };
            long n = 0;
            var zop = ZOp(z => { n = z.Count; return false; });
            s.Storage.ReadObject(s.Arg(src.ArgIndex), zop);
            if (zop.Error is not null)
            {
                var setOp2 = AsSet(set => n = set.Count);
                s.Storage.ReadObject(s.Arg(src.ArgIndex), setOp2);
                if (setOp2.Error is not null) { s.WriteError(setOp2.Error); return; }
            }
            s.CountKeyLookup(n > 0, s.Arg(src.ArgIndex));
            src.Count = n;
        }
        var aggregate = Aggregate.Sum;
        bool withScores = false;
        long limit = 0;
        int j = numKeysIndex + 1 + (int)setNum;
        while (j < s.Argc)
        {
            int remaining = s.Argc - j;
            if (setOp != SetOp.Diff && !cardinalityOnly && remaining >= setNum + 1 && s.ArgEquals(j, "WEIGHTS"u8))
            {
                j++;
                for (int i = 0; i < setNum; i++, j++)
                    if (!TryParseScore(s.Arg(j), out sources[i].Weight)) { s.WriteError("ERR weight value is not a float"); return; }
            }
            else if (setOp != SetOp.Diff && !cardinalityOnly && remaining >= 2 && s.ArgEquals(j, "AGGREGATE"u8))
            {
                j++;
                if (s.ArgEquals(j, "SUM"u8)) aggregate = Aggregate.Sum;
                else if (s.ArgEquals(j, "MIN"u8)) aggregate = Aggregate.Min;
                else if (s.ArgEquals(j, "MAX"u8)) aggregate = Aggregate.Max;
                else { s.WriteError(Syntax); return; }
                j++;
            }
            else if (!store && !cardinalityOnly && s.ArgEquals(j, "WITHSCORES"u8)) { withScores = true; j++; }
            else if (cardinalityOnly && remaining >= 2 && s.ArgEquals(j, "LIMIT"u8))
            {
                j++;
                if (!NumberParsing.TryParseInt64(s.Arg(j), out limit)) { s.WriteError(NotInteger); return; }
                if (limit < 0) { s.WriteError("ERR LIMIT can't be negative"); return; }
                j++;
            }
            else { s.WriteError(Syntax); return; }
        }

        List<(byte[] Member, double Score)> result;
        switch (setOp)
        {
            case SetOp.Inter: result = Intersect(s, sources, aggregate); break;
            case SetOp.Union: result = Union(s, sources, aggregate); break;
            default: result = Difference(s, sources); break;
        }
        if (cardinalityOnly)
        {
            s.Writer.WriteInteger(limit > 0 ? Math.Min(limit, result.Count) : result.Count);
            return;
        }
        result.Sort(SortedSetObject.Compare);
        if (store) Store(s, s.Arg(1), result, setOp switch { SetOp.Union => "zunionstore"u8, SetOp.Inter => "zinterstore"u8, _ => "zdiffstore"u8 });
        else WriteElements(s, result, withScores);
    }

    /// <summary>Reads a plain set given to ZUNION/ZINTER/ZDIFF (its members count with score 1).</summary>
    private static CollectionOp<SetObject> AsSet(Action<SetObject> read) => new(ObjectKind.Set, set => { read(set); return false; });

    /// <summary>Every element of the source at argIndex (empty when the key is missing; a set's members score 1).</summary>
    private static List<(byte[] Member, double Score)> Snapshot(CommandContext s, int argIndex)
    {
        var items = new List<(byte[] Member, double Score)>();
        var op = ZOp(z => { items.Clear(); items.AddRange(z.Entries); return false; });
        s.Storage.ReadObject(s.Arg(argIndex), op);
        if (op.Error is not null)
            s.Storage.ReadObject(s.Arg(argIndex), AsSet(set => { items.Clear(); items.AddRange(set.Members.Select(m => (m, 1.0))); }));
        return items;
    }

    /// <summary>The scores members have in the source at argIndex (NaN for a member it lacks).</summary>
    private static double[] Lookup(CommandContext s, int argIndex, List<(byte[] Member, double Score)> members)
    {
        var found = new double[members.Count];
        var op = ZOp(z =>
        {
            for (int i = 0; i < members.Count; i++) found[i] = z.TryGetScore(members[i].Member, out double v) ? v : double.NaN;
            return false;
        });
        Array.Fill(found, double.NaN);
        s.Storage.ReadObject(s.Arg(argIndex), op);
        if (op.Error is not null)
            s.Storage.ReadObject(s.Arg(argIndex), AsSet(set =>
            {
                for (int i = 0; i < members.Count; i++) found[i] = set.Contains(members[i].Member) ? 1 : double.NaN;
            }));
        return found;
    }

    private static double Combine(double target, double value, Aggregate aggregate)
    {
        switch (aggregate)
        {
            case Aggregate.Sum:
                double sum = target + value;
                return double.IsNaN(sum) ? 0 : sum; // +inf + -inf: Redis makes it 0
            case Aggregate.Min: return value < target ? value : target;
            default: return value > target ? value : target;
        }
    }

    private static double Weighted(double score, double weight)
    {
        double v = score * weight;
        return double.IsNaN(v) ? 0 : v; // inf x 0
    }

    private static List<(byte[] Member, double Score)> Intersect(CommandContext s, Source[] sources, Aggregate aggregate)
    {
        var ordered = sources.OrderBy(x => x.Count).ToArray(); // smallest first: the candidates (Redis's order too)
        if (ordered[0].Count == 0) return [];
        var candidates = Snapshot(s, ordered[0].ArgIndex);
        var scores = candidates.Select(c => Weighted(c.Score, ordered[0].Weight)).ToArray();
        var alive = Enumerable.Repeat(true, candidates.Count).ToArray();
        for (int k = 1; k < ordered.Length; k++)
        {
            var found = Lookup(s, ordered[k].ArgIndex, candidates);
            for (int i = 0; i < candidates.Count; i++)
            {
                if (!alive[i]) continue;
                if (double.IsNaN(found[i])) { alive[i] = false; continue; }
                scores[i] = Combine(scores[i], found[i] * ordered[k].Weight, aggregate);
            }
        }
        var result = new List<(byte[] Member, double Score)>();
        for (int i = 0; i < candidates.Count; i++) if (alive[i]) result.Add((candidates[i].Member, scores[i]));
        return result;
    }

    private static List<(byte[] Member, double Score)> Union(CommandContext s, Source[] sources, Aggregate aggregate)
    {
        var accumulator = new Dictionary<byte[], double>(ByteArrayComparer.Instance);
        foreach (var src in sources.OrderBy(x => x.Count))
        {
            if (src.Count == 0) continue;
            foreach (var (m, sc) in Snapshot(s, src.ArgIndex))
            {
                double v = Weighted(sc, src.Weight);
                accumulator[m] = accumulator.TryGetValue(m, out double existing) ? Combine(existing, v, aggregate) : v;
            }
        }
        return accumulator.Select(kv => (kv.Key, kv.Value)).ToList();
    }

    private static List<(byte[] Member, double Score)> Difference(CommandContext s, Source[] sources)
    {
        if (sources[0].Count == 0) return [];
        var candidates = Snapshot(s, sources[0].ArgIndex);
        var alive = Enumerable.Repeat(true, candidates.Count).ToArray();
        for (int k = 1; k < sources.Length; k++)
        {
            if (sources[k].Count == 0) continue;
            var found = Lookup(s, sources[k].ArgIndex, candidates);
            for (int i = 0; i < candidates.Count; i++) if (!double.IsNaN(found[i])) alive[i] = false;
        }
        var result = new List<(byte[] Member, double Score)>();
        for (int i = 0; i < candidates.Count; i++) if (alive[i]) result.Add(candidates[i]);
        return result;
    }

    // ---- Declarations: one block per command, beside the handlers above. CommandTable.Declarations() lists every family's
    // declarations in order (the order of COMMAND, COMMAND LIST and INFO commandstats); see docs/commands.md, "Adding a command".

    // Writes lock their keys exclusively, as the engine changes collections in place; commands with a numkeys argument lock
    // every argument after it (a superset of their keys), as LMPOP does.
    /// <summary>ZADD, ZINCRBY, ZREM, ZCARD, ZCOUNT, ZLEXCOUNT, ZSCORE, ZMSCORE, ZRANK, ZREVRANK, ZRANGE, ZRANGESTORE, ZRANGEBYSCORE,
    /// ZREVRANGEBYSCORE, ZRANGEBYLEX, ZREVRANGEBYLEX, ZREVRANGE, ZREMRANGEBYRANK, ZREMRANGEBYSCORE, ZREMRANGEBYLEX, ZPOPMIN, ZPOPMAX,
    /// ZMPOP.</summary>
    internal static CommandDefinition[] Declarations()
    {
        var k1 = new KeyRange(1, 1, 1);
        var zkeys2 = new KeyRange(2, -1, 1);
        return
        [
            new()
            {
                Name = "zadd", Arity = -4, Flags = Write | DenyOom | Fast, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "1.2.0",
                Summary = "Adds one or more members to a sorted set, or updates their scores. Creates the key if it doesn't exist.",
                Complexity = "O(log(N)) for each item added, where N is the number of elements in the sorted set.",
                LocksKeysExclusively = true, Handler = ZAdd,
            },
            new()
            {
                Name = "zincrby", Arity = 4, Flags = Write | DenyOom | Fast, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "1.2.0", Summary = "Increments the score of a member in a sorted set.",
                Complexity = "O(log(N)) where N is the number of elements in the sorted set.",
                LocksKeysExclusively = true, Handler = ZIncrBy,
            },
            new()
            {
                Name = "zrem", Arity = -3, Flags = Write | Fast, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "1.2.0",
                Summary = "Removes one or more members from a sorted set. Deletes the sorted set if all members were removed.",
                Complexity = "O(M*log(N)) with N being the number of elements in the sorted set and M the number of elements to be removed.",
                LocksKeysExclusively = true, Handler = ZRem,
            },
            new()
            {
                Name = "zcard", Arity = 2, Flags = ReadOnly | Fast, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "1.2.0", Summary = "Returns the number of members in a sorted set.",
                Handler = ZCard,
            },
            new()
            {
                Name = "zcount", Arity = 4, Flags = ReadOnly | Fast, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "2.0.0", Summary = "Returns the count of members in a sorted set that have scores within a range.",
                Complexity = "O(log(N)) with N being the number of elements in the sorted set.",
                Handler = ZCount,
            },
            new()
            {
                Name = "zlexcount", Arity = 4, Flags = ReadOnly | Fast, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "2.8.9", Summary = "Returns the number of members in a sorted set within a lexicographical range.",
                Complexity = "O(log(N)) with N being the number of elements in the sorted set.",
                Handler = ZLexCount,
            },
            new()
            {
                Name = "zscore", Arity = 3, Flags = ReadOnly | Fast, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "1.2.0", Summary = "Returns the score of a member in a sorted set.",
                Handler = ZScore,
            },
            new()
            {
                Name = "zmscore", Arity = -3, Flags = ReadOnly | Fast, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "6.2.0", Summary = "Returns the score of one or more members in a sorted set.",
                Complexity = "O(N) where N is the number of members being requested.",
                Handler = ZMScore,
            },
            new()
            {
                Name = "zrank", Arity = -3, Flags = ReadOnly | Fast, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "2.0.0", Summary = "Returns the index of a member in a sorted set ordered by ascending scores.",
                Complexity = "O(log(N))",
                Handler = ZRank,
            },
            new()
            {
                Name = "zrevrank", Arity = -3, Flags = ReadOnly | Fast, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "2.0.0", Summary = "Returns the index of a member in a sorted set ordered by descending scores.",
                Complexity = "O(log(N))",
                Handler = ZRevRank,
            },
            new()
            {
                Name = "zrange", Arity = -4, Flags = ReadOnly, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "1.2.0", Summary = "Returns members in a sorted set within a range of indexes.",
                Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.",
                Handler = ZRange,
            },
            new()
            {
                Name = "zrangestore", Arity = -5, Flags = Write | DenyOom, Acl = A.SortedSet, Keys = new KeyRange(1, 2, 1),
                Group = "sorted_set", Since = "6.2.0", Summary = "Stores a range of members from sorted set in a key.",
                Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements stored into the " +
                    "destination key.",
                LocksKeysExclusively = true, Handler = ZRangeStore,
            },
            new()
            {
                Name = "zrangebyscore", Arity = -4, Flags = ReadOnly, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "1.0.5", Summary = "Returns members in a sorted set within a range of scores.",
                Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M " +
                    "is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
                Handler = ZRangeByScore,
            },
            new()
            {
                Name = "zrevrangebyscore", Arity = -4, Flags = ReadOnly, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "2.2.0", Summary = "Returns members in a sorted set within a range of scores in reverse order.",
                Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M " +
                    "is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
                Handler = ZRevRangeByScore,
            },
            new()
            {
                Name = "zrangebylex", Arity = -4, Flags = ReadOnly, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "2.8.9", Summary = "Returns members in a sorted set within a lexicographical range.",
                Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M " +
                    "is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
                Handler = ZRangeByLex,
            },
            new()
            {
                Name = "zrevrangebylex", Arity = -4, Flags = ReadOnly, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "2.8.9", Summary = "Returns members in a sorted set within a lexicographical range in reverse order.",
                Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M " +
                    "is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
                Handler = ZRevRangeByLex,
            },
            new()
            {
                Name = "zrevrange", Arity = -4, Flags = ReadOnly, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "1.2.0", Summary = "Returns members in a sorted set within a range of indexes in reverse order.",
                Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.",
                Handler = ZRevRange,
            },
            new()
            {
                Name = "zremrangebyrank", Arity = 4, Flags = Write, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "2.0.0",
                Summary = "Removes members in a sorted set within a range of indexes. Deletes the sorted set if all members were removed.",
                Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the " +
                    "operation.",
                LocksKeysExclusively = true, Handler = ZRemRangeByRank,
            },
            new()
            {
                Name = "zremrangebyscore", Arity = 4, Flags = Write, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "1.2.0",
                Summary = "Removes members in a sorted set within a range of scores. Deletes the sorted set if all members were removed.",
                Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the " +
                    "operation.",
                LocksKeysExclusively = true, Handler = ZRemRangeByScore,
            },
            new()
            {
                Name = "zremrangebylex", Arity = 4, Flags = Write, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "2.8.9",
                Summary = "Removes members in a sorted set within a lexicographical range. Deletes the sorted set if all members were removed.",
                Complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the " +
                    "operation.",
                LocksKeysExclusively = true, Handler = ZRemRangeByLex,
            },
            new()
            {
                Name = "zpopmin", Arity = -2, Flags = Write | Fast, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "5.0.0",
                Summary = "Returns the lowest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member was " +
                    "popped.",
                Complexity = "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.",
                LocksKeysExclusively = true, Handler = ZPopMin,
            },
            new()
            {
                Name = "zpopmax", Arity = -2, Flags = Write | Fast, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "5.0.0",
                Summary = "Returns the highest-scoring members from a sorted set after removing them. Deletes the sorted set if the last member " +
                    "was popped.",
                Complexity = "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.",
                LocksKeysExclusively = true, Handler = ZPopMax,
            },
            new()
            {
                Name = "zmpop", Arity = -4, Flags = Write | MovableKeys, Acl = A.SortedSet, Keys = zkeys2,
                Group = "sorted_set", Since = "7.0.0",
                Summary = "Returns the highest- or lowest-scoring members from one or more sorted sets after removing them. Deletes the sorted set " +
                    "if the last member was popped.",
                Complexity = "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M " +
                    "being the number of elements popped.",
                LocksKeysExclusively = true, Handler = ZMPop,
            },
        ];
    }

    /// <summary>ZRANDMEMBER, ZINTER, ZUNION, ZDIFF, ZINTERSTORE, ZUNIONSTORE, ZDIFFSTORE, ZINTERCARD, ZSCAN: apart from
    /// Declarations() because the table lists them after the stream commands.</summary>
    internal static CommandDefinition[] MoreDeclarations()
    {
        var k1 = new KeyRange(1, 1, 1);
        var zkeys2 = new KeyRange(2, -1, 1);
        return
        [
            new()
            {
                Name = "zrandmember", Arity = -2, Flags = ReadOnly, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "6.2.0", Summary = "Returns one or more random members from a sorted set.",
                Complexity = "O(N) where N is the number of members returned",
                Tips = ["nondeterministic_output"],
                Handler = ZRandMember,
            },
            new()
            {
                Name = "zinter", Arity = -3, Flags = ReadOnly | MovableKeys, Acl = A.SortedSet, Keys = zkeys2,
                Group = "sorted_set", Since = "6.2.0", Summary = "Returns the intersect of multiple sorted sets.",
                Complexity = "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets " +
                    "and M being the number of elements in the resulting sorted set.",
                Handler = ZInter,
            },
            new()
            {
                Name = "zunion", Arity = -3, Flags = ReadOnly | MovableKeys, Acl = A.SortedSet, Keys = zkeys2,
                Group = "sorted_set", Since = "6.2.0", Summary = "Returns the union of multiple sorted sets.",
                Complexity = "O(N)+O(M*log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in " +
                    "the resulting sorted set.",
                Handler = ZUnion,
            },
            new()
            {
                Name = "zdiff", Arity = -3, Flags = ReadOnly | MovableKeys, Acl = A.SortedSet, Keys = zkeys2,
                Group = "sorted_set", Since = "6.2.0", Summary = "Returns the difference between multiple sorted sets.",
                Complexity = "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first " +
                    "set, and K is the size of the result set.",
                Handler = ZDiff,
            },
            new()
            {
                Name = "zinterstore", Arity = -4, Flags = Write | DenyOom | MovableKeys, Acl = A.SortedSet, Keys = new KeyRange(1, -1, 1),
                Group = "sorted_set", Since = "2.0.0", Summary = "Stores the intersect of multiple sorted sets in a key.",
                Complexity = "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets " +
                    "and M being the number of elements in the resulting sorted set.",
                LocksKeysExclusively = true, Handler = ZInterStore,
            },
            new()
            {
                Name = "zunionstore", Arity = -4, Flags = Write | DenyOom | MovableKeys, Acl = A.SortedSet, Keys = new KeyRange(1, -1, 1),
                Group = "sorted_set", Since = "2.0.0", Summary = "Stores the union of multiple sorted sets in a key.",
                Complexity = "O(N)+O(M log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in " +
                    "the resulting sorted set.",
                LocksKeysExclusively = true, Handler = ZUnionStore,
            },
            new()
            {
                Name = "zdiffstore", Arity = -4, Flags = Write | DenyOom | MovableKeys, Acl = A.SortedSet, Keys = new KeyRange(1, -1, 1),
                Group = "sorted_set", Since = "6.2.0", Summary = "Stores the difference of multiple sorted sets in a key.",
                Complexity = "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first " +
                    "set, and K is the size of the result set.",
                LocksKeysExclusively = true, Handler = ZDiffStore,
            },
            new()
            {
                Name = "zintercard", Arity = -3, Flags = ReadOnly | MovableKeys, Acl = A.SortedSet, Keys = zkeys2,
                Group = "sorted_set", Since = "7.0.0", Summary = "Returns the number of members of the intersect of multiple sorted sets.",
                Complexity = "O(N*K) worst case with N being the smallest input sorted set, K being the number of input sorted sets.",
                Handler = ZInterCard,
            },
            new()
            {
                Name = "zscan", Arity = -3, Flags = ReadOnly, Acl = A.SortedSet, Keys = k1,
                Group = "sorted_set", Since = "2.8.0", Summary = "Iterates over members and scores of a sorted set.",
                Complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to " +
                    "0. N is the number of elements inside the collection.",
                Tips = ["nondeterministic_output"],
                Handler = ZScan,
            },
        ];
    }
}
