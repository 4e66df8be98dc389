// KeyFinder: the keys of a request and each key's flags, found as Redis 7.2's COMMAND GETKEYS/GETKEYSANDFLAGS find them:
// through the command's key specs when they are complete and their flags fixed; otherwise (a spec INCOMPLETE, with
// VARIABLE_FLAGS, unknown, or failing on these arguments) through the command's named key-finding function
// (KeyFinderFunctions), else none. Used by COMMAND only: locking, WATCH, read-ahead and the rest ask
// CommandDefinition.KeysOf, which finds the same keys for every command whose specs are complete.
// Invariants: positions are 0-based indexes into the request (the name at 0) and lie in 1..argc-1; keys are listed spec
// by spec, in each spec's order, as Redis lists them.
namespace Garnet.server.Commands.KeySpecs;

/// <summary>Reads argument i of the request (the command name is 0).</summary>
public delegate ReadOnlySpan<byte> ArgAt(int i);

public static class KeyFinder
{
    /// <summary>Redis's doesCommandHaveKeys: a key-finding function, or a spec that is not NOT_KEY.</summary>
    public static bool HasKeys(CommandDefinition c) => c.KeyFinder is not null || c.Specs.Any(s => (s.Flags & KeySpecFlags.NotKey) == 0);

    /// <summary>Adds the keys of a request of argc arguments to keys; returns how many (0 when none can be found).</summary>
    public static int Find(CommandDefinition c, int argc, ArgAt arg, List<(int Pos, KeySpecFlags Flags)> keys)
    {
        keys.Clear();
        var all = KeySpecFlags.None;
        bool anyKey = false;
        foreach (var s in c.Specs)
        {
            all |= s.Flags;
            anyKey |= (s.Flags & KeySpecFlags.NotKey) == 0;
        }
        if (anyKey && (all & KeySpecFlags.VariableFlags) == 0 && FromSpecs(c, argc, arg, keys)) return keys.Count;
        keys.Clear();
        return c.KeyFinder is { } f ? KeyFinderFunctions.Run(f, argc, arg, keys) : 0;
    }

    /// <summary>Redis's getKeysUsingKeySpecs without partial results: false when a spec cannot be followed (unknown,
    /// a bad key count, positions out of range) or is INCOMPLETE.</summary>
    private static bool FromSpecs(CommandDefinition c, int argc, ArgAt arg, List<(int, KeySpecFlags)> keys)
    {
        foreach (var spec in c.Specs)
        {
            if ((spec.Flags & KeySpecFlags.NotKey) != 0) continue;
            int first = 0;
            switch (spec.Begin)
            {
                case BeginSearch.Index: first = spec.Index; break;
                case BeginSearch.Keyword:
                    first = FindKeyword(spec, argc, arg);
                    if (first == 0) continue; // no keyword: this spec names no key
                    break;
                default: return false;
            }
            int last, step;
            switch (spec.Find)
            {
                case FindKeys.Range:
                    step = spec.KeyStep;
                    if (spec.LastKey >= 0) last = first + spec.LastKey;
                    else if (spec.Limit == 0) last = argc + spec.LastKey;
                    else last = first + ((argc - first) / spec.Limit + spec.LastKey);
                    break;
                case FindKeys.KeyNum:
                    step = spec.KeyStep;
                    if (spec.KeyNumIdx >= argc || first + spec.KeyNumIdx >= argc) return false;
                    if (!Storage.NumberParsing.TryParseInt64(arg(first + spec.KeyNumIdx), out long n) || n < 0) return false;
                    first += spec.FirstKey;
                    last = (int)Math.Min(int.MaxValue, first + n - 1);
                    break;
                default: return false;
            }
            if (last >= argc || last < first || first >= argc) return false;
            for (int i = first; i <= last; i += Math.Max(1, step)) keys.Add((i, spec.Flags));
            if ((spec.Flags & KeySpecFlags.Incomplete) != 0) return false;
        }
        return true;
    }

    /// <summary>1 + the index of the spec's keyword (searched from StartFrom forwards, or backwards when negative), or 0.</summary>
    private static int FindKeyword(KeySpec spec, int argc, ArgAt arg)
    {
        var word = System.Text.Encoding.ASCII.GetBytes(spec.Keyword);
        int start = spec.StartFrom > 0 ? spec.StartFrom : argc + spec.StartFrom;
        int end = spec.StartFrom > 0 ? argc - 1 : 1;
        for (int i = start; i != end; i = start <= end ? i + 1 : i - 1)
        {
            if (i >= argc || i < 1) break;
            if (System.Text.Ascii.EqualsIgnoreCase(arg(i), word)) return i + 1;
        }
        return 0;
    }
}
