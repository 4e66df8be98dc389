// CommandLookup: case-insensitive, allocation-free lookup of a command by its request bytes.
// Invariant: the table is immutable after construction; open addressing over a power-of-two array
// at most half full, keyed by a hash of the upper-cased name. Names of up to 8 bytes (most commands) are found first in
// a second such table keyed by the name packed into one word with its length, compared as one integer.
namespace Garnet.server.Commands;

internal sealed class CommandLookup
{
    private readonly CommandDefinition?[] _slots;
    private readonly int _mask;

    public CommandLookup(IReadOnlyList<CommandDefinition> commands)
    {
        int size = 16;
        while (size < commands.Count * 2) size *= 2;
        _slots = new CommandDefinition?[size];
        _mask = size - 1;
        foreach (var c in commands)
        {
            int i = Hash(c.NameUpperBytes) & _mask;
            while (_slots[i] is not null)
            {
                if (_slots[i]!.NameUpperBytes.AsSpan().SequenceEqual(c.NameUpperBytes))
                    throw new InvalidOperationException($"duplicate command '{c.FullName}'");
                i = (i + 1) & _mask;
            }
            _slots[i] = c;
        }
        _short = new (ulong, int, CommandDefinition?)[size];
        foreach (var c in commands)
        {
            if (c.NameUpperBytes.Length > 8) continue;
            ulong key = Pack(c.NameUpperBytes);
            int i = ShortHash(key) & _mask;
            while (_short[i].Command is not null) i = (i + 1) & _mask;
            _short[i] = (key, c.NameUpperBytes.Length, c);
        }
    }

    private readonly (ulong Key, int Length, CommandDefinition? Command)[] _short;

    /// <summary>Up to 8 bytes of a name, upper-cased, little-endian in one word (zero above the name).</summary>
    private static ulong Pack(ReadOnlySpan<byte> name)
    {
        ulong key = 0;
        for (int k = 0; k < name.Length; k++)
        {
            byte b = name[k];
            if (b is >= (byte)'a' and <= (byte)'z') b -= 32;
            key |= (ulong)b << (8 * k);
        }
        return key;
    }

    private static int ShortHash(ulong key) => (int)((key * 0x9E3779B97F4A7C15UL) >> 40);

    private static int Hash(ReadOnlySpan<byte> upperName)
    {
        uint h = 2166136261;
        foreach (var b in upperName) h = (h ^ b) * 16777619;
        return (int)(h ^ (h >> 15));
    }

    public CommandDefinition? Find(ReadOnlySpan<byte> name)
    {
        if (name.Length == 0 || name.Length > 64) return null;
        if (name.Length <= 8)
        {
            ulong key = Pack(name);
            int at = ShortHash(key) & _mask;
            while (true)
            {
                ref var e = ref _short[at];
                if (e.Command is null) return null;
                if (e.Key == key && e.Length == name.Length) return e.Command;
                at = (at + 1) & _mask;
            }
        }
        Span<byte> upper = stackalloc byte[name.Length];
        for (int k = 0; k < name.Length; k++)
        {
            byte b = name[k];
            upper[k] = b is >= (byte)'a' and <= (byte)'z' ? (byte)(b - 32) : b;
        }
        int i = Hash(upper) & _mask;
        while (true)
        {
            var c = _slots[i];
            if (c is null) return null;
            if (upper.SequenceEqual(c.NameUpperBytes)) return c;
            i = (i + 1) & _mask;
        }
    }
}
