// KeyFinderFunctions: the key-finding functions Redis 7.2 names in its command definitions (get_keys_function), written
// here from their described behaviour, for commands whose key specs cannot say everything: SORT's STORE, MIGRATE's KEYS,
// SET's and BITFIELD's flags that depend on the arguments, and key counts Redis reads leniently (atoi).
// Invariant: each returns the number of keys added (0 on a syntax error the command itself will report); flags are None
// where Redis's function leaves them 0 (its spec is complete, so they are never needed by the server itself).
using K = Garnet.server.Commands.KeySpecs.KeySpecFlags;

namespace Garnet.server.Commands.KeySpecs;

internal static class KeyFinderFunctions
{
    public static int Run(string name, int argc, ArgAt arg, List<(int Pos, K Flags)> keys) => name switch
    {
        "sintercardGetKeys" or "zunionInterDiffGetKeys" or "lmpopGetKeys" or "zmpopGetKeys" => Counted(0, 1, 2, argc, arg, keys),
        "zunionInterDiffStoreGetKeys" => Counted(1, 2, 3, argc, arg, keys),
        "evalGetKeys" or "functionGetKeys" or "blmpopGetKeys" or "bzmpopGetKeys" => Counted(0, 2, 3, argc, arg, keys),
        "sortROGetKeys" => Add(keys, 1, K.RO | K.Access),
        "sortGetKeys" => Sort(argc, arg, keys),
        "migrateGetKeys" => Migrate(argc, arg, keys),
        "georadiusGetKeys" => GeoRadius(argc, arg, keys),
        "xreadGetKeys" => XRead(argc, arg, keys),
        "setGetKeys" => Set(argc, arg, keys),
        "bitfieldGetKeys" => BitField(argc, arg, keys),
        _ => throw new InvalidOperationException($"no key-finding function '{name}'"),
    };

    private static int Add(List<(int, K)> keys, int pos, K flags) { keys.Add((pos, flags)); return keys.Count; }

    private static bool Is(ArgAt arg, int i, string word) => System.Text.Ascii.EqualsIgnoreCase(arg(i), word);

    /// <summary>[store] numkeys key...: the count read as C's atoi; none unless 1 &lt;= count &lt;= what follows. The
    /// destination, if any, comes after the source keys.</summary>
    private static int Counted(int storeAt, int countAt, int firstAt, int argc, ArgAt arg, List<(int, K)> keys)
    {
        if (countAt >= argc) return 0;
        long num = Atoi(arg(countAt));
        if (num < 1 || num > argc - firstAt) return 0;
        for (int i = 0; i < num; i++) keys.Add((firstAt + i, K.None));
        if (storeAt > 0) keys.Add((storeAt, K.None));
        return keys.Count;
    }

    /// <summary>C's atoi: leading blanks, a sign, then digits up to the first other byte (clamped to the int range).</summary>
    internal static long Atoi(ReadOnlySpan<byte> s)
    {
        int i = 0;
        while (i < s.Length && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) i++;
        bool neg = false;
        if (i < s.Length && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
        long v = 0;
        for (; i < s.Length && s[i] >= '0' && s[i] <= '9'; i++) v = Math.Min(v * 10 + (s[i] - '0'), (long)int.MaxValue + 1);
        v = neg ? -v : v;
        return Math.Clamp(v, int.MinValue, int.MaxValue);
    }

    /// <summary>SORT key ... [STORE dest]: LIMIT skips 2, GET and BY skip 1; the last STORE with an argument wins.</summary>
    private static int Sort(int argc, ArgAt arg, List<(int, K)> keys)
    {
        keys.Add((1, K.RO | K.Access));
        int store = 0;
        for (int i = 2; i < argc; i++)
        {
            if (Is(arg, i, "limit")) i += 2;
            else if (Is(arg, i, "get") || Is(arg, i, "by")) i += 1;
            else if (Is(arg, i, "store") && i + 1 < argc) store = i + 1;
        }
        if (store > 0) keys.Add((store, K.OW | K.Update));
        return keys.Count;
    }

    /// <summary>MIGRATE host port key|"" db timeout [COPY] [REPLACE] [AUTH pw] [AUTH2 user pw] [KEYS key...].</summary>
    private static int Migrate(int argc, ArgAt arg, List<(int, K)> keys)
    {
        int first = 3, num = 1;
        if (argc > 6)
        {
            for (int i = 6; i < argc; i++)
            {
                if (Is(arg, i, "keys"))
                {
                    if (arg(3).Length > 0) num = 0; // a key and KEYS: the command reports the syntax error
                    else { first = i + 1; num = argc - first; }
                    break;
                }
                if (Is(arg, i, "auth")) i += 1;
                else if (Is(arg, i, "auth2")) i += 2;
            }
        }
        for (int i = 0; i < num; i++) keys.Add((first + i, K.RW | K.Access | K.Delete));
        return keys.Count;
    }

    /// <summary>GEORADIUS[BYMEMBER] key ...: the last STORE/STOREDIST argument from index 5 on is a key too.</summary>
    private static int GeoRadius(int argc, ArgAt arg, List<(int, K)> keys)
    {
        int stored = -1;
        for (int i = 5; i < argc; i++)
            if ((Is(arg, i, "store") || Is(arg, i, "storedist")) && i + 1 < argc) { stored = i + 1; i++; }
        keys.Add((1, K.None));
        if (stored > 0) keys.Add((stored, K.None));
        return keys.Count;
    }

    /// <summary>XREAD/XREADGROUP: options (BLOCK n, COUNT n, GROUP g c, NOACK) up to STREAMS, then keys and as many ids.</summary>
    private static int XRead(int argc, ArgAt arg, List<(int, K)> keys)
    {
        int streams = -1;
        for (int i = 1; i < argc; i++)
        {
            if (Is(arg, i, "block") || Is(arg, i, "count")) i++;
            else if (Is(arg, i, "group")) i += 2;
            else if (Is(arg, i, "noack")) { }
            else if (Is(arg, i, "streams")) { streams = i; break; }
            else break;
        }
        int num = streams < 0 ? 0 : argc - streams - 1;
        if (streams < 0 || num == 0 || num % 2 != 0) return 0;
        for (int i = streams + 1; i < argc - num / 2; i++) keys.Add((i, K.None));
        return keys.Count;
    }

    /// <summary>SET key value [...]: GET among the options reads the old value (RW access update), else it overwrites.</summary>
    private static int Set(int argc, ArgAt arg, List<(int, K)> keys)
    {
        for (int i = 3; i < argc; i++)
            if (Is(arg, i, "get")) return Add(keys, 1, K.RW | K.Access | K.Update);
        return Add(keys, 1, K.OW | K.Update);
    }

    /// <summary>BITFIELD key [GET t o | SET t o v | INCRBY t o i | OVERFLOW w]...: read-only unless it sets, increments or
    /// does not parse.</summary>
    private static int BitField(int argc, ArgAt arg, List<(int, K)> keys)
    {
        bool readOnly = true;
        for (int i = 2; i < argc; i++)
        {
            int rest = argc - i - 1;
            if (Is(arg, i, "get") && rest >= 2) i += 2;
            else if ((Is(arg, i, "set") || Is(arg, i, "incrby")) && rest >= 3) { readOnly = false; break; }
            else if (Is(arg, i, "overflow") && rest >= 1) i += 1;
            else { readOnly = false; break; }
        }
        return Add(keys, 1, readOnly ? K.RO | K.Access : K.RW | K.Access | K.Update);
    }
}
