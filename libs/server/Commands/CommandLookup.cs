// CommandLookup: case-insensitive, allocation-free lookup of a command by its request bytes.
// Invariant: the table is immutable after construction; open addressing over a power-of-two array
// at most half full, keyed by a hash of the upper-cased name.
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
    }

    private static int Hash(ReadOnlySpan<byte> upperName)
    {
        uint h = 2166136261;
        foreach (var b in upperName) h = (h ^ b) * 16777619;
        return (int)(h ^ (h >> 15));
    }

    public CommandDefinition? Find(ReadOnlySpan<byte> name)
    {
        if (name.Length == 0 || name.Length > 64) return null;
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
