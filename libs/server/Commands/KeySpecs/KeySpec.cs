// KeySpec: one of a command's key specs, as Redis 7.2 describes them (src/commands/*.json): flags, where the search
// begins (an index, after a keyword, or unknown) and how the keys are found from there (a range, a key count, or
// unknown). COMMAND INFO lists them; COMMAND GETKEYS/GETKEYSANDFLAGS find keys with them (KeyFinder).
// Invariants:
//  - Flags are written in Redis's bit order: RO RW OW RM access update insert delete not_key incomplete variable_flags.
//  - The compact form round-trips: Parse(s).ToString() == s (the generator's output and a row's KeySpecs use it).
using System.Globalization;
using System.Text;

namespace Garnet.server.Commands.KeySpecs;

[Flags]
public enum KeySpecFlags : ushort
{
    None = 0,
    RO = 1 << 0, RW = 1 << 1, OW = 1 << 2, RM = 1 << 3,
    Access = 1 << 4, Update = 1 << 5, Insert = 1 << 6, Delete = 1 << 7,
    NotKey = 1 << 8, Incomplete = 1 << 9, VariableFlags = 1 << 10,
}

public enum BeginSearch : byte { Unknown, Index, Keyword }
public enum FindKeys : byte { Unknown, Range, KeyNum }

public sealed class KeySpec
{
    private static readonly (KeySpecFlags flag, string compact, string reply)[] s_names =
    [
        (KeySpecFlags.RO, "RO", "RO"), (KeySpecFlags.RW, "RW", "RW"), (KeySpecFlags.OW, "OW", "OW"), (KeySpecFlags.RM, "RM", "RM"),
        (KeySpecFlags.Access, "ACCESS", "access"), (KeySpecFlags.Update, "UPDATE", "update"), (KeySpecFlags.Insert, "INSERT", "insert"),
        (KeySpecFlags.Delete, "DELETE", "delete"), (KeySpecFlags.NotKey, "NOT_KEY", "not_key"),
        (KeySpecFlags.Incomplete, "INCOMPLETE", "incomplete"), (KeySpecFlags.VariableFlags, "VARIABLE_FLAGS", "variable_flags"),
    ];

    public KeySpecFlags Flags { get; init; }
    public BeginSearch Begin { get; init; }
    public int Index { get; init; }                 // BeginSearch.Index: the position
    public string Keyword { get; init; } = "";      // BeginSearch.Keyword
    public int StartFrom { get; init; }             // BeginSearch.Keyword: where to look from (negative: from the end, backwards)
    public FindKeys Find { get; init; }
    public int LastKey { get; init; }               // Range: relative to the first key; negative counts from the end
    public int KeyStep { get; init; } = 1;          // Range and KeyNum
    public int Limit { get; init; }                 // Range with LastKey -1: only the first 1/Limit of what follows
    public int KeyNumIdx { get; init; }             // KeyNum: the count's position relative to the begin
    public int FirstKey { get; init; }              // KeyNum: the first key's position relative to the begin
    public string? Notes { get; init; }

    /// <summary>The flag names as COMMAND INFO and GETKEYSANDFLAGS write them ("RW", "access", ...).</summary>
    public static IEnumerable<string> ReplyNames(KeySpecFlags flags) => s_names.Where(n => (flags & n.flag) != 0).Select(n => n.reply);

    /// <summary>Parses "RW ACCESS DELETE @1 R0,1,0; RW INSERT @2 R0,1,0": per spec its flags, then @index, Kkeyword:startfrom
    /// or ?, then Rlastkey,step,limit, Nkeynumidx,firstkey,step or ?. Throws on anything else (the table is built at start).</summary>
    public static KeySpec[] Parse(string compact, Func<int, string?>? notes = null)
    {
        if (string.IsNullOrWhiteSpace(compact)) return [];
        var parts = compact.Split(';', StringSplitOptions.TrimEntries);
        var specs = new KeySpec[parts.Length];
        for (int i = 0; i < parts.Length; i++) specs[i] = ParseOne(parts[i], notes?.Invoke(i));
        return specs;
    }

    private static KeySpec ParseOne(string text, string? notes)
    {
        var words = text.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        if (words.Length < 2) throw new FormatException($"key spec '{text}': needs a begin_search and a find_keys");
        var flags = KeySpecFlags.None;
        for (int i = 0; i < words.Length - 2; i++)
        {
            var n = s_names.FirstOrDefault(x => x.compact == words[i]);
            if (n.flag == KeySpecFlags.None) throw new FormatException($"key spec '{text}': unknown flag '{words[i]}'");
            flags |= n.flag;
        }
        string b = words[^2], f = words[^1];
        BeginSearch begin; int index = 0, startFrom = 0; string keyword = "";
        if (b == "?") begin = BeginSearch.Unknown;
        else if (b[0] == '@') { begin = BeginSearch.Index; index = Int(b[1..], text); }
        else if (b[0] == 'K' && b.LastIndexOf(':') is > 1 and var colon)
        { begin = BeginSearch.Keyword; keyword = b[1..colon]; startFrom = Int(b[(colon + 1)..], text); }
        else throw new FormatException($"key spec '{text}': bad begin_search '{b}'");
        if (f == "?") return new() { Flags = flags, Begin = begin, Index = index, Keyword = keyword, StartFrom = startFrom, Notes = notes };
        var nums = f.Length > 1 ? f[1..].Split(',') : [];
        if (nums.Length != 3 || (f[0] != 'R' && f[0] != 'N')) throw new FormatException($"key spec '{text}': bad find_keys '{f}'");
        int a = Int(nums[0], text), s = Int(nums[1], text), c = Int(nums[2], text);
        return f[0] == 'R'
            ? new() { Flags = flags, Begin = begin, Index = index, Keyword = keyword, StartFrom = startFrom, Find = FindKeys.Range, LastKey = a, KeyStep = s, Limit = c, Notes = notes }
            : new() { Flags = flags, Begin = begin, Index = index, Keyword = keyword, StartFrom = startFrom, Find = FindKeys.KeyNum, KeyNumIdx = a, FirstKey = s, KeyStep = c, Notes = notes };
    }

    private static int Int(string s, string text) => int.TryParse(s, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int v)
        ? v : throw new FormatException($"key spec '{text}': '{s}' is not a number");

    /// <summary>The compact form (see Parse).</summary>
    public override string ToString()
    {
        var sb = new StringBuilder();
        foreach (var n in s_names) if ((Flags & n.flag) != 0) sb.Append(n.compact).Append(' ');
        sb.Append(Begin switch { BeginSearch.Index => "@" + Index, BeginSearch.Keyword => $"K{Keyword}:{StartFrom}", _ => "?" }).Append(' ');
        sb.Append(Find switch { FindKeys.Range => $"R{LastKey},{KeyStep},{Limit}", FindKeys.KeyNum => $"N{KeyNumIdx},{FirstKey},{KeyStep}", _ => "?" });
        return sb.ToString();
    }

    /// <summary>A command's one spec from its legacy key positions (rows whose command Redis does not have).</summary>
    internal static KeySpec FromRange(KeyRange keys, KeySpecFlags flags) => new()
    {
        Flags = flags, Begin = BeginSearch.Index, Index = keys.First, Find = FindKeys.Range,
        LastKey = keys.Last < 0 ? keys.Last : keys.Last - keys.First, KeyStep = keys.Step, Limit = 0,
    };
}
